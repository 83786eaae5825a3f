// Fails the test run when its coverage (tap's .tap/report/coverage-summary.json) is not valid or fell
// below the floor in .coverage-floor.json, and says when it rose far enough to raise the floor: the floor
// only goes up. Run by `npm test` after the whole suite (a partial run covers less).
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync } from 'node:fs'

const KINDS = ['lines', 'branches', 'functions']
const floor = JSON.parse(readFileSync(new URL('../.coverage-floor.json', import.meta.url), 'utf8'))
const summary = JSON.parse(readFileSync(new URL('../.tap/report/coverage-summary.json', import.meta.url), 'utf8'))
const { total } = summary

// tap merges every process's V8 ranges for a file, and those ranges are offsets into the code the
// process ran, so each source file must have been transpiled to the same code everywhere. A test
// whose child loads src/ through another loader (tsx beside tap's ts-node) breaks that: the merged
// report then maps garbage, most files counted as one line, totals varying from run to run. Such a
// run fails here, naming the processes, instead of being judged.
const mixed = filesTranspiledDifferently(new URL('../.tap/', import.meta.url))
if (mixed.length > 0) {
  console.log(`coverage: NOT VALID: ${mixed.length} source file(s) ran as different transpiled code in different`)
  console.log('processes (spawn children through test/helpers/source-loader.ts), for example:')
  for (const { file, commands } of mixed.slice(0, 5)) console.log(`  ${file}: ${commands.join(' | ')}`)
  process.exit(1)
}

let failed = false
for (const kind of KINDS) {
  const pct = total[kind].pct
  if (pct < floor[kind]) {
    failed = true
    console.log(`coverage: ${kind} ${pct}% is below the floor of ${floor[kind]}% (.coverage-floor.json)`)
  } else if (pct >= floor[kind] + 1) {
    console.log(`coverage: ${kind} ${pct}%, above the floor of ${floor[kind]}%: raise it in .coverage-floor.json`)
  } else {
    console.log(`coverage: ${kind} ${pct}% (floor ${floor[kind]}%)`)
  }
}
process.exit(failed ? 1 : 0)

/** Source files whose source maps differ between the processes that ran them, with one command per variant. */
function filesTranspiledDifferently(tapDir) {
  const variants = new Map()
  for (const name of readdirSync(new URL('coverage/', tapDir))) {
    const raw = JSON.parse(readFileSync(new URL(`coverage/${name}`, tapDir), 'utf8'))
    for (const [url, map] of Object.entries(raw['source-map-cache'] ?? {})) {
      if (url.includes('/node_modules/')) continue
      const digest = createHash('sha1').update(JSON.stringify(map.data)).digest('hex')
      const byDigest = variants.get(url) ?? new Map()
      byDigest.set(digest, name)
      variants.set(url, byDigest)
    }
  }
  return [...variants]
    .filter(([, byDigest]) => byDigest.size > 1)
    .map(([url, byDigest]) => ({
      file: url.replace(/^.*?\/(src|test)\//, '$1/'),
      commands: [...byDigest.values()].map(commandOf)
    }))

  function commandOf(coverageFile) {
    const info = JSON.parse(readFileSync(new URL(`processinfo/${coverageFile}`, tapDir), 'utf8'))
    return [...info.execArgv, ...info.argv.slice(1)].join(' ').replaceAll(/file:\/\/\S*\/node_modules\//g, '')
  }
}
