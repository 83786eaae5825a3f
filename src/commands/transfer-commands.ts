// The `import` and `export` subcommands: move documents in and out of a model
// through the configured storage, with a progress bar on stderr. Their modules load when the
// command runs, so that `quire serve` does not wait for them. With DATABASE_URL unset they use
// the embedded server of DATA_DIR, running or not (src/embedded/attach-database.ts).
import type { Command } from 'commander'
import { deploymentConfig } from './deployment-config.ts'
import { withDatabase } from '../embedded/attach-database.ts'

const quiet = (): void => {}

export function addTransferCommands(program: Command): void {
  program
    .command('import <model> <file>')
    .description('import a JSON array, NDJSON or mongoexport file (extended JSON) into a model, keeping ids and dates')
    .option('--skip-invalid', 'skip documents that do not match the schema (listed on stderr) instead of stopping')
    .action(async (modelName: string, file: string, options: { skipInvalid?: boolean }) => {
      const config = deploymentConfig('import')
      const [{ default: cliProgress }, { openStorage }, { importDocuments }] = await Promise.all([
        import('cli-progress'),
        import('../storage/open-storage.ts'),
        import('../transfer/import-documents.ts')
      ])
      await withDatabase(config, quiet, async () => {
        const { engine, models } = await openStorage(config, { log: quiet })
        const bar = new cliProgress.SingleBar(
          {
            format: 'importing {bar} {percentage}% | {imported} documents | {rate} docs/s | {skipped} skipped',
            stream: process.stderr
          },
          cliProgress.Presets.shades_classic
        )
        const started = Date.now()
        try {
          const model = models.get(modelName)
          bar.start(1, 0, { imported: 0, rate: 0, skipped: 0 })
          const result = await importDocuments(engine, model, file, {
            skipInvalid: options.skipInvalid ?? false,
            bcryptRounds: config.bcryptRounds,
            onProgress: p => {
              bar.setTotal(p.totalBytes || 1)
              bar.update(p.bytes, {
                imported: p.imported,
                skipped: p.skipped,
                rate: Math.round(p.imported / Math.max(0.001, (Date.now() - started) / 1000))
              })
            },
            onSkip: (position, reason) => process.stderr.write(`\nskipped document ${position}: ${reason}\n`)
          })
          bar.stop()
          const seconds = (Date.now() - started) / 1000
          process.stderr.write(
            `imported ${result.imported} documents into ${modelName} in ${seconds.toFixed(1)} s ` +
              `(${Math.round(result.imported / seconds)} docs/s)` +
              `${result.skipped ? `, skipped ${result.skipped}` : ''}\n`
          )
        } finally {
          bar.stop()
          await engine.close()
        }
      })
    })

  program
    .command('export <model>')
    .description('write every document of a model (soft-deleted ones too) to stdout as NDJSON')
    .action(async (modelName: string) => {
      const [{ openStorage }, { exportDocuments }] = await Promise.all([
        import('../storage/open-storage.ts'),
        import('../transfer/export-documents.ts')
      ])
      const config = deploymentConfig('export')
      await withDatabase(config, quiet, async () => {
        const { engine, models } = await openStorage(config, { log: quiet })
        process.stdout.on('error', (err: NodeJS.ErrnoException) => {
          if (err.code === 'EPIPE') process.exit(0)
        })
        try {
          const count = await exportDocuments(engine, models.get(modelName), process.stdout, n =>
            process.stderr.write(`\rexported ${n} documents`)
          )
          process.stderr.write(`\rexported ${count} documents from ${modelName}\n`)
        } finally {
          await engine.close()
        }
      })
    })
}
