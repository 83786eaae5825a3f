// Recognizes the errors of a database that cannot be reached, is shutting down
// or refuses connections (PostgreSQL through postgres.js, MongoDB), so that the
// client gets 503 UNAVAILABLE with a clear message instead of a 500.

/** Socket errors of a connection attempt or of a connection that broke. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL'
])

/** postgres.js's own codes for a connection that closed, was ended or did not open in time. */
const DRIVER_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT'])

/** SQLSTATEs: shutdown (57P01-57P03), too many connections (53300); class 08 is added below. */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300'])

const MONGO_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoTopologyClosedError'
])

/** True when `err` says the database is out of reach (not that the request was wrong). */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false
  const { code, name, syscall } = err as { code?: unknown; name?: unknown; syscall?: unknown }
  if (typeof name === 'string' && MONGO_NAMES.has(name)) return true
  if (typeof code !== 'string') return false
  if (code === 'ENOENT' && syscall === 'connect') return true // a Unix socket that is gone: the server stopped
  return SOCKET_CODES.has(code) || DRIVER_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)
}

/** The message a client gets meanwhile. */
export const UNAVAILABLE_MESSAGE = 'The database cannot be reached at the moment: try again in a few seconds'
