// The error catalogue: every error a client can see has a stable code, an HTTP
// status and a default message (documented in docs/errors.md, checked against it by
// test/errors-catalogue.test.ts). Internal causes are logged, never sent.

export const ERRORS = {
  BAD_REQUEST: { status: 400, message: 'Bad request' },
  VALIDATION_FAILED: { status: 400, message: 'The document does not match the model schema' },
  INVALID_FIELD: { status: 400, message: 'Invalid field name' },
  INVALID_ID: { status: 400, message: 'Invalid document id' },
  INVALID_QUERY: { status: 400, message: 'Invalid query' },
  UNSUPPORTED_OPERATOR: { status: 400, message: 'Unsupported query operator' },
  UNSUPPORTED_STAGE: { status: 400, message: 'Unsupported aggregation stage' },
  QUERY_TOO_COMPLEX: { status: 400, message: 'The query exceeds a limit' },
  INVALID_REGEX: { status: 400, message: 'Invalid regular expression' },
  NO_FULLTEXT_INDEX: { status: 400, message: 'This model has no full-text index' },
  SEARCH_NOT_SUPPORTED: { status: 400, message: 'search is not supported on this endpoint' },
  INVALID_BODY: { status: 400, message: 'The request body is not valid' },
  AUTH_FAILED: { status: 401, message: 'Authentication failed' },
  AUTH_REQUIRED: { status: 401, message: 'Authentication required' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  CURRENT_PASSWORD_REQUIRED: { status: 403, message: 'Changing your password needs your current password' },
  MODEL_NOT_FOUND: { status: 404, message: 'Unknown model' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  UNKNOWN_METHOD: { status: 404, message: 'The model exposes no such method' },
  DOCUMENT_NOT_FOUND: { status: 404, message: 'Document not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  CONFLICT: { status: 409, message: 'Conflict' },
  REFERENCED: { status: 409, message: 'Other documents link to this document' },
  REFUSED: { status: 400, message: 'Refused by the model' },
  DUPLICATE_KEY: { status: 409, message: 'A document with this unique value already exists' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  CLIENT_CLOSED: { status: 499, message: 'The client closed the connection before the response was sent' },
  QUERY_TIMEOUT: { status: 504, message: 'The query took too long and was cancelled' },
  INTERNAL: { status: 500, message: 'Internal server error' },
  UNAVAILABLE: { status: 503, message: 'The database is unavailable' },
  OVERLOADED: { status: 503, message: 'The server is overloaded: retry shortly' },
  NOT_SUPPORTED_BY_STORAGE: { status: 501, message: 'The database server does not support this' },
  CHANGES_UNAVAILABLE: { status: 503, message: 'Change feeds are not available on this storage' },
  TOO_MANY_STREAMS: { status: 503, message: 'Too many open change streams' },
  RECOVERY_DISABLED: {
    status: 503,
    message: 'Password recovery by email is not set up on this server: ask an administrator to set a new password'
  }
} as const

export type ErrorCode = keyof typeof ERRORS

/** An error meant for the client: its code is stable, its message safe to show. */
export class QuireError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly details?: unknown
  /** The spec's `err` reason string (login, refresh, recover and getjwt failures). */
  readonly reason?: string

  constructor(code: ErrorCode, message?: string, details?: unknown, reason?: string) {
    super(message ?? ERRORS[code].message)
    this.code = code
    this.status = ERRORS[code].status
    this.details = details
    this.reason = reason
  }
}

/** A model's code refused a request (src/models/model-code.ts): its own 4xx status and message. */
export class RefusalError extends QuireError {
  override readonly status: number

  constructor(status: number, message: string) {
    super('REFUSED', message)
    this.status = Number.isInteger(status) && status >= 400 && status <= 499 ? status : 400
  }
}

/** The response body for an error, in the envelope of DESIGN.md section 4. */
export function errorBody(err: QuireError): Record<string, unknown> {
  const body: Record<string, unknown> = {
    status: err.status >= 500 ? 'error' : 'fail',
    code: err.code,
    message: err.message
  }
  if (err.details !== undefined) body.details = err.details
  if (err.reason !== undefined) body.err = err.reason
  return body
}
