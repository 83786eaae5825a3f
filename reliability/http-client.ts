// A small HTTP client for the suite (node:http, keep-alive, loopback only):
// sends exactly the bytes asked for (raw bodies, any content type, any header)
// and always settles: with the reply, or with status 0 and why there was none. When the reply
// cannot be parsed, the reason names the bytes that came and the exchange before it on that
// connection, since stray bytes on a kept-alive connection are the previous answer's.
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

/** `localAddress`: the loopback address to connect from (Linux accepts any 127.x.y.z), to be another client. */
export function createHttpClient(
  baseUrl: string,
  connections: number,
  defaultTimeoutMs = 10_000,
  localAddress?: string
): HttpClient {
  const { hostname, port } = new URL(baseUrl)
  if (hostname !== '127.0.0.1' && hostname !== 'localhost')
    throw new Error(`the suite talks to loopback only, not ${hostname}`)
  const agent = new Agent({ keepAlive: true, maxSockets: connections, localAddress })
  // A server that answers early (413) and closes while the body is still being written resets the
  // socket after the request is done with it: that error belongs to no request, and must not crash the suite.
  const guarded = new WeakSet<object>()
  const guard = (socket: Socket): void => {
    if (!guarded.has(socket)) {
      guarded.add(socket)
      socket.on('error', () => {})
    }
  }
  /** The last exchange on each connection, as `METHOD path -> status (n bytes)`. */
  const lastExchange = new WeakMap<Socket, string>()

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
      let socket: Socket | undefined
      try {
        outgoing = request(
          { host: hostname, port, method: req.method, path: req.path, headers: framed(req), agent },
          res => {
            const chunks: Buffer[] = []
            res.on('data', (c: Buffer) => chunks.push(c))
            res.on('end', () => {
              clearTimeout(timer)
              const length = chunks.reduce((sum, c) => sum + c.length, 0)
              if (socket)
                lastExchange.set(
                  socket,
                  `${req.method} ${req.path.slice(0, 80)} -> ${res.statusCode} (${length} bytes)`
                )
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
      outgoing.on('socket', s => {
        socket = s
        guard(s)
      })
      const timer = setTimeout(() => outgoing.destroy(new Error('timeout')), timeoutMs)
      outgoing.on('error', err => {
        clearTimeout(timer)
        resolve(failed(describeError(err, socket), outgoing.reusedSocket))
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

  /** A parse error, with the bytes that could not be parsed and what the connection carried before them. */
  function describeError(
    err: Error & { rawPacket?: Buffer; bytesParsed?: number },
    socket: Socket | undefined
  ): string {
    if (err.rawPacket === undefined) return err.message
    const before = socket ? (lastExchange.get(socket) ?? 'nothing (a new connection)') : 'unknown'
    const bytes = JSON.stringify(err.rawPacket.subarray(0, 160).toString('latin1'))
    const where = `at byte ${err.bytesParsed} of ${err.rawPacket.length}`
    return `${err.message} ${where}: ${bytes}; before it on this connection: ${before}`
  }

  return { send, close: () => agent.destroy() }
}

/**
 * The request's headers, with a Content-Length for its body unless they frame it already: node:http
 * sends a GET, HEAD, DELETE or OPTIONS body without one, and the server then reads that body as the
 * start of the connection's next request (a 400 for bytes that are no request, written after the
 * answer: the connection's next request took it for its own).
 */
function framed({ headers = {}, body }: HttpRequest): Record<string, string> {
  if (body === undefined) return headers
  const names = Object.keys(headers).map(name => name.toLowerCase())
  if (names.includes('content-length') || names.includes('transfer-encoding')) return headers
  return { ...headers, 'content-length': String(Buffer.byteLength(body)) }
}

/** The body as JSON, or undefined when it is not JSON. */
export function jsonOf(reply: HttpReply): any {
  try {
    return JSON.parse(reply.body)
  } catch {
    return undefined
  }
}
