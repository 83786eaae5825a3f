// A postgres.js connection for the bench's and the suite's own SQL (seed VACUUM, CPU meter,
// change-log wait, digests): the URL goes through postgresTarget, so that the embedded server's
// socket URL (`postgres://quire@localhost/postgres?host=/DATA_DIR/postgres`) reaches its socket.
import postgres from 'postgres'
import { postgresTarget } from '../src/storage/postgres/postgres-url.ts'

export function connectSql(
  url: string,
  options: postgres.Options<Record<string, postgres.PostgresType>> = {}
): postgres.Sql {
  const target = postgresTarget(url)
  return postgres(target.url, {
    onnotice: () => {},
    ...options,
    ...(target.host !== undefined && { host: target.host })
  })
}
