// Failures that stop a command before it can work and that the operator can fix (configuration,
// an unreachable or refusing database, an unusable data directory, a port that cannot be
// listened on): one line each, no stack.
import { SqlError } from './storage/sql/sql-client.ts'

/** A reason Quire cannot start; its message is the whole story. */
export class StartupError extends Error {}

const FILE_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device'
}

/**
 * The one line to print for an error that stopped a command, or undefined when it is not a
 * known operator mistake (a bug, whose stack is worth printing).
 */
/** What to do when the port cannot be listened on, by Node's error code. */
const LISTEN_REASONS: Record<string, (where: string) => string> = {
  EADDRINUSE: where =>
    `${where} is in use (another quire serve, or another program): set PORT to a free port, or stop the other one`,
  EACCES: where => `${where}: permission denied (ports below 1024 need privileges): set PORT to 1024 or above`,
  EADDRNOTAVAIL: where => `${where}: HOST is not an address of this machine: set HOST (0.0.0.0 for every address)`
}

export function describeStartupFailure(err: unknown): string | undefined {
  if (err instanceof StartupError) return err.message
  const listen = err as NodeJS.ErrnoException & { address?: string; port?: number }
  if (listen?.syscall === 'listen' && LISTEN_REASONS[listen.code ?? ''])
    return LISTEN_REASONS[listen.code!](`port ${listen.port} on ${listen.address}`)
  // PostgreSQL refusing the connection: wrong password or user (class 28), no such database (3D).
  if (err instanceof SqlError && /^(28|3D)/.test(err.code ?? ''))
    return `PostgreSQL refused the connection: ${err.message}`
  const fsError = err as NodeJS.ErrnoException
  if (fsError?.syscall && fsError.path && FILE_REASONS[fsError.code ?? ''])
    return `cannot use ${fsError.path}: ${FILE_REASONS[fsError.code!]}`
  return undefined
}
