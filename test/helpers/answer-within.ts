// Injects a request and fails loudly when no reply comes in time: tests of a database that goes
// away must see a hang as a failure, not wait for tap's file timeout.
import type { FastifyInstance, InjectOptions } from 'fastify'
import { json } from './auth-helpers.ts'

export interface Answer {
  status: number
  body: Record<string, any>
  retryAfter: unknown
}

/** The reply, or a rejection when none came within `ms`. */
export async function answerWithin(app: FastifyInstance, request: InjectOptions, ms: number): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  try {
    const res = await Promise.race([app.inject(request), hang])
    return { status: res.statusCode, body: json(res), retryAfter: res.headers['retry-after'] }
  } finally {
    clearTimeout(timer)
  }
}
