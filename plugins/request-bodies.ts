// How request bodies are read: JSON by Fastify's own parser (prototype poisoning
// refused), except that an empty body with a JSON content type is no body (browser
// front ends and JXP's clients send one with DELETE, /login/logout and /refresh); forms
// by qs, so that JXP's nested keys work (yack[s]=x, shmack[0]=a, shmack[]=a), within
// limits: 8 levels, 1000 parameters, arrays of 1000, no prototype keys. Beyond a
// limit, or with a key qs would drop, the form is a 400, not a silently different document;
// so is a JSON text sent as a form, with a message that names the content type to send.
import fp from 'fastify-plugin'
import formbody from '@fastify/formbody'
import qs from 'qs'
import type { FastifyInstance } from 'fastify'
import { QuireError } from '../src/errors.ts'

const FORM_LIMITS = {
  depth: 8,
  strictDepth: true,
  parameterLimit: 1000,
  arrayLimit: 1000,
  throwOnLimitExceeded: true,
  allowPrototypes: false
}

/**
 * A key segment qs would drop without a word (`query[__proto__][foo]=x` read as an empty query,
 * which matched every document): Object.prototype's own names, which qs skips when prototypes
 * are not allowed.
 */
function droppedName(text: string): string | undefined {
  for (const key of new URLSearchParams(text).keys()) {
    const found = key.split(/[[\]]/).find(segment => Object.hasOwn(Object.prototype, segment))
    if (found !== undefined) return found
  }
  return undefined
}

/** A JSON object or array sent as a form (curl's -d without a content type): never a form anyone meant. */
const JSON_TEXT = /^\s*(\{[\s\S]*\}|\[[\s\S]*\])\s*$/

function parseForm(text: string): Record<string, unknown> {
  if (JSON_TEXT.test(text)) {
    throw new QuireError(
      'INVALID_BODY',
      "The body is JSON but was sent as a form (Content-Type: application/x-www-form-urlencoded, curl's " +
        'default for -d): send it with Content-Type: application/json'
    )
  }
  const dropped = droppedName(text)
  if (dropped !== undefined)
    throw new QuireError('INVALID_BODY', `A form field cannot be named ${dropped.slice(0, 64)}`)
  try {
    return qs.parse(text, FORM_LIMITS)
  } catch (err) {
    throw new QuireError('INVALID_BODY', `The form exceeds a limit: ${(err as Error).message}`)
  }
}

async function requestBodiesPlugin(app: FastifyInstance): Promise<void> {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) done(null, undefined)
    else parseJson(request, body as string, done)
  })
  await app.register(formbody, { parser: parseForm })
}

export default fp(requestBodiesPlugin, { name: 'request-bodies' })
