// Checks, before a database driver gets involved, that a database server named by DATABASE_URL
// answers on TCP: an unreachable one is then one clear line (`cannot reach PostgreSQL at
// host:port: connection refused`) instead of a driver's stack trace or a hang.
import { connect } from 'node:net'
import { StartupError } from '../startup-error.ts'
import { postgresTarget } from './postgres/postgres-url.ts'

const SERVERS: Record<string, { title: string; port: number }> = {
  postgres: { title: 'PostgreSQL', port: 5432 },
  postgresql: { title: 'PostgreSQL', port: 5432 },
  mongodb: { title: 'MongoDB', port: 27017 }
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset'
}

export interface ServerAddress {
  host: string
  port: number
}

/** The host:port pairs of a postgres:// or mongodb:// URL (several for a replica set); none for a Unix socket. */
export function serverAddresses(url: string, defaultPort: number): ServerAddress[] {
  const afterScheme = url.slice(url.indexOf('://') + 3)
  const authority = afterScheme.split(/[/?#]/)[0]
  const hosts = authority.slice(authority.lastIndexOf('@') + 1)
  return hosts
    .split(',')
    .filter(Boolean)
    .map(entry => {
      const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(decodeURIComponent(entry))
      return { host: (match?.[1] ?? entry).replace(/^\[|\]$/g, ''), port: match?.[2] ? Number(match[2]) : defaultPort }
    })
}

function reach({ host, port }: ServerAddress, timeoutMs: number): Promise<string | undefined> {
  return new Promise(resolve => {
    const socket = connect({ host, port })
    const done = (reason?: string): void => {
      socket.destroy()
      resolve(reason)
    }
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs / 1000} s`))
    socket.once('connect', () => done())
    socket.once('error', (err: NodeJS.ErrnoException) => done(REASONS[err.code ?? ''] ?? err.code ?? err.message))
  })
}

/** Resolves when one of the URL's servers accepts a TCP connection; throws a StartupError naming them otherwise. */
export async function probeDatabase(url: string, timeoutMs = 10_000): Promise<void> {
  const server = SERVERS[url.slice(0, url.indexOf('://'))]
  if (!server || postgresTarget(url).host !== undefined) return // a Unix socket: the driver's own error names it
  const addresses = serverAddresses(url, server.port)
  if (addresses.length === 0) return
  const reasons = await Promise.all(addresses.map(address => reach(address, timeoutMs)))
  if (reasons.some(reason => reason === undefined)) return
  const where = addresses.map(a => `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`).join(', ')
  throw new StartupError(`cannot reach ${server.title} at ${where}: ${[...new Set(reasons)].join(', ')}`)
}
