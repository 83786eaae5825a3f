// Where the package is installed: the repository (or the installed package) whether this code
// runs as TypeScript from src/ or compiled from dist/src/.
import { readFileSync } from 'node:fs'

/** The package's root directory (with a trailing slash), as a file URL. */
export const PACKAGE_ROOT = new URL(import.meta.url.endsWith('.ts') ? '../' : '../../', import.meta.url)

/** The version in the package's package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('package.json', PACKAGE_ROOT), 'utf8')) as { version: string }).version
}
