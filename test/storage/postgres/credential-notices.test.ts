// Credential notices between processes on one PostgreSQL server: a write's announcement resolves
// only once every listening process has emptied its cache, however late PostgreSQL hands the
// notice to one of them (here one listener hears every notice 300 ms after the others).
import t from 'tap'
import type { SqlClient } from '../../../src/storage/sql/sql-client.ts'
import { listenForCredentialChanges, openNoticeConnection } from '../../../src/storage/postgres/credential-notices.ts'
import { databaseUrl } from '../../helpers/test-app.ts'

const TIMEOUT_MS = 5000

/** `client`, except that each notification reaches its listener `delayMs` late (a busy process or server). */
function hearingLate(client: SqlClient, delayMs: number): SqlClient {
  return {
    ...client,
    listen: async (channel, onPayload, onListen) =>
      await client.listen!(
        channel,
        payload => {
          setTimeout(onPayload, delayMs, payload)
        },
        onListen
      )
  }
}

t.test('an announcement waits for every process to clear', async t => {
  const url = await databaseUrl('postgres')
  const writerConnection = openNoticeConnection(url, TIMEOUT_MS)
  const slowConnection = openNoticeConnection(url, TIMEOUT_MS)
  t.teardown(async () => {
    await writerConnection.client.close()
    await slowConnection.client.close()
  })

  let writerClears = 0
  let slowClears = 0
  const writer = await listenForCredentialChanges(writerConnection, () => {
    writerClears++
  })
  const slow = await listenForCredentialChanges(
    { ...slowConnection, client: hearingLate(slowConnection.client, 300) },
    () => {
      slowClears++
    }
  )
  writerClears = 0
  slowClears = 0

  await writer.announce()
  t.equal(writerClears, 1, 'the writer cleared its own cache')
  t.equal(slowClears, 1, 'the late listener had cleared before the announcement resolved')

  await slow.announce()
  t.equal(writerClears, 2, 'an announcement from the other process clears the writer too')
  t.equal(slowClears, 2)

  await slow.close()
  await writer.close()
})
