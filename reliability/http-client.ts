// A small HTTP client for the suite (node:http, keep-alive, loopback only):
// sends exactly the bytes asked for (raw bodies, any content type, any header)
// and always settles: with the reply, or with status 0 and why there was none.
import { Agent, request, type IncomingHttpHeaders } from 'node:http'
import type { Socket } from 'node:net'

export interface HttpRequest {
  method: string
  /** Path and query, already percent-encoded. */
  path: string
  headers?: Record<string, string>
  body?: string
}

export interface HttpReply {
  /** 0 when no reply came: see `error`. */
  status: number
  headers: IncomingHttpHeaders
  body: string
  ms: number
  /** "timeout", or the socket error, when status is 0. */
  error?: string
}

export interface HttpClient {
  send: (req: HttpRequest, timeoutMs?: number) => Promise<HttpReply>
  close: () => void
}

export function createHttpClient(baseUrl: string, connections: number, defaultTimeoutMs = 10_000): HttpClient {
  const { hostname, port } = new URL(baseUrl)
  if (hostname !== '127.0.0.1' && hostname !== 'localhost')
    throw new Error(`the suite talks to loopback only, not ${hostname}`)
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  // A server that answers early (413) and closes while the body is still being written resets the
  // socket after the request is done with it: that error belongs to no request, and must not crash the suite.
  const guarded = new WeakSet<object>()
  const guard = (socket: Socket): void => {
    if (!guarded.has(socket)) {
      guarded.add(socket)
      socket.on('error', () => {})
    }
  }

  function sendOnce(req: HttpRequest, timeoutMs: number): Promise<HttpReply & { reused?: boolean }> {
    const started = performance.now()
    const failed = (error: string, reused?: boolean): HttpReply & { reused?: boolean } => ({
      status: 0,
      headers: {},
      body: '',
      ms: performance.now() - started,
      error,
      reused
    })
    return new Promise(resolve => {
      let outgoing: ReturnType<typeof request>
      try {
        outgoing = request(
          { host: hostname, port, method: req.method, path: req.path, headers: req.headers, agent },
          res => {
            const chunks: Buffer[] = []
            res.on('data', (c: Buffer) => chunks.push(c))
            res.on('end', () => {
              clearTimeout(timer)
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString('utf8'),
                ms: performance.now() - started
              })
            })
            res.on('error', err => {
              clearTimeout(timer)
              resolve(failed(err.message))
            })
          }
        )
      } catch (err) {
        resolve(failed(`not sendable: ${(err as Error).message}`))
        return
      }
      outgoing.on('socket', guard)
      const timer = setTimeout(() => outgoing.destroy(new Error('timeout')), timeoutMs)
      outgoing.on('error', err => {
        clearTimeout(timer)
        resolve(failed(err.message, outgoing.reusedSocket))
      })
      outgoing.end(req.body)
    })
  }

  /**
   * A keep-alive connection that the server closed just as it was reused fails at once: such a request is sent again,
   * once.
   */
  async function send(req: HttpRequest, timeoutMs = defaultTimeoutMs): Promise<HttpReply> {
    const { reused, ...reply } = await sendOnce(req, timeoutMs)
    if (reply.status !== 0 || !reused || !/ECONNRESET|socket hang up|EPIPE/.test(reply.error ?? '')) return reply
    return await sendOnce(req, timeoutMs)
  }

  return { send, close: () => agent.destroy() }
}

/** The body as JSON, or undefined when it is not JSON. */
export function jsonOf(reply: HttpReply): any {
  try {
    return JSON.parse(reply.body)
  } catch {
    return undefined
  }
}
