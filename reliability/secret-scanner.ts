// Watches everything the servers under test say (response bodies and headers,
// every log line at trace level) for secrets: the passwords, tokens, API keys,
// login links and QUIRE_SECRET the suite knows, their stored digests, and
// anything shaped like a bcrypt hash or a Quire credential.
import { digestOf } from '../src/auth/secrets.ts'
import type { HttpReply, HttpRequest } from './http-client.ts'

const PATTERNS: Array<[string, RegExp]> = [
  ['bcrypt hash', /\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}/],
  ['credential', /\bq(?:at|rt|ak)_[A-Za-z0-9_-]{43}/],
  ['login link (JWT)', /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}/]
]

/**
 * Endpoints whose replies carry credentials by design (the credential shape and the suite's own tokens are allowed
 * there).
 */
const CREDENTIAL_ENDPOINTS = /^\/(login|refresh|login\/jwt|login\/getjwt)(\?|$)/

export interface Finding {
  where: string
  what: string
}

/** The shape of the passwords the fuzz stores (reliability/fuzz/documents.ts): found by shape, then looked up. */
const STORED_PASSWORD = /pw-[a-z0-9-]{9,}/g

export interface SecretScanner {
  /** A secret to look for; `label` names it in findings (never the value). */
  add: (label: string, value: string, opts?: { credential?: boolean }) => void
  /** A password the fuzz stored ("pw-..."): thousands of them, so they are looked up, not searched for one by one. */
  addStoredPassword: (value: string) => void
  scanReply: (req: HttpRequest, reply: HttpReply) => void
  /** Feeds a chunk of a server's output; lines are scanned as they complete. */
  logSink: (server: string) => (chunk: string) => void
  findings: Finding[]
  /**
   * Replies and log lines read; login replies in which the credential patterns matched (where they are allowed: proof
   * that they match).
   */
  counts: { replies: number; logLines: number; credentialReplies: number }
}

export function createSecretScanner(): SecretScanner {
  const secrets: Array<{ label: string; value: string; credential: boolean }> = []
  const findings: Finding[] = []
  const counts = { replies: 0, logLines: 0, credentialReplies: 0 }
  const seen = new Set<string>()
  const storedPasswords = new Set<string>()

  function note(where: string, what: string): void {
    const key = `${where}|${what}`
    if (seen.has(key) || findings.length >= 200) return
    seen.add(key)
    findings.push({ where, what })
  }

  function scanText(text: string, where: string, credentialsAllowed: boolean): void {
    for (const [what, pattern] of PATTERNS)
      if ((what === 'bcrypt hash' || !credentialsAllowed) && pattern.test(text)) note(where, what)
    for (const s of secrets) if ((!s.credential || !credentialsAllowed) && text.includes(s.value)) note(where, s.label)
    if (text.includes('pw-'))
      for (const [candidate] of text.matchAll(STORED_PASSWORD))
        if (storedPasswords.has(candidate)) note(where, 'a password stored by the fuzz')
  }

  return {
    findings,
    counts,
    add: (label, value, opts = {}) => {
      if (value.length < 6 || secrets.some(s => s.value === value)) return
      secrets.push({ label, value, credential: opts.credential ?? false })
      if (opts.credential) secrets.push({ label: `digest of ${label}`, value: digestOf(value), credential: false })
    },
    addStoredPassword: value => {
      storedPasswords.add(value)
    },
    scanReply: (req, reply) => {
      counts.replies++
      const where = `reply to ${req.method} ${req.path.slice(0, 80)}`
      const allowed = CREDENTIAL_ENDPOINTS.test(req.path) && reply.status === 200
      if (allowed && PATTERNS.some(([what, pattern]) => what === 'credential' && pattern.test(reply.body)))
        counts.credentialReplies++
      scanText(reply.body, where, allowed)
      scanText(JSON.stringify(reply.headers), `${where} (headers)`, false)
    },
    logSink: server => {
      let partial = ''
      return chunk => {
        const lines = (partial + chunk).split('\n')
        partial = lines.pop() ?? ''
        for (const line of lines) {
          counts.logLines++
          scanText(line, `log of ${server}: ${line.slice(0, 120)}`, false)
        }
      }
    }
  }
}
