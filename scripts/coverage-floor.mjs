// Fails the test run when its coverage (tap's .tap/report/coverage-summary.json) fell below the
// floor in .coverage-floor.json, and says when it rose far enough to raise the floor: the floor
// only goes up. Run by `npm test` after the whole suite (a partial run covers less).
import { readFileSync } from 'node:fs'

const KINDS = ['lines', 'branches', 'functions']
const floor = JSON.parse(readFileSync(new URL('../.coverage-floor.json', import.meta.url), 'utf8'))
const { total } = JSON.parse(readFileSync(new URL('../.tap/report/coverage-summary.json', import.meta.url), 'utf8'))

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
