// Helpers of the change-feed tests: a test app listening on a port (streams need a real
// connection), and JSON requests through inject that must succeed.
import type { FastifyInstance, HTTPMethods } from 'fastify'
import type { AddressInfo } from 'node:net'

/** Starts `app` on a free loopback port; its base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

/** A request with a JSON body (or none) as `authorization`; throws unless it succeeds; the parsed reply. */
export async function send(
  app: FastifyInstance,
  authorization: string | undefined,
  method: HTTPMethods,
  url: string,
  payload?: unknown
): Promise<Record<string, any>> {
  const res = await app.inject({
    method,
    url,
    headers: authorization ? { authorization } : {},
    ...(payload !== undefined && { payload: payload as object })
  })
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
  return JSON.parse(res.body) as Record<string, any>
}

/** Settings of the feed tests: no load shedding (a loaded test machine would shed a stream's request with 503). */
export const FEED_SETTINGS = { maxEventLoopDelayMs: 0 }
