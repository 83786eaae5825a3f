// Secrets: over the whole run, no reply (body or headers) and no log line at
// trace level held a password, a bcrypt hash, a token, an API key, a login link
// or QUIRE_SECRET (see secret-scanner.ts for what is looked for, and where
// credentials are expected).
import { check, resultOf, type ScenarioResult } from '../report.ts'
import type { Suite } from '../stack.ts'

export function judgeSecrets(suite: Suite): ScenarioResult {
  const { findings, counts } = suite.scanner
  const inReplies = findings.filter(f => f.where.startsWith('reply')).length
  const inLogs = findings.length - inReplies
  return resultOf(
    'secrets',
    'all',
    Date.now(),
    [
      check('replies scanned', counts.replies > 0, counts.replies),
      check('log lines scanned', counts.logLines > 0, counts.logLines),
      check('credentials recognized in login replies', counts.credentialReplies > 0, counts.credentialReplies),
      check('secrets in replies', inReplies === 0, inReplies),
      check('secrets in logs', inLogs === 0, inLogs)
    ],
    { replies: counts.replies, logLines: counts.logLines, findings: findings.length },
    findings.map(f => `${f.what} in ${f.where}`)
  )
}
