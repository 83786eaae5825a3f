// The change-feed scenario's subscribers: `count` SSE streams on GET /changes/test (the bench
// user's API key), each counting the `create` events it receives, open while a write scenario
// runs; the events they received per second are the feed's delivery rate.
import { log } from './report.ts'

export interface Subscribers {
  /** Events received by all subscribers so far. */
  readonly events: number
  close: () => Promise<void>
}

/** Reads one stream to its end, counting `event: create` lines. */
async function countEvents (body: ReadableStream<Uint8Array>, add: (n: number) => void): Promise<void> {
  const decoder = new TextDecoder()
  let rest = ''
  for await (const chunk of body) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n')
    rest = lines.pop() ?? ''
    add(lines.filter(line => line === 'event: create').length)
  }
}

export async function openSubscribers (baseUrl: string, apiKey: string, count: number): Promise<Subscribers> {
  const abort = new AbortController()
  let events = 0
  const readers: Array<Promise<void>> = []
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${baseUrl}/changes/test`, { headers: { apikey: apiKey, accept: 'text/event-stream' }, signal: abort.signal })
    if (!res.ok || !res.body) throw new Error(`subscriber ${i + 1}: GET /changes/test answered ${res.status} ${(await res.text()).slice(0, 160)}`)
    readers.push(countEvents(res.body, n => { events += n }).catch(() => {}))
  }
  log(`  ${count} change-feed subscribers open`)
  return {
    get events () { return events },
    close: async () => {
      abort.abort()
      await Promise.all(readers)
    }
  }
}
