// Links: POST /login/recover (emails a recovery link, good only for a reset),
// POST /login/getjwt (an admin mints a login link for a user; it never resets a
// password) and POST /login/reset (sets a new password with a recovery link's
// JWT; the link dies with the old password).
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { EmailBody, JwtResponse, ResetBody } from '../schemas/auth.ts'
import { OkMessage } from '../schemas/common.ts'
import type { Doc } from '../src/storage/engine.ts'
import { refuseLoginLinks } from '../src/auth/caller.ts'
import { findUserByEmail } from '../src/auth/password-checker.ts'
import { requireAdmin } from '../src/permissions/access.ts'
import { resetPassword } from '../src/auth/users/user-records.ts'
import { QuireError } from '../src/errors.ts'

export default async function passwordRecoveryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const auth = app.credentials

  async function userWithEmail(email: string): Promise<Doc> {
    const user = await findUserByEmail(app.system, email)
    if (!user) throw new QuireError('FORBIDDEN', 'Unauthorized', undefined, 'Could not find email')
    return user
  }

  app.post(
    '/login/recover',
    {
      config: { rateLimit: app.endpointLimit('recover') },
      schema: { summary: 'Email a password reset link', body: EmailBody, response: { 200: OkMessage } }
    },
    async request => {
      const user = await userWithEmail(request.body.email)
      await auth.throttle.recoveryMail(user.email as string)
      try {
        await auth.mailer.send(user.email as string, auth.links.mint(user, 'reset'))
      } catch (err) {
        request.log.error({ err }, 'sending the recovery email failed')
        throw new QuireError('UNAVAILABLE', 'The recovery email could not be sent: try again later')
      }
      return { status: 'ok' as const, message: 'Sent recovery email' }
    }
  )

  app.post(
    '/login/getjwt',
    { schema: { summary: 'Mint a login link for a user (admins)', body: EmailBody, response: { 200: JwtResponse } } },
    async request => {
      requireAdmin(request.caller, 'get a login link for a user')
      refuseLoginLinks(request.caller, 'mint login links')
      const user = await userWithEmail(request.body.email)
      const jwt = auth.links.mint(user, 'login')
      return { status: 'ok' as const, jwt, email: user.email as string, token: jwt }
    }
  )

  app.post(
    '/login/reset',
    {
      config: { rateLimit: app.endpointLimit('reset') },
      schema: { summary: "Set a new password with a reset link's JWT", body: ResetBody, response: { 200: OkMessage } }
    },
    async request => {
      const user = await auth.links.resolve(request.body.jwt, 'reset')
      await resetPassword(app.system, user, request.body.password, app.config.bcryptRounds)
      return { status: 'ok' as const, message: 'Password changed' }
    }
  )
}
