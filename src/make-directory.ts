// Makes a directory and its missing parents, as `mkdirSync(path, { recursive: true })` means to,
// without Node's recursive mkdir's endless loop where a parent exists but refuses children with
// ENOENT (/proc, /sys): DATA_DIR=/proc/nope hung the start instead of saying why it cannot be.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { StartupError } from './startup-error.ts'

/** Creates `path` and its missing parents; a place where no directory can be made is a StartupError. */
export function makeDirectory(path: string): void {
  if (existsSync(path)) return
  const parent = dirname(path)
  if (parent !== path) makeDirectory(parent)
  try {
    mkdirSync(path)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return
    if (code === 'ENOENT')
      throw new StartupError(`cannot use ${path}: no directory can be made there (${dirname(path)} takes none)`)
    throw err
  }
}
