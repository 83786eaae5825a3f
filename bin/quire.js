#!/usr/bin/env node
// The `quire` command (serve, admin, import, export, secret, mcp): runs the compiled command line in dist/,
// which `npm install` / `npm ci` build (the `prepare` script) or `npm run build` rebuilds.
import module from 'node:module'

// Node 22.1 and later keep the compiled code of the modules between runs (a faster restart).
module.enableCompileCache?.()

const cli = new URL('../dist/src/cli.js', import.meta.url)
try {
  await import(cli.href)
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes(cli.pathname)) throw err
  process.stderr.write('quire: not built yet: run `npm run build` in the package directory\n')
  process.exit(1)
}
