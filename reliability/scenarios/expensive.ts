// Expensive queries: regular expressions with catastrophic backtracking, $in
// and $or at their limits, deep pipelines, $lookup cross products, $group over
// the largest collection, pages past the end. Ten clients send them without
// pause; each must be answered (a result, a 4xx or a 503) within
// STATEMENT_TIMEOUT_MS plus a margin, and meanwhile other clients' reads by id
// must keep their normal latency (measured alone first): the same criteria on
// every engine.
import { log } from '../../bench/report.ts'
import type { EngineName } from '../options.ts'
import { check, resultOf, type Check, type ScenarioResult } from '../report.ts'
import { percentile, startSteadyLoad, type LabeledRequest, type Sample } from '../steady-load.ts'
import type { Suite } from '../stack.ts'

const EXPENSIVE_CLIENTS = 10
const SIMPLE_CLIENTS = 4
const MARGIN_MS = 1000
/**
 * Reads by id keep "their normal latency" when their p99 stays within this factor of the p99 alone (or 50 ms above it).
 */
const LATENCY_FACTOR = 3
const LATENCY_SLACK_MS = 50

const json = (path: string, body: unknown, label: string): LabeledRequest => ({
  method: 'POST',
  path,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
  label
})
const get = (path: string, label: string): LabeledRequest => ({ method: 'GET', path, label })

/** The expensive requests, each with a label for the report. */
function expensiveRequests(): LabeledRequest[] {
  const names = Array.from({ length: 1000 }, (_, i) => `link-${i * 7}`)
  return [
    get('/api/link?filter[name]=$regex:(a%7B1,255%7D)%7B1,255%7D', 'nested-repetition-regex'),
    get('/api/test?filter[fulltext]=$regex:(.*)(.*)(.*)(.*)%5C4%5C3%5C2%5C1$', 'back-reference-regex'),
    get('/count/test?filter[fulltext]=$regex:%5E(%5Cw%2B%5Cs?)*$', 'exponential-regex-count'),
    json('/query/link?limit=1000', { query: { name: { $in: names } } }, 'in-1000'),
    json(
      '/query/link',
      { query: { $or: Array.from({ length: 195 }, (_, i) => ({ name: { $regex: `^link-${i}.*9$` } })) } },
      'or-195-regex'
    ),
    json(
      '/aggregate/link',
      Array.from({ length: 50 }, (_, i) => ({ $addFields: { [`f${i}`]: { $multiply: ['$val', i + 1] } } })),
      'pipeline-50-stages'
    ),
    json(
      '/aggregate/link',
      [
        {
          $lookup: {
            from: 'link',
            let: { v: '$val' },
            pipeline: [{ $match: { $expr: { $gt: ['$val', '$$v'] } } }, { $count: 'n' }],
            as: 'greater'
          }
        }
      ],
      'lookup-cross-product'
    ),
    json(
      '/aggregate/test',
      [
        { $lookup: { from: 'link', localField: '_deleted', foreignField: '_deleted', as: 'all' } },
        { $unwind: '$all' },
        { $lookup: { from: 'link', localField: 'all._deleted', foreignField: '_deleted', as: 'again' } },
        { $count: 'n' }
      ],
      'nested-lookup'
    ),
    json(
      '/aggregate/link',
      [{ $group: { _id: '$name', n: { $sum: 1 }, vals: { $push: '$val' } } }, { $sort: { n: -1 } }],
      'group-largest'
    ),
    get('/api/link?page=99999999&limit=1000&sort=-val', 'page-past-end'),
    get(
      '/api/test?search=lorem%20ipsum%20dolor%20sit%20amet%20or%20consectetur%20or%20elit%20-tempor&limit=1000',
      'fulltext-many-terms'
    )
  ]
}

function simpleRead(testIds: string[]): (worker: number, i: number) => LabeledRequest {
  return (worker, i) => get(`/api/test/${testIds[(worker * 7919 + i * 31) % testIds.length]}`, 'read-by-id')
}

export async function runExpensive(suite: Suite, engine: EngineName): Promise<ScenarioResult> {
  const started = Date.now()
  const server = await suite.startQuire(`expensive-${engine}`, await suite.seededStore(engine))
  const { testIds } = await suite.seeded()
  const timeoutMs = suite.options.statementTimeoutMs
  const seconds = suite.options.quick ? 6 : 20
  const simpleFor = async (ms: number): Promise<Sample[]> => {
    const load = startSteadyLoad(suite.clientFor(server, SIMPLE_CLIENTS), SIMPLE_CLIENTS, simpleRead(testIds), 30_000)
    await new Promise(resolve => setTimeout(resolve, ms))
    return await load.stop()
  }
  await simpleFor(1000)
  const alone = await simpleFor((suite.options.quick ? 3 : 8) * 1000)
  const requests = expensiveRequests()
  log(
    `expensive ${engine}: ${EXPENSIVE_CLIENTS} clients sending ${requests.length} kinds of expensive ` +
      `request for ${seconds} s`
  )
  const expensive = startSteadyLoad(
    suite.clientFor(server, EXPENSIVE_CLIENTS),
    EXPENSIVE_CLIENTS,
    (w, i) => requests[(w + i) % requests.length],
    60_000
  )
  const during = await simpleFor(seconds * 1000)
  const hard = await expensive.stop()
  const after = await simpleFor(2000)
  await server.stop()
  return judge(engine, started, timeoutMs, { alone, during, after, hard })
}

interface Measured {
  alone: Sample[]
  during: Sample[]
  after: Sample[]
  hard: Sample[]
}

const ms = (samples: Sample[], q: number): number =>
  Math.round(
    percentile(
      samples.map(s => s.ms),
      q
    )
  )

/** Several connections: reads by id keep their normal latency, during the expensive load and after it. */
function readChecks(m: Measured, normal: number, allowed: number): Check[] {
  return [
    check(
      'reads by id p99',
      ms(m.during, 99) <= allowed,
      `${ms(m.during, 99)} ms (alone ${normal} ms, allowed ${allowed} ms)`
    ),
    check('reads by id after', ms(m.after, 99) <= allowed, `p99 ${ms(m.after, 99)} ms`)
  ]
}

function judge(engine: EngineName, started: number, timeoutMs: number, m: Measured): ScenarioResult {
  const limitMs = timeoutMs + MARGIN_MS
  const normal = ms(m.alone, 99)
  const allowed = Math.max(normal * LATENCY_FACTOR, normal + LATENCY_SLACK_MS)
  const late = m.hard.filter(s => s.ms > limitMs || s.status === 0)
  // 503: no turn within the limit; 504 QUERY_TIMEOUT: cut at the limit. Both are the bound working.
  const serverErrors = m.hard.filter(s => s.status >= 500 && s.status !== 503 && s.status !== 504)
  const simpleFailed = [...m.during, ...m.after].filter(s => s.status !== 200)
  const byLabel = new Map<string, Sample[]>()
  for (const s of m.hard) byLabel.set(s.label, [...(byLabel.get(s.label) ?? []), s])
  const outcomeOf = (s: Sample): string => (s.status ? `${s.status}${s.code ? ` ${s.code}` : ''}` : 'no reply')
  const perKind = [...byLabel].map(
    ([label, samples]) =>
      `${label}: ${samples.length}x, max ${Math.round(Math.max(...samples.map(s => s.ms)))} ` +
      `ms, ${[...new Set(samples.map(outcomeOf))].join('/')}`
  )
  const checks = [
    check('expensive requests', m.hard.length > 0, m.hard.length),
    check(
      `answered within ${limitMs} ms`,
      late.length === 0,
      `${m.hard.length - late.length}/${m.hard.length} (max ${Math.round(Math.max(0, ...m.hard.map(s => s.ms)))} ms)`
    ),
    check('5xx other than 503', serverErrors.length === 0, serverErrors.length),
    ...readChecks(m, normal, allowed),
    check('reads by id failed', simpleFailed.length === 0, simpleFailed.length)
  ]
  const figures = {
    expensiveRequests: m.hard.length,
    expensiveMaxMs: Math.round(Math.max(0, ...m.hard.map(s => s.ms))),
    readsAlone: m.alone.length,
    readsAloneP50Ms: ms(m.alone, 50),
    readsAloneP99Ms: normal,
    readsDuring: m.during.length,
    readsDuringP50Ms: ms(m.during, 50),
    readsDuringP99Ms: ms(m.during, 99),
    perKind: perKind.join('; ')
  }
  const failures = [
    ...late
      .slice(0, 10)
      .map(
        s =>
          `${s.label} answered ${s.status || `nothing (${s.error})`} after ${Math.round(s.ms)} ms (limit ${limitMs} ms)`
      ),
    ...serverErrors.slice(0, 5).map(s => `${s.label}: ${s.status} ${s.code ?? ''} ${s.message ?? ''}`),
    ...simpleFailed
      .slice(0, 5)
      .map(s => `read by id during the expensive load: ${s.status || s.error} ${s.code ?? ''} ${s.message ?? ''}`)
  ]
  return resultOf('expensive', engine, started, checks, figures, failures)
}
