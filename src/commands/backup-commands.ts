// The `backup` and `restore` subcommands: the whole deployment (users, groups, credentials,
// every model) to one file and back, through the configured storage (the embedded server of
// DATA_DIR while `quire serve` runs too), with a progress bar on stderr. Their modules load when
// the command runs.
import type { Command } from 'commander'
import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { finished } from 'node:stream/promises'
import type { Writable } from 'node:stream'
import { deploymentConfig } from './deployment-config.ts'
import { withDatabase } from '../embedded/attach-database.ts'
import { StartupError } from '../startup-error.ts'

const quiet = (): void => {}

/** Where the backup goes: the file (written as file.partial, renamed once whole) or stdout. */
function backupTarget(file: string | undefined): {
  out: Writable
  done: () => Promise<void>
  failed: () => Promise<void>
} {
  if (file === undefined) {
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      process.stderr.write(
        `\nquire: backup: the output closed before the end (${err.code ?? err.message}): what it received ` +
          `is incomplete\n`
      )
      process.exit(1)
    })
    return { out: process.stdout, done: async () => {}, failed: async () => {} }
  }
  const partial = `${file}.partial`
  const out = createWriteStream(partial, { mode: 0o600 })
  return {
    out,
    done: async () => {
      out.end()
      await finished(out)
      await rename(partial, file)
    },
    failed: async () => {
      out.destroy()
      await rm(partial, { force: true })
    }
  }
}

export function addBackupCommands(program: Command): void {
  program
    .command('backup [file]')
    .description(
      'write everything (users, groups, credentials, every model) as of one moment to a file (or stdout), ' +
        'for quire restore'
    )
    .action(async (file: string | undefined) => {
      const config = deploymentConfig('backup')
      const [{ default: cliProgress }, { openStorage }, { writeBackup }, { backupModels }] = await Promise.all([
        import('cli-progress'),
        import('../storage/open-storage.ts'),
        import('../backup/write-backup.ts'),
        import('../backup/backup-models.ts')
      ])
      if (file === undefined && process.stdout.isTTY)
        throw new StartupError('quire backup: give a file (quire backup backup.ndjson), or redirect stdout')
      await withDatabase(config, quiet, async () => {
        const { engine, models } = await openStorage(config, { log: quiet })
        const target = backupTarget(file)
        const bar = new cliProgress.SingleBar(
          { format: 'backing up {bar} {value} of about {total} documents | {rate} docs/s', stream: process.stderr },
          cliProgress.Presets.shades_classic
        )
        const started = Date.now()
        try {
          const included = backupModels(models)
          await engine.syncModels(included)
          const estimate = (await Promise.all(included.map(model => engine.estimateCount(model)))).reduce(
            (a, b) => a + b,
            0
          )
          bar.start(Math.max(1, estimate), 0, { rate: 0 })
          const summary = await writeBackup(engine, included, target.out, documents => {
            if (documents > bar.getTotal()) bar.setTotal(documents)
            bar.update(documents, { rate: Math.round(documents / Math.max(0.001, (Date.now() - started) / 1000)) })
          })
          bar.stop()
          await target.done()
          const seconds = (Date.now() - started) / 1000
          process.stderr.write(
            `backed up ${summary.documents} documents of ${Object.keys(summary.models).length} ` +
              `models${file ? ` to ${file}` : ''} in ${seconds.toFixed(1)} s\n`
          )
          if (!summary.consistent)
            process.stderr.write(
              `warning: ${engine.kind} here cannot read one moment of the whole database (MongoDB needs a ` +
                `replica set): documents written meanwhile may be in the backup or not\n`
            )
        } catch (err) {
          await target.failed()
          throw err
        } finally {
          bar.stop()
          await engine.close()
        }
      })
    })

  program
    .command('restore <file>')
    .description('load a backup of quire backup into this deployment, which must be empty (any engine)')
    .action(async (file: string) => {
      const config = deploymentConfig('restore')
      const [{ default: cliProgress }, { openStorage }, { restoreBackup }, { backupModels }] = await Promise.all([
        import('cli-progress'),
        import('../storage/open-storage.ts'),
        import('../backup/restore-backup.ts'),
        import('../backup/backup-models.ts')
      ])
      await withDatabase(config, quiet, async () => {
        const { engine, models } = await openStorage(config, { log: quiet })
        const bar = new cliProgress.SingleBar(
          { format: 'restoring {bar} {percentage}% | {documents} documents | {rate} docs/s', stream: process.stderr },
          cliProgress.Presets.shades_classic
        )
        const started = Date.now()
        try {
          const included = backupModels(models)
          await engine.syncModels(included)
          bar.start(1, 0, { documents: 0, rate: 0 })
          const restored = await restoreBackup(engine, new Map(included.map(model => [model.name, model])), file, p => {
            bar.setTotal(p.totalBytes || 1)
            bar.update(p.bytes, {
              documents: p.documents,
              rate: Math.round(p.documents / Math.max(0.001, (Date.now() - started) / 1000))
            })
          })
          bar.stop()
          process.stderr.write(
            `restored ${restored.documents} documents of ${Object.keys(restored.models).length} models ` +
              `from ${file} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`
          )
        } finally {
          bar.stop()
          await engine.close()
        }
      })
    })
}
