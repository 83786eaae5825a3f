// Keeps `workers` clients busy, each sending the next request as soon as the
// previous one is answered, until stopped; every request is recorded (when it
// started, how long it took, status and error code) for the scenario to judge.
import type { HttpClient, HttpRequest } from './http-client.ts'
import { jsonOf } from './http-client.ts'

export interface Sample {
  /** ms since the load started, when the request was sent. */
  at: number
  ms: number
  /** 0: no reply (see error). */
  status: number
  code?: string
  message?: string
  error?: string
  path: string
  /** The request's label, when its builder gave one (else its path). */
  label: string
}

export type LabeledRequest = HttpRequest & { label?: string }

export interface SteadyLoad {
  started: number
  samples: Sample[]
  stop: () => Promise<Sample[]>
}

/** `next(worker, i)` builds the worker's i-th request. */
export function startSteadyLoad(
  client: HttpClient,
  workers: number,
  next: (worker: number, i: number) => LabeledRequest,
  timeoutMs: number
): SteadyLoad {
  const started = performance.now()
  const samples: Sample[] = []
  let running = true
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let i = 0; running; i++) {
      const req = next(worker, i)
      const at = performance.now() - started
      const reply = await client.send(req, timeoutMs)
      const body = reply.status >= 400 ? jsonOf(reply) : undefined
      samples.push({
        at,
        ms: reply.ms,
        status: reply.status,
        code: body?.code,
        message: body?.message,
        error: reply.error,
        path: req.path,
        label: req.label ?? req.path
      })
    }
  })
  return {
    started,
    samples,
    stop: async () => {
      running = false
      await Promise.all(loops)
      return samples
    }
  }
}

/** The p-th percentile (0-100) of the values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]
}

/** Milliseconds since the load started, now. */
export function elapsed(load: SteadyLoad): number {
  return performance.now() - load.started
}
