// Random credentials and how they are kept at rest: tokens and API keys are
// stored as SHA-256 digests; the API key is also sealed with AES-256-GCM under a
// key derived from QUIRE_SECRET so that login can hand it back.
import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes } from 'node:crypto'

/** Prefixes tell the credential kinds apart (and make leaked ones easy to grep for). */
export const PREFIX = { access: 'qat_', refresh: 'qrt_', apikey: 'qak_' } as const

export type CredentialKind = keyof typeof PREFIX

/** A new random credential of `kind`: its prefix and 256 random bits, base64url. */
export function newCredential(kind: CredentialKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url')
}

/**
 * The digest a credential is stored and looked up under (one-shot: a third of createHash's cost, on every authenticated
 * request).
 */
export function digestOf(credential: string): string {
  return hash('sha256', credential, 'hex')
}

/** A 256-bit key for one purpose, derived from the service secret. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`quire:${purpose}`).digest()
}

/** AES-256-GCM: iv, tag and ciphertext, base64url, joined by dots. */
export function seal(key: Buffer, text: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
  return [iv, cipher.getAuthTag(), data].map(b => b.toString('base64url')).join('.')
}

/** The text `seal` sealed, or undefined when it was sealed under another key or is damaged. */
export function unseal(key: Buffer, sealed: string): string | undefined {
  const [iv, tag, data] = sealed.split('.').map(part => Buffer.from(part, 'base64url'))
  if (!iv || !tag || !data || iv.length !== 12 || tag.length !== 16) return undefined
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv)
    decipher.setAuthTag(tag)
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8')
  } catch {
    return undefined
  }
}
