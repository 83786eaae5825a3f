// A freshly initialized PGlite data directory, saved as a tarball by the build: a new data
// directory (or an in-memory database) loads it instead of running initdb, which takes about
// 3 s of the first start. Named after the PGlite version, so an upgrade never loads a stale one.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The installed PGlite's version (its package.json sits one level above its entry file). */
function pgliteVersion (): string {
  const entry = import.meta.resolve('@electric-sql/pglite')
  return (JSON.parse(readFileSync(new URL('../package.json', entry), 'utf8')) as { version: string }).version
}

/** Where the build writes the template: dist/, seen from this file in dist/src/engines or in src/engines. */
export function templatePath (): string {
  const distDir = import.meta.url.endsWith('.ts') ? '../../dist/' : '../../'
  return fileURLToPath(new URL(`${distDir}pglite-template-${pgliteVersion()}.tar.gz`, import.meta.url))
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
