// The change-feed subscribers' own process (started by bench/feed-subscribers.ts): opens
// `count` SSE streams on GET /changes/test, counts the `create` events they receive, and
// answers the parent's count questions over IPC, so that reading 100 streams never slows
// the load generator's event loop. Exits when told to or when the parent goes away.

import { get, type IncomingMessage } from 'node:http'

const CREATE_LINE = Buffer.from('\nevent: create\n')

/**
 * Counts `event: create` lines in a stream's raw bytes (no decoding: the subscribers share the
 * machine's cores with the server under test). A chunk keeps the previous one's tail, so that
 * a line split between two is still seen.
 */
function countEvents(res: IncomingMessage, add: (n: number) => void): void {
  let tail: Buffer = Buffer.alloc(0)
  res.on('data', (chunk: Buffer) => {
    const bytes = tail.length === 0 ? chunk : Buffer.concat([tail, chunk])
    let n = 0
    for (let at = bytes.indexOf(CREATE_LINE); at !== -1; at = bytes.indexOf(CREATE_LINE, at + CREATE_LINE.length)) n++
    add(n)
    tail = bytes.subarray(Math.max(0, bytes.length - CREATE_LINE.length + 1))
  })
  res.on('error', () => {})
}

/** Opens one stream (node:http: less work per chunk than fetch's web streams); rejects unless it answers 200. */
function openStream(url: string, apiKey: string, add: (n: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = get(url, { headers: { apikey: apiKey, accept: 'text/event-stream' }, agent: false }, res => {
      if (res.statusCode !== 200) {
        let body = ''
        res
          .setEncoding('utf8')
          .on('data', (text: string) => {
            body += text
          })
          .on('end', () => reject(new Error(`GET ${url} answered ${res.statusCode} ${body.slice(0, 160)}`)))
        return
      }
      countEvents(res, add)
      resolve()
    })
    req.on('error', reject)
  })
}

async function openStreams(baseUrl: string, apiKey: string, count: number, add: (n: number) => void): Promise<void> {
  for (let i = 0; i < count; i++) await openStream(`${baseUrl}/changes/test`, apiKey, add)
}

const [baseUrl, count] = [process.argv[2], Number(process.argv[3])]
let events = 0
process.on('disconnect', () => process.exit(0))
process.on('message', (msg: { type?: string }) => {
  if (msg.type === 'count') {
    const { user, system } = process.cpuUsage()
    process.send?.({ counts: { events, cpuMicros: user + system } })
  }
})
openStreams(baseUrl, process.env.BENCH_FEED_API_KEY ?? '', count, n => {
  events += n
}).then(
  () => process.send?.({ opened: count }),
  (err: Error) => process.send?.({ error: err.message })
)
