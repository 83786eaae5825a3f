// Helpers of the authentication tests: log in, read JSON replies, move the
// app's clock, build an app whose log lines are captured, run an SMTP server.
import type { Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { Writable } from 'node:stream'
import { startSmtpSink, type Mail } from '../../reliability/smtp-sink.ts'
import { buildApp } from '../../app.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { QUIET_SETTINGS, databaseUrl, type EngineName } from './test-app.ts'

export interface LoginReply {
  status: string
  user_id: string
  apikey: string
  token: string
  token_expires: string
  refresh_token: string
  refresh_token_expires: string
}

export function json(res: LightMyRequestResponse): Record<string, any> {
  return JSON.parse(res.body) as Record<string, any>
}

export async function login(app: FastifyInstance, email: string, password: string): Promise<LoginReply> {
  const res = await app.inject({ method: 'POST', url: '/login', payload: { email, password } })
  if (res.statusCode !== 200) throw new Error(`login of ${email} failed: ${res.statusCode} ${res.body}`)
  return json(res) as LoginReply
}

export function bearer(token: string): { authorization: string } {
  return { authorization: `Bearer ${token}` }
}

/** Moves the app's auth clock `ms` further (cumulative). */
export function advanceClock(app: FastifyInstance, ms: number): void {
  const previous = app.credentials.clock.now
  app.credentials.clock.now = () => previous() + ms
}

/** Test settings: generous rate limits unless a test is about them. */
export const TEST_SETTINGS: Partial<Config> = { ...QUIET_SETTINGS, loginRateLimit: 1000 }

export interface LoggedApp {
  app: FastifyInstance
  logs: string[]
}

/** An app with no users yet, whose log lines (every level) are collected in `logs`. */
export async function createLoggedApp(
  t: Test,
  engine: EngineName,
  overrides: Partial<Config> = {}
): Promise<LoggedApp> {
  const logs: string[] = []
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk))
      done()
    }
  })
  const url = await databaseUrl(engine)
  const config: Config = {
    ...loadConfig({ DATABASE_URL: url }),
    modelsDir: new URL('../../models', import.meta.url).pathname,
    bcryptRounds: 4,
    ...TEST_SETTINGS,
    ...overrides,
    databaseUrl: url
  }
  const app = await buildApp({ config, logger: { level: 'trace', stream } })
  t.teardown(() => app.close())
  return { app, logs }
}

/** A local SMTP server collecting the mails it receives; stopped when `t` ends. */
export async function startSmtp(t: Test): Promise<{ port: number; mails: Mail[] }> {
  const sink = await startSmtpSink()
  t.teardown(() => sink.close())
  return sink
}

/** A mail's text with quoted-printable soft breaks and escapes undone. */
export function decodeMail(data: string): string {
  return data
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
}
