// A Server-Sent Events client for the change-feed tests: a real HTTP connection to a
// listening server, parsed with eventsource-parser; it waits for events, can stop
// reading (a slow client) and can disconnect.
import { request, type IncomingMessage } from 'node:http'
import { createParser } from 'eventsource-parser'

export interface SseEvent {
  id?: string
  event?: string
  data: string
  json: Record<string, any>
}

export interface SseStream {
  status: number
  /** Every event received so far. */
  events: SseEvent[]
  /** The body of a response that is not a stream (an error). */
  body: () => Promise<string>
  /** Resolves with the events once `count` have arrived (rejects after `timeoutMs`). */
  waitFor: (count: number, timeoutMs?: number) => Promise<SseEvent[]>
  /** Resolves once the server ended the response. */
  ended: () => Promise<void>
  /** Stops reading (the server's writes then back up) or reads again. */
  pause: () => void
  resume: () => void
  close: () => void
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, resolve)
    req.on('error', reject)
    req.end()
  })
  const events: SseEvent[] = []
  const waiters = new Set<() => void>()
  const parser = createParser({
    onEvent: message => {
      events.push({ ...message, json: message.data === '' ? {} : JSON.parse(message.data) })
      for (const wake of waiters) wake()
    }
  })
  let text = ''
  response.setEncoding('utf8')
  response.on('data', (chunk: string) => {
    text += chunk
    parser.feed(chunk)
  })
  const end = new Promise<void>(resolve => {
    response.on('close', resolve)
  })
  end.then(
    () => {
      for (const wake of waiters) wake()
    },
    () => {}
  )
  let ended = false
  void end.then(() => {
    ended = true
  })

  return {
    status: response.statusCode ?? 0,
    events,
    body: async () => {
      await end
      return text
    },
    waitFor: (count, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (events.length >= count) {
            cleanup()
            resolve(events.slice(0, count))
          } else if (ended) {
            cleanup()
            reject(new Error(`the stream ended after ${events.length} of ${count} events: ${text.slice(-500)}`))
          }
        }
        const seen = (): string =>
          JSON.stringify(
            events.map(e => (e.event === 'close' || e.event === 'reset' ? `${e.event} ${e.data}` : e.event))
          )
        const timer = setTimeout(() => {
          cleanup()
          reject(new Error(`${events.length} of ${count} events within ${timeoutMs} ms: ${seen()}`))
        }, timeoutMs)
        const cleanup = (): void => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        waiters.add(check)
        check()
      }),
    ended: () => end,
    pause: () => {
      response.pause()
    },
    resume: () => {
      response.resume()
    },
    close: () => {
      response.destroy()
    }
  }
}
