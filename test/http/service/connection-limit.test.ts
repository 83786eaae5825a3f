// Connections beyond MAX_CONNECTIONS are closed as they arrive and the server keeps serving.
// Found by a black-box probe: 10,000 idle anonymous connections, each reopened as soon as it
// was cut, used up the process's open files, and the server exited when even reading its memory
// usage failed (EMFILE). The automatic bound keeps 256 files of the open-files limit free.
import t from 'tap'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { createTestApp } from '../../helpers/test-app.ts'
import { automaticMaxConnections, openFilesLimit } from '../../../src/connection-limit.ts'

const LIMITS_FILE = `Limit                     Soft Limit           Hard Limit           Units
Max processes             94006                94006                processes
Max open files            1024                 524288               files
`

t.test('the automatic bound comes from the open-files limit', async t => {
  t.equal(
    openFilesLimit(() => LIMITS_FILE),
    1024,
    'the soft limit, read from /proc/self/limits'
  )
  t.equal(
    openFilesLimit(() => LIMITS_FILE.replace('1024    ', 'unlimited')),
    undefined,
    'unlimited: no bound'
  )
  t.equal(
    openFilesLimit(() => {
      throw new Error('no /proc')
    }),
    undefined,
    'no /proc: no bound'
  )
  t.equal(automaticMaxConnections(1024), 768, 'the limit less 256 files kept for the process')
  t.equal(automaticMaxConnections(100), 64, 'never below 64')
  t.equal(automaticMaxConnections(undefined), 0, 'no limit known: none set')
  t.ok(automaticMaxConnections(openFilesLimit()) > 0, 'this machine has a limit to read')
})

/** Resolves with what the server sent before it closed the connection (or after `ms`, with what came by then). */
function answerOf(socket: net.Socket, ms: number): Promise<{ closed: boolean; data: string }> {
  return new Promise(resolve => {
    let data = ''
    const timer = setTimeout(() => resolve({ closed: false, data }), ms)
    socket.on('data', chunk => {
      data += String(chunk)
    })
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ closed: true, data })
    })
    socket.on('error', () => {})
  })
}

t.test('connections beyond MAX_CONNECTIONS are closed as they arrive; the server keeps serving', async t => {
  const { app } = await createTestApp(t, 'postgres', { maxConnections: 5 })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const connect = (): Promise<net.Socket> =>
    new Promise(resolve => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket))
    })
  const idle = await Promise.all(Array.from({ length: 5 }, connect))
  t.teardown(() => {
    for (const socket of idle) socket.destroy()
  })
  const extra = await connect()
  const answer = answerOf(extra, 5000)
  extra.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
  t.same(await answer, { closed: true, data: '' }, 'a sixth connection is closed unanswered')
  for (const socket of idle) socket.destroy()
  let status = 0
  for (let tries = 0; tries < 50 && status !== 200; tries++) {
    status = await fetch(`http://127.0.0.1:${port}/health`).then(
      res => res.status,
      () => 0
    )
    if (status !== 200) await new Promise(resolve => setTimeout(resolve, 100))
  }
  t.equal(status, 200, 'once the idle ones are gone, the server answers')
})
