// Fails the test run when its coverage (tap's .tap/report/coverage-summary.json) fell below the
// floor in .coverage-floor.json, and says when it rose far enough to raise the floor: the floor
// only goes up. Run by `npm test` after the whole suite (a partial run covers less).
import { readFileSync } from 'node:fs'

const KINDS = ['lines', 'branches', 'functions']
const floor = JSON.parse(readFileSync(new URL('../.coverage-floor.json', import.meta.url), 'utf8'))
const summary = JSON.parse(readFileSync(new URL('../.tap/report/coverage-summary.json', import.meta.url), 'utf8'))
const { total } = summary

// Some runs' reports could not map most files to their source: each such file counts as one line, no
// branch and no function, and the totals are then those of whichever files were mapped, which vary
// from run to run of the same code. Such a report is named and not judged.
const files = Object.entries(summary).filter(([name]) => name !== 'total')
const unmapped = files.filter(([, file]) => file.lines.total <= 1).length
const MAX_UNMAPPED_SHARE = 0.25
if (unmapped > files.length * MAX_UNMAPPED_SHARE) {
  console.log(
    `coverage: NOT JUDGED: ${unmapped} of ${files.length} files were reported as one line (their source ` +
      `maps were not applied), so the totals (${KINDS.map(kind => `${kind} ${total[kind].pct}%`).join(', ')}) ` +
      `are not the suite's`
  )
  process.exit(0)
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
