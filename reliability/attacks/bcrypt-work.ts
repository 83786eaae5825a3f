// bcrypt work: the plain user creates documents with a password field (a hash each, at the
// server's BCRYPT_ROUNDS) on 4 connections, and reads with Basic headers whose email is a
// letter-case variant of its own (each right, so never a failure) on 4 more. Before the per-client
// hashing line and the case-folded Basic cache, both ran unbounded and made other users' logins 3
// to 20 times slower.
import { createHttpClient, type HttpRequest } from '../http-client.ts'
import { type Attack, count, lanes } from './raw-socket.ts'

const CONNECTIONS = 4

/** `email` with the letters at the set bits of `n` upper-cased. */
function caseVariant(email: string, n: number): string {
  return [...email].map((c, i) => ((n >> (i % 30)) & 1 ? c.toUpperCase() : c)).join('')
}

export const bcryptWork: Attack = async run => {
  const { url, token, email, password, documentId } = run.spec
  const client = createHttpClient(url, CONNECTIONS * 2, 30_000)
  let sent = 0
  const create = (): HttpRequest => ({
    method: 'POST',
    path: '/api/test',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ foo: 'bcrypt-work', password: `password ${sent++}` })
  })
  const basicRead = (): HttpRequest => ({
    method: 'GET',
    path: `/api/test/${documentId}`,
    headers: {
      authorization: `Basic ${Buffer.from(`${caseVariant(email, sent++)}:${password}`).toString('base64')}`
    }
  })
  await lanes(run, CONNECTIONS * 2, async lane => {
    const creating = lane < CONNECTIONS
    const reply = await client.send(creating ? create() : basicRead())
    count(run.counts, `${creating ? 'create' : 'basic read'} ${reply.status || reply.error}`)
  })
  client.close()
}
