// A freshly initialized PGlite data directory, saved as a tarball by the build: a new data
// directory (or an in-memory database) loads it instead of running initdb, which takes about
// 3 s of the first start. Named after the PGlite version, so an upgrade never loads a stale one.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { PACKAGE_ROOT } from '../package-root.ts'

/** The installed PGlite's version (its package.json sits one level above its entry file). */
function pgliteVersion (): string {
  const entry = import.meta.resolve('@electric-sql/pglite')
  return (JSON.parse(readFileSync(new URL('../package.json', entry), 'utf8')) as { version: string }).version
}

/** Where the build writes the template: in dist/, whether this code runs from src/ or from dist/. */
export function templatePath (): string {
  return fileURLToPath(new URL(`dist/pglite-template-${pgliteVersion()}.tar.gz`, PACKAGE_ROOT))
}

/** The template as PGlite's `loadDataDir` takes it, or undefined when none was built for this PGlite. */
export function readTemplate (): Blob | undefined {
  const path = templatePath()
  return existsSync(path) ? new Blob([readFileSync(path)]) : undefined
}

/** Runs initdb once (in memory) and writes its data directory as the template. */
export async function writeTemplate (): Promise<string> {
  const { PGlite } = await import('@electric-sql/pglite')
  const db = await PGlite.create()
  const tarball = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer())
  await db.close()
  const path = templatePath()
  writeFileSync(`${path}.partial`, tarball)
  renameSync(`${path}.partial`, path)
  return path
}
