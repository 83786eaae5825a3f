// Sends a phase of fuzz requests to one server over a fixed number of
// connections and tallies what came back: statuses, 5xx replies, requests
// without a reply, writes that succeeded. Stops early when the server exits
// or stops answering, and prints progress every 10 seconds.
import { log } from '../../bench/report.ts'
import { jsonOf, type HttpReply } from '../http-client.ts'
import type { QuireServer } from '../stack.ts'
import type { FuzzRequest } from './requests.ts'

export interface PhaseStats {
  sent: number
  byStatus: Record<string, number>
  /** Examples (request and reply) of 5xx replies, of requests without a reply, of writes that succeeded. */
  serverErrors: string[]
  noReply: string[]
  acceptedWrites: string[]
  /**
   * serverErrors: 5xx except load shedding; shed: a 503 with Retry-After that says the server is
   * busy: OVERLOADED (the event loop lagged, see plugins/under-pressure.ts) or UNAVAILABLE (a
   * statement could not get its turn within STATEMENT_TIMEOUT_MS; the database is never down
   * during the fuzz).
   */
  counts: { serverErrors: number; shed: number; noReply: number; acceptedWrites: number }
  /** Per request family: how many, and their total and largest time in ms. */
  families: Record<string, { n: number; totalMs: number; maxMs: number }>
  crashed: boolean
  stoppedEarly?: string
  seconds: number
  maxMs: number
}

const REPLY_TIMEOUT_MS = 15_000
const STALLED_AFTER = 40
const KEEP = 25

const SHED_CODES = new Set(['OVERLOADED', 'UNAVAILABLE'])

/** A 503 that tells the client to come back (load shedding), as opposed to a failure. */
function isShed(reply: HttpReply): boolean {
  return reply.status === 503 && reply.headers['retry-after'] !== undefined && SHED_CODES.has(jsonOf(reply)?.code)
}

function describe(req: FuzzRequest, reply: HttpReply): string {
  const headers = Object.entries(req.headers ?? {})
    .filter(([k]) => k !== 'content-type')
    .map(([k, v]) => `${k}: ${v.slice(0, 80)}`)
    .join('; ')
  const body =
    req.body === undefined
      ? ''
      : ` body ${req.body.length > 1500 ? `${req.body.slice(0, 1500)}... (${req.body.length} chars)` : req.body}`
  const answer = reply.status
    ? `${reply.status} ${reply.body.slice(0, 300)}`
    : `no reply (${reply.error}) after ${Math.round(reply.ms)} ms`
  return `[${req.family}] ${req.method} ${req.path.slice(0, 1500)}${headers ? ` {${headers}}` : ''}${body} -> ${answer}`
}

export interface DriveOptions {
  label: string
  count: number
  connections: number
  deadlineSeconds: number
  next: () => FuzzRequest
  /** Called with every 2xx reply to a write (the valid phase learns new ids from it). */
  onAccepted?: (req: FuzzRequest, body: any) => void
}

export async function drivePhase(server: QuireServer, o: DriveOptions): Promise<PhaseStats> {
  const stats: PhaseStats = {
    sent: 0,
    byStatus: {},
    serverErrors: [],
    noReply: [],
    acceptedWrites: [],
    counts: { serverErrors: 0, shed: 0, noReply: 0, acceptedWrites: 0 },
    families: {},
    crashed: false,
    seconds: 0,
    maxMs: 0
  }
  const started = Date.now()
  let stalled = 0
  let stop: string | undefined
  let running = true
  void server.exited.then(() => {
    if (running) {
      stats.crashed = true
      stop ??= 'the server exited'
    }
  })
  const keep = (list: string[], line: string): void => {
    if (list.length < KEEP) list.push(line)
  }
  const progress = setInterval(() => {
    const rate = stats.sent / ((Date.now() - started) / 1000)
    log(
      `${o.label}: ${stats.sent}/${o.count} (${rate.toFixed(0)}/s), 5xx ${stats.counts.serverErrors}, ` +
        `shed ${stats.counts.shed}, no reply ${stats.counts.noReply}`
    )
  }, 10_000)
  const worker = async (): Promise<void> => {
    while (stats.sent < o.count && !stop) {
      if (Date.now() - started > o.deadlineSeconds * 1000) {
        stop = `deadline of ${o.deadlineSeconds} s reached`
        break
      }
      const req = o.next()
      stats.sent++
      const reply = await server.client.send(req, REPLY_TIMEOUT_MS)
      stats.maxMs = Math.max(stats.maxMs, reply.ms)
      const family = (stats.families[req.family] ??= { n: 0, totalMs: 0, maxMs: 0 })
      family.n++
      family.totalMs += reply.ms
      family.maxMs = Math.max(family.maxMs, reply.ms)
      const status = String(reply.status || 'none')
      stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1
      if (reply.status === 0) {
        stats.counts.noReply++
        keep(stats.noReply, describe(req, reply))
        if (++stalled >= STALLED_AFTER) stop ??= `${STALLED_AFTER} requests in a row got no reply`
        continue
      }
      stalled = 0
      if (isShed(reply)) stats.counts.shed++
      // 504 QUERY_TIMEOUT is the statement timeout doing its job (a hostile query cut short), not a failure.
      else if (reply.status >= 500 && reply.status !== 504) {
        stats.counts.serverErrors++
        keep(stats.serverErrors, describe(req, reply))
      }
      if (req.write && reply.status >= 200 && reply.status < 300) {
        stats.counts.acceptedWrites++
        keep(stats.acceptedWrites, describe(req, reply))
        o.onAccepted?.(req, jsonOf(reply))
      }
    }
  }
  await Promise.all(Array.from({ length: o.connections }, worker))
  clearInterval(progress)
  running = false
  stats.stoppedEarly = stop
  stats.seconds = (Date.now() - started) / 1000
  return stats
}
