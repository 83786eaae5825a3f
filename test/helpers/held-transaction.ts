// A write left uncommitted: a transaction that has run its statement and waits until the test
// lets it commit (another process's open write, a bulk import still running).
import type { SqlClient } from '../../src/storage/sql/sql-client.ts'

export interface HeldTransaction {
  /** Commits the transaction and resolves once it has. */
  commit: () => Promise<void>
}

/** Runs `statement` in a transaction on `client` and returns once it ran, the transaction still open. */
export async function holdOpen(
  client: SqlClient,
  statement: string,
  values: Array<string | number> = []
): Promise<HeldTransaction> {
  let release = (): void => {}
  const held = new Promise<void>(resolve => {
    release = resolve
  })
  let ran = (): void => {}
  const running = new Promise<void>(resolve => {
    ran = resolve
  })
  const open = client.transaction(async tx => {
    await tx.query(statement, values)
    ran()
    await held
  })
  await Promise.race([running, open])
  return {
    commit: async () => {
      release()
      await open
    }
  }
}
