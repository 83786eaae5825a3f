// Who a fuzz request claims to be (no credential, the user's or the admin's API
// key or Basic pair, or garbage credentials of every kind), and extra headers
// with hostile values. Garbage Basic pairs use wrong passwords, so they also
// exercise the login limits.
import type { Choice } from './random-choice.ts'

export interface Identities {
  admin: { email: string; password: string; apikey: string }
  user: { email: string; password: string; apikey: string }
}

export type CallerKind = 'anonymous' | 'user' | 'admin' | 'garbage'

/** A Basic authorization header's value. */
export const basic = (email: string, password: string): string =>
  `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`

/** Header values must be printable Latin-1 (Node refuses to send anything else). */
export function headerSafe(text: string): string {
  return text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?').slice(0, 2000)
}

export function credentials(c: Choice, who: CallerKind, ids: Identities): Record<string, string> {
  switch (who) {
    case 'anonymous':
      return {}
    case 'user':
      return c.pick<Record<string, string>>([
        { apikey: ids.user.apikey },
        { 'x-api-key': ids.user.apikey },
        { authorization: basic(ids.user.email, ids.user.password) }
      ])
    case 'admin':
      return c.pick<Record<string, string>>([
        { apikey: ids.admin.apikey },
        { 'x-api-key': ids.admin.apikey },
        { authorization: basic(ids.admin.email, ids.admin.password) }
      ])
    case 'garbage':
      return c.pick<Record<string, string>>([
        {
          authorization: basic(c.pick([ids.admin.email, ids.user.email, 'nobody@example.com']), headerSafe(c.string()))
        },
        { authorization: `Basic ${headerSafe(c.string())}` },
        { authorization: `Basic ${Buffer.from(headerSafe(c.string())).toString('base64')}` },
        { authorization: `Bearer ${headerSafe(c.string())}` },
        { authorization: c.pick(['Bearer', 'Basic', 'Digest x', 'bearer qat_short', headerSafe(c.string())]) },
        { apikey: headerSafe(c.string()) || 'x' },
        { 'x-api-key': 'qak_short' },
        { apikey: ids.user.apikey, authorization: basic(ids.admin.email, ids.admin.password) }
      ])
  }
}

/** Sometimes an odd header or two: unusual accept, forwarded-for, cookies, long values. */
export function extraHeaders(c: Choice): Record<string, string> {
  if (!c.chance(0.15)) return {}
  const name = c.pick([
    'accept',
    'accept-encoding',
    'x-forwarded-for',
    'x-real-ip',
    'cookie',
    'if-none-match',
    'origin',
    'referer',
    'x-request-id',
    'accept-version',
    'forwarded'
  ])
  return { [name]: headerSafe(c.chance(0.05) ? 'x'.repeat(2000) : c.string()) }
}
