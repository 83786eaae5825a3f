// A postgres:// URL as postgres.js takes it. libpq's form for a Unix socket,
// `postgres://user@localhost/db?host=/socket/dir` (the embedded server's), names the socket's
// directory in the query, which postgres.js would send to the server as a setting: it becomes
// postgres.js's `host` option instead.
export interface PostgresTarget {
  url: string
  host?: string
}

export function postgresTarget(url: string): PostgresTarget {
  const query = url.indexOf('?')
  if (query < 0) return { url }
  const params = new URLSearchParams(url.slice(query + 1))
  const host = params.get('host')
  if (host === null || !host.startsWith('/')) return { url }
  params.delete('host')
  const rest = params.toString()
  return { url: url.slice(0, query) + (rest ? `?${rest}` : ''), host }
}
