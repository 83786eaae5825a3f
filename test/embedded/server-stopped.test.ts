// The embedded server stopped under a running Quire (by hand, or by the operating system): its
// Unix socket is gone, and requests are 503 UNAVAILABLE, as with a PostgreSQL server out of
// reach over TCP, until it is back; never a 500.
import t from 'tap'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../../app.ts'
import { loadConfig } from '../../src/config.ts'
import { useEmbeddedServer } from '../../src/embedded/embedded-server.ts'
import { readPidFile, waitUntilStopped } from '../../src/embedded/postmaster-pid.ts'
import { QUIET_SETTINGS } from '../helpers/test-app.ts'

t.test('requests while the embedded server is down are 503 UNAVAILABLE', async t => {
  const parent = mkdtempSync(join(tmpdir(), 'quire-down-'))
  chmodSync(parent, 0o755)
  t.teardown(() => rmSync(parent, { recursive: true, force: true }))
  const dataDir = join(parent, 'data')
  const config = {
    ...loadConfig({ DATA_DIR: dataDir }),
    ...QUIET_SETTINGS,
    modelsDir: new URL('../../models', import.meta.url).pathname,
    bcryptRounds: 4
  }
  const server = await useEmbeddedServer(dataDir, () => {})
  const app = await buildApp({ config })
  t.teardown(async () => {
    await app.close()
    await server.release()
  })
  t.equal((await app.inject({ url: '/api/test' })).statusCode, 200)

  const cluster = join(dataDir, 'postgres')
  process.kill(readPidFile(cluster)!.pid, 'SIGINT')
  t.ok(await waitUntilStopped(cluster, 30_000), 'the server stopped')
  for (const url of ['/api/test', '/api/test?filter[foo]=x', '/count/test']) {
    const res = await app.inject({ url })
    t.equal(res.statusCode, 503, url)
    t.equal(res.json().code, 'UNAVAILABLE', url)
  }
})
