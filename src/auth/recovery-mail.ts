// Delivers password recovery links by SMTP (nodemailer, SMTP_URL) with a text
// template (RECOVERY_EMAIL_TEMPLATE). Without an SMTP server recovery is off: a link
// written to the log let anyone who asked for one (anonymously) put a working reset
// link of any account, the admin's included, wherever the log goes.
import { readFileSync } from 'node:fs'
import nodemailer from 'nodemailer'
import { QuireError } from '../errors.ts'

export interface MailSettings {
  smtpUrl?: string
  mailFrom: string
  /** The reset page; `{jwt}` is replaced by the JWT (appended as ?jwt= when absent). */
  passwordRecoveryUrl: string
  /** A text file: an optional "Subject: ..." line, then the body; {email}, {link} and {minutes} are filled in. */
  recoveryEmailTemplate?: string
  jwtTtlSeconds: number
}

export interface RecoveryMailer {
  /**
   * Throws RECOVERY_DISABLED when no SMTP server is configured (before anything else, so that it reveals no account).
   */
  checkEnabled: () => void
  send: (to: string, jwt: string) => Promise<void>
  close: () => void
}

const DEFAULT_TEMPLATE = `Subject: Reset your password

Someone (hopefully you) asked to reset the password of {email}.
Open this link within {minutes} minutes to choose a new one:

{link}

If you did not ask for this, you can ignore this email.
`

function recoveryLink(urlTemplate: string, jwt: string): string {
  const token = encodeURIComponent(jwt)
  if (urlTemplate.includes('{jwt}')) return urlTemplate.replaceAll('{jwt}', token)
  return `${urlTemplate}${urlTemplate.includes('?') ? '&' : '?'}jwt=${token}`
}

/** Fills the template's placeholders and splits off its subject line. */
function renderRecoveryMail(
  template: string,
  values: Record<'email' | 'link' | 'minutes', string>
): { subject: string; text: string } {
  const filled = template.replace(/\{(email|link|minutes)\}/g, (_, name: 'email' | 'link' | 'minutes') => values[name])
  const subject = /^Subject:[ \t]*(.*)\r?\n(\r?\n)?/.exec(filled)
  return subject
    ? { subject: subject[1].trim(), text: filled.slice(subject[0].length) }
    : { subject: 'Reset your password', text: filled }
}

export function createRecoveryMailer(settings: MailSettings, warn: (msg: string) => void): RecoveryMailer {
  const template = settings.recoveryEmailTemplate
    ? readFileSync(settings.recoveryEmailTemplate, 'utf8')
    : DEFAULT_TEMPLATE
  const transport = settings.smtpUrl ? nodemailer.createTransport(settings.smtpUrl) : undefined
  if (!transport)
    warn(
      'SMTP_URL is not set: password recovery by email is off (POST /login/recover answers 503 ' +
        'RECOVERY_DISABLED); an admin sets a forgotten password with PUT /api/user/<id>'
    )
  const checkEnabled = (): void => {
    if (!transport) throw new QuireError('RECOVERY_DISABLED')
  }
  return {
    checkEnabled,
    send: async (to, jwt) => {
      checkEnabled()
      const link = recoveryLink(settings.passwordRecoveryUrl, jwt)
      const mail = renderRecoveryMail(template, {
        email: to,
        link,
        minutes: String(Math.round(settings.jwtTtlSeconds / 60))
      })
      await transport!.sendMail({ from: settings.mailFrom, to, ...mail })
    },
    close: () => {
      transport?.close()
    }
  }
}
