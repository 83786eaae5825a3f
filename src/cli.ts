// The `quire` command line: serve the API, and administrative commands.
import { Command } from 'commander'
import { loadConfig } from './config.ts'
import { addServeCommand } from './commands/serve-command.ts'
import { addTransferCommands } from './commands/transfer-commands.ts'
import { addBackupCommands } from './commands/backup-commands.ts'
import { addMcpCommand } from './commands/mcp-command.ts'
import { describeStartupFailure } from './startup-error.ts'
import { packageVersion } from './package-root.ts'

const program = new Command()
program
  .name('quire')
  .description('Quire: a self-hosted document data service')
  .version(packageVersion(), '-v, --version')

addServeCommand(program)
addTransferCommands(program)
addBackupCommands(program)
addMcpCommand(program)

program
  .command('admin')
  .description('manage administrators')
  .command('create')
  .description('create an admin user in the storage DATABASE_URL names (the first admin, or another one)')
  .requiredOption('--email <email>', "the admin's email, used to log in")
  .option('--password <password>', 'the password; or set QUIRE_ADMIN_PASSWORD to keep it out of the shell history')
  .action(async (options: { email: string; password?: string }) => {
    const { createAdmin } = await import('./commands/admin-command.ts')
    const password = options.password ?? process.env.QUIRE_ADMIN_PASSWORD
    if (!password) return program.error('quire admin create: give --password or set QUIRE_ADMIN_PASSWORD')
    try {
      const id = await createAdmin(loadConfig(), options.email, password)
      console.log(`admin ${options.email.toLowerCase()} created (id ${id})`)
    } catch (err) {
      program.error(`quire admin create: ${(err as Error).message}`)
    }
  })

program
  .command('models')
  .description('model files')
  .command('from-jxp <dir>')
  .description(
    "convert a JXP app's Mongoose model files in <dir> into Quire model files (and model-code stubs), " +
      'reporting what needs a human'
  )
  .option('--out <dir>', 'where to write them', 'models')
  .option('--force', 'overwrite existing files')
  .action(async (dir: string, options: { out: string; force?: boolean }) => {
    const { modelsFromJxp } = await import('./jxp/from-jxp/from-jxp-command.ts')
    const { written, report } = modelsFromJxp(dir, options.out, options.force === true)
    console.log(`wrote ${written.length} file(s) to ${options.out}: ${written.join(', ') || 'none'}`)
    if (report.length > 0) console.log(`needs a human:\n${report.map(line => `  - ${line}`).join('\n')}`)
  })

program
  .command('secret')
  .description('manage the service secret (see docs/auth.md)')
  .command('adopt')
  .description(
    'make the configured secret (QUIRE_SECRET, or else the secret file in DATA_DIR, or else a new stored ' +
      "one) the database's secret; " +
      "API keys are reissued at each user's next login and login links die"
  )
  .action(async () => {
    const { adoptSecret } = await import('./commands/secret-command.ts')
    const source = await adoptSecret(loadConfig(), msg => console.error(msg))
    console.log(`the service secret is now ${source}: restart every process with it`)
  })

/** Prints why a command failed (one line when the operator can fix it, the stack of a bug) and exits 1. */
function fail(err: unknown): never {
  const line = describeStartupFailure(err)
  process.stderr.write(line ? `quire: ${line}\n` : `quire: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
}

await program.parseAsync().catch(fail)
