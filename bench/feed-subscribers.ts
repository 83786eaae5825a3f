// The change-feed scenario's subscribers: `count` SSE streams on GET /changes/test (the bench
// user's API key), each counting the `create` events it receives, open while a write scenario
// runs; the events they received per second are the feed's delivery rate.
import { log } from './report.ts'

export interface Subscribers {
  /** Events received by all subscribers so far. */
  readonly events: number
  close: () => Promise<void>
}

const CREATE_LINE = Buffer.from('\nevent: create\n')

/**
 * Reads one stream to its end, counting `event: create` lines in the raw bytes (no decoding: the
 * subscribers share the machine with the server under test, and what they spend is not the feed's
 * cost). A chunk keeps the previous one's tail, so that a line split between two is still seen.
 */
async function countEvents (body: ReadableStream<Uint8Array>, add: (n: number) => void): Promise<void> {
  let tail = Buffer.alloc(0)
  for await (const chunk of body) {
    const bytes = Buffer.concat([tail, chunk])
    let n = 0
    for (let at = bytes.indexOf(CREATE_LINE); at !== -1; at = bytes.indexOf(CREATE_LINE, at + CREATE_LINE.length)) n++
    add(n)
    tail = bytes.subarray(Math.max(0, bytes.length - CREATE_LINE.length + 1))
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
