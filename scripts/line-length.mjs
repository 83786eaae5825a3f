// Fails `npm run lint` when a tracked source line is longer than 120 columns: Biome's formatter
// keeps code within 120 but breaks no comment, string or template literal, and Biome has no
// max-line-length rule. Lists file:line of each long line and exits 1. Checks the files named
// on the command line, or else every tracked .ts/.mts/.mjs/.js/.cjs file but JXP's vendored code.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const MAX_COLUMNS = 120
const VENDORED = 'test/jxp-suite/jxp/'

const tracked = () =>
  execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.mts', '*.mjs', '*.js', '*.cjs'], { encoding: 'utf8' })
    .split('\0')
    .filter(file => file !== '' && !file.startsWith(VENDORED))

const files = process.argv.length > 2 ? process.argv.slice(2) : tracked()
const long = files.flatMap(file =>
  readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => ({ at: `${file}:${i + 1}`, columns: [...line.replace(/\r$/, '')].length }))
    .filter(({ columns }) => columns > MAX_COLUMNS)
)
for (const { at, columns } of long) console.log(`${at}: ${columns} columns (at most ${MAX_COLUMNS})`)
if (long.length > 0) {
  console.log(`${long.length} line${long.length === 1 ? '' : 's'} over ${MAX_COLUMNS} columns`)
  process.exit(1)
}
