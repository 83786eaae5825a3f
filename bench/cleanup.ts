// Stops everything the benchmark started (servers, the PostgreSQL cluster, temp
// directories) exactly once: at the end, on an error, or on Ctrl-C.

const steps: Array<() => unknown> = []
let running: Promise<void> | undefined

/** Registers a clean-up step; steps run in reverse order of registration. */
export function onCleanup(step: () => unknown): void {
  steps.push(step)
}

export function runCleanup(): Promise<void> {
  running ??= (async () => {
    for (const step of steps.reverse()) {
      try {
        await step()
      } catch (err) {
        process.stderr.write(`cleanup: ${(err as Error).message}\n`)
      }
    }
  })()
  return running
}

/** On SIGINT or SIGTERM: clean up, then exit with 130. */
export function cleanupOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: stopping servers and the database cluster...\n`)
      runCleanup().finally(() => process.exit(130))
    })
  }
}
