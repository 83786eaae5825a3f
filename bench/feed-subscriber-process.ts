// The change-feed subscribers' own process (started by bench/feed-subscribers.ts): opens
// `count` SSE streams on GET /changes/test, counts the `create` events they receive, and
// answers the parent's count questions over IPC, so that reading 100 streams never slows
// the load generator's event loop. Exits when told to or when the parent goes away.

const CREATE_LINE = Buffer.from('\nevent: create\n')

/**
 * Reads one stream to its end, counting `event: create` lines in the raw bytes (no decoding:
 * the subscribers share the machine's cores with the server under test). A chunk keeps the
 * previous one's tail, so that a line split between two is still seen.
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

async function openStreams (baseUrl: string, apiKey: string, count: number, add: (n: number) => void): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${baseUrl}/changes/test`, { headers: { apikey: apiKey, accept: 'text/event-stream' } })
    if (!res.ok || !res.body) throw new Error(`subscriber ${i + 1}: GET /changes/test answered ${res.status} ${(await res.text()).slice(0, 160)}`)
    void countEvents(res.body, add).catch(() => {})
  }
}

const [baseUrl, count] = [process.argv[2], Number(process.argv[3])]
let events = 0
process.on('disconnect', () => process.exit(0))
process.on('message', (msg: { type?: string }) => { if (msg.type === 'count') { const { user, system } = process.cpuUsage(); process.send?.({ counts: { events, cpuMicros: user + system } }) } })
openStreams(baseUrl, process.env.BENCH_FEED_API_KEY ?? '', count, n => { events += n }).then(
  () => process.send?.({ opened: count }),
  (err: Error) => process.send?.({ error: err.message })
)
