// What the authentication step itself costs per request: the real composition
// (plugins/credential-strategies.ts: @fastify/auth over five strategies, Basic
// parsed by @fastify/basic-auth) against a bare dispatch on the same identified
// credential, with every credential remembered by the cache (the path almost every
// request takes) so that only the step is measured. Run: npx tsx bench/auth-step.ts (a quiet machine gives steadier
// figures).
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import type { Caller } from '../src/auth/caller.ts'
import type { LoginLinks } from '../src/auth/credentials/login-links.ts'
import type { PasswordChecker } from '../src/auth/password-checker.ts'
import { presentedCredential } from '../src/auth/presented-credential.ts'
import type { SessionStore } from '../src/auth/credentials/sessions.ts'
import { addAuthentication, type Authenticate } from '../plugins/credential-strategies.ts'

const CALLS = 200_000
const ROUNDS = 7
const CALLER: Caller = { userId: '0'.repeat(24), admin: false, groups: [], via: 'apikey' }
const found = async (): Promise<Caller> => CALLER
const remembered = (): Caller => CALLER

const REQUESTS: Record<string, Record<string, string>> = {
  anonymous: {},
  apikey: { apikey: `qak_${'a'.repeat(43)}` },
  bearer: { authorization: `Bearer qat_${'b'.repeat(43)}` },
  basic: { authorization: `Basic ${Buffer.from('bench@example.com:bench-password').toString('base64')}` }
}

/** The yardstick: identify the credential, then take the remembered caller. */
async function bareDispatch(request: FastifyRequest): Promise<void> {
  if (presentedCredential(request.headers, request.query)) request.caller = remembered()
}

function asPromise(step: Authenticate): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) =>
    await new Promise((resolve, reject) => {
      step(request, reply, err => (err ? reject(err) : resolve()))
    })
}

async function nsPerCall(
  step: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
  headers: Record<string, string>
): Promise<number> {
  const reply = {
    raw: { statusCode: 200 },
    code() {
      return this
    },
    header() {
      return this
    }
  } as unknown as FastifyReply
  const started = process.hrtime.bigint()
  for (let i = 0; i < CALLS; i++)
    await step({ headers, query: {}, ip: '127.0.0.1' } as unknown as FastifyRequest, reply)
  return Number(process.hrtime.bigint() - started) / CALLS
}

const app = Fastify()
const composed = asPromise(
  await addAuthentication(app, {
    passwords: { callerFor: found, remembered } as unknown as PasswordChecker,
    sessions: { callerForToken: found, callerForApiKey: found, remembered } as unknown as SessionStore,
    links: {} as LoginLinks
  })
)
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
console.log(`ns per request, median of ${ROUNDS} rounds of ${CALLS.toLocaleString('en')} calls`)
for (const [name, headers] of Object.entries(REQUESTS)) {
  const bare: number[] = []
  const step: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(await nsPerCall(bareDispatch, headers))
    step.push(await nsPerCall(composed, headers))
  }
  console.log(
    `${name.padEnd(10)} bare dispatch ${median(bare).toFixed(0).padStart(5)}   ` +
      `composed ${median(step).toFixed(0).padStart(5)}   ` +
      `added ${(median(step) - median(bare)).toFixed(0).padStart(5)}`
  )
}
