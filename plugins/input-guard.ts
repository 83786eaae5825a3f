// Runs src/validation/check-input.ts on every request's query string (before the
// credentials in it are read) and body (before schema validation and any route):
// one place for hostile values.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { checkInput } from '../src/validation/check-input.ts'

async function inputGuardPlugin(app: FastifyInstance): Promise<void> {
  // Callback hooks (no promise per request); Fastify answers what checkInput throws.
  app.addHook('onRequest', (request, _reply, done) => {
    checkInput(request.query, 'query string')
    done()
  })
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body !== undefined) checkInput(request.body, 'body')
    done()
  })
}

export default fp(inputGuardPlugin, { name: 'input-guard' })
