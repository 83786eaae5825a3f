// Expensive reads pinned to one _id: 8 connections send lists, counts and /query calls naming the
// document by id plus a costly regular expression on its text. Before such reads counted as
// expensive, they skipped the expensive-statement gate and its per-client share, and 8 at once held
// everyone's reads at p95 5 s on PostgreSQL.
import { createHttpClient, type HttpRequest } from '../http-client.ts'
import { type Attack, count, lanes } from './raw-socket.ts'

const CONNECTIONS = 8
/** Nested quantifiers: costly for a backtracking engine, and accepted by the regex guard (no back-reference). */
const BACKTRACKING = '^(\\w+\\s?)*$'

function pinnedRequests(id: string): HttpRequest[] {
  const regex = encodeURIComponent(`$regex:${BACKTRACKING}`)
  return [
    { method: 'GET', path: `/api/test?filter[_id]=${id}&filter[fulltext]=${regex}` },
    {
      method: 'GET',
      path: `/count/test?filter[_id]=${id}&filter[fulltext]=${regex}`
    },
    {
      method: 'POST',
      path: '/query/test',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: { _id: id, fulltext: { $regex: BACKTRACKING } } })
    }
  ]
}

export const pinnedReads: Attack = async run => {
  const client = createHttpClient(run.spec.url, CONNECTIONS, 30_000)
  const requests = pinnedRequests(run.spec.documentId)
  let next = 0
  await lanes(run, CONNECTIONS, async () => {
    const reply = await client.send(requests[next++ % requests.length])
    count(run.counts, `${reply.status || reply.error}`)
  })
  client.close()
}
