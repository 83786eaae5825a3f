// Data directories for `pglite://memory`: a new directory per store, removed when the store
// closes. A directory rather than PGlite's in-memory file system, so that a replaced worker
// reopens the same data.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A new, empty directory: PGlite initializes a database in it on first open. */
export async function createScratchDir (): Promise<string> {
  return await mkdtemp(join(tmpdir(), 'quire-pglite-memory-'))
}

export async function removeScratchDir (dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true })
}
