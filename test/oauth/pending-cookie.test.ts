// The pending sign-in's cookie: sealed (nothing readable in it), `__Host-` prefixed over https
// (Secure, Path=/: a sibling subdomain cannot plant one), read back only for its provider,
// under its key and before it expires.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import {
  clearedPendingCookie,
  newPendingSignIn,
  pendingCookie,
  readPendingSignIn
} from '../../src/oauth/pending-sign-in.ts'

const key = randomBytes(32)
const now = Date.now()
const pending = newPendingSignIn('google', now)
const header = (setCookie: string): string => setCookie.split(';')[0]

t.test('over https: a __Host- cookie', async t => {
  const cookie = pendingCookie(key, pending, true)
  t.match(cookie, /^__Host-quire_oauth=[\w.-]+; Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=600$/)
  for (const secret of [pending.state, pending.verifier, pending.nonce]) t.notOk(cookie.includes(secret), 'sealed')
  t.same(readPendingSignIn(key, `other=1; ${header(cookie)}`, 'google', now, true), pending)
  t.equal(
    readPendingSignIn(key, header(cookie).replace('__Host-', ''), 'google', now, true),
    undefined,
    'not without its prefix'
  )
  t.equal(clearedPendingCookie(true), '__Host-quire_oauth=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0')
})

t.test('read back only for its provider, under its key, in time', async t => {
  const cookie = header(pendingCookie(key, pending, false))
  t.same(readPendingSignIn(key, cookie, 'google', now, false), pending)
  t.equal(readPendingSignIn(key, cookie, 'work', now, false), undefined, 'another provider')
  t.equal(readPendingSignIn(randomBytes(32), cookie, 'google', now, false), undefined, 'another key')
  t.equal(readPendingSignIn(key, cookie, 'google', now + 10 * 60_000, false), undefined, 'after 10 minutes')
  t.equal(readPendingSignIn(key, undefined, 'google', now, false), undefined, 'no cookie')
})
