// Error answers under JXP_COMPAT, as JXP's clients expect them: missing, wrong or expired
// credentials are a 403 (JXP's answer; Quire's own is 401), so is /call of a method a model does
// not expose (Quire: 404), and `code` is restify's name for the
// status (JXP's front ends compare it), with Quire's stable code kept in `quire_code`.
import type { QuireError } from '../errors.ts'

const RESTIFY_NAMES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  418: 'ImATeapot',
  429: 'TooManyRequests',
  500: 'InternalServer',
  501: 'NotImplemented',
  503: 'ServiceUnavailable'
}

/**
 * Quire's codes JXP answers with 403: credentials missing, wrong or expired; a method a model does not let callers run.
 */
const FORBIDDEN_IN_JXP = new Set(['AUTH_FAILED', 'AUTH_REQUIRED', 'UNKNOWN_METHOD'])

/** The HTTP status JXP answers for `err`. */
export function compatStatus(err: QuireError): number {
  return FORBIDDEN_IN_JXP.has(err.code) ? 403 : err.status
}

/** An error body with restify's code for `status`, Quire's in `quire_code`. */
export function compatBody(body: Record<string, unknown>, status: number): Record<string, unknown> {
  return { ...body, code: RESTIFY_NAMES[status] ?? body.code, quire_code: body.code }
}
