// A local SMTP server (loopback, no TLS, no auth) that keeps the mails it gets:
// recovery mails of the tests and of the reliability suite end up here.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface Mail {
  to: string[]
  data: string
}

export interface SmtpSink {
  port: number
  mails: Mail[]
  close: () => Promise<void>
}

/** `keep`: how many mails to hold (older ones are dropped). */
export async function startSmtpSink(keep = Infinity): Promise<SmtpSink> {
  const mails: Mail[] = []
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, done) {
      let data = ''
      stream.on('data', (chunk: Buffer) => {
        data += chunk.toString('utf8')
      })
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map(r => r.address), data })
        if (mails.length > keep) mails.shift()
        done()
      })
    }
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.server.address() as AddressInfo).port,
    mails,
    close: () => new Promise<void>(resolve => server.close(resolve))
  }
}
