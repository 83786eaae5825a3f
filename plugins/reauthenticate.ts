// Asks again who a kept request's credential stands for now, through the same
// authentication step that served the request (a change-feed stream outlives the
// moment its credentials were checked: a revoked key or a logged-out token must end it).
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ANONYMOUS, type Caller } from '../src/auth/caller.ts'

type Authenticate = (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void

export function reauthenticate(
  authenticate: Authenticate,
  request: FastifyRequest,
  reply: FastifyReply
): Promise<Caller> {
  return new Promise((resolve, reject) => {
    request.caller = ANONYMOUS
    authenticate(request, reply, err => {
      if (err) reject(err)
      else resolve(request.caller)
    })
  })
}
