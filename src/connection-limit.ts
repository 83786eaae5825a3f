// How many connections the server holds at once. Each is an open file: past the process's
// open-files limit, nothing can open a file any more. 10,000 anonymous idle connections, each
// reopened as soon as it was cut, made even reading the process's memory usage fail (EMFILE),
// and the server exited. Connections beyond the bound are closed as they arrive, and the
// files the process needs for itself stay free.
import { readFileSync } from 'node:fs'

/** Files kept for the process's own use: database connections, logs, modules. */
const RESERVED_FILES = 256
/** The least a computed bound allows, however low the open-files limit. */
const MIN_CONNECTIONS = 64

/** The soft open-files limit of this process (Linux: /proc/self/limits), or undefined where there is none to read. */
export function openFilesLimit(
  readLimits: () => string = () => readFileSync('/proc/self/limits', 'utf8')
): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readLimits())
    return match ? Number(match[1]) : undefined
  } catch {
    return undefined
  }
}

/**
 * The bound for MAX_CONNECTIONS=0: the open-files limit less RESERVED_FILES; 0 (no bound) when the limit is unknown or
 * unlimited.
 */
export function automaticMaxConnections(limit: number | undefined): number {
  return limit === undefined ? 0 : Math.max(MIN_CONNECTIONS, limit - RESERVED_FILES)
}
