// Asks a server GET /health every interval while a scenario runs: a probe
// without a 200 within the timeout is a miss.
import type { HttpClient } from './http-client.ts'

export interface ProbeSummary {
  probes: number
  misses: number
  maxMs: number
}

export function startHealthProbe(
  client: HttpClient,
  intervalMs = 250,
  timeoutMs = 2000
): { stop: () => Promise<ProbeSummary> } {
  const summary: ProbeSummary = { probes: 0, misses: 0, maxMs: 0 }
  let running = true
  const loop = (async () => {
    while (running) {
      const reply = await client.send({ method: 'GET', path: '/health' }, timeoutMs)
      summary.probes++
      summary.maxMs = Math.max(summary.maxMs, reply.ms)
      if (reply.status !== 200) summary.misses++
      await new Promise(resolve => setTimeout(resolve, Math.max(0, intervalMs - reply.ms)))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return summary
    }
  }
}
