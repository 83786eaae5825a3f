// The error catalogue (src/errors.ts) and its documentation (docs/errors.md) list the same codes
// with the same statuses: a code missing from the docs, a documented code that no longer exists
// or a status that differs fails here.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { ERRORS } from '../src/errors.ts'

const doc = readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8')
/** `| \`CODE\` | 400 | ...` rows; "400 to 499" reads as its first status. */
const documented = new Map(
  [...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3})\b/gm)].map(([, code, status]) => [code, Number(status)])
)

t.test('every code of the catalogue is documented, with its status', async t => {
  for (const [code, { status }] of Object.entries(ERRORS)) t.equal(documented.get(code), status, code)
})

t.test('every documented code exists', async t => {
  t.strictSame(
    [...documented.keys()].filter(code => !(code in ERRORS)),
    [],
    'codes in docs/errors.md and not in src/errors.ts'
  )
})

t.test('client mistakes are 4xx, server-side conditions 5xx', async t => {
  t.equal(ERRORS.QUERY_TIMEOUT.status, 504, 'a statement cut at STATEMENT_TIMEOUT_MS is the server bound')
  for (const code of ['UNAVAILABLE', 'OVERLOADED', 'TOO_MANY_STREAMS'] as const) t.equal(ERRORS[code].status, 503, code)
})
