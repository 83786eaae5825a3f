// `quire serve` with WORKERS=2 on PostgreSQL: both workers serve requests (the pid in each
// request's log line), a write through one drops every worker's cached list count, a password
// change empties every worker's credential cache, the login throttle and the login endpoints' request buckets are one
// budget for all workers (the primary keeps the counters), a worker that dies is replaced,
// SIGTERM to the primary stops every worker; a worker that cannot start stops the cluster; a worker
// of another supervisor's node:cluster (PM2) keeps its limits in its own process.
import t from 'tap'
import { request } from 'node:http'
import { spawn } from 'node:child_process'
import { freePort } from '../../../src/free-port.ts'
import { join } from 'node:path'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { databaseUrl } from '../../helpers/test-app.ts'
import { REPO_ROOT, runCli, startServer, type ServerProcess } from '../../helpers/run-cli.ts'
import { SOURCE_LOADER_ARGS, SOURCE_LOADER_ENV } from '../../helpers/source-loader.ts'

const LIMIT = 3

interface Reply {
  status: number
  body: string
}

/** One request on a connection of its own (the cluster hands connections to workers in turn). */
function send(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, res => {
      let text = ''
      res.on('data', chunk => {
        text += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const logLines = (server: ServerProcess): Array<Record<string, any>> =>
  server.lines.flatMap(line => {
    try {
      return [JSON.parse(line)]
    } catch {
      return []
    }
  })

/** Pids of the workers whose log says they are listening. */
const listening = (server: ServerProcess): Set<number> =>
  new Set(
    logLines(server)
      .filter(l => String(l.msg).startsWith('Server listening'))
      .map(l => l.pid as number)
  )

/** Pids that answered the requests to `url` seen in the log since line `from`. */
function answeredBy(server: ServerProcess, from: number, url: string): Set<number> {
  return new Set(
    server.lines
      .slice(from)
      .flatMap(line => {
        try {
          return [JSON.parse(line)]
        } catch {
          return []
        }
      })
      .filter(l => l.res !== undefined && l.req?.url === url)
      .map(l => l.pid as number)
  )
}

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  for (const started = Date.now(); !ok(); ) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting until ${what}`)
    await sleep(50)
  }
}

/**
 * How many workers answered the requests to `url` since line `from`, once both have or 10 s have
 * passed: each worker writes its log lines itself, and on a loaded machine one's may reach the
 * pipe after the answer that the test already has.
 */
async function workersThatAnswered(server: ServerProcess, from: number, url: string): Promise<number> {
  await until(`both workers logged ${url}`, () => answeredBy(server, from, url).size === 2, 10_000).catch(() => {})
  return answeredBy(server, from, url).size
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

t.test('a worker that cannot start stops the cluster with exit code 1', async t => {
  const models = mkdtempSync(join(tmpdir(), 'quire-cluster-models-'))
  t.teardown(() => rmSync(models, { recursive: true, force: true }))
  // A model file the start's preflight accepts, whose code module fails in the worker that loads it.
  writeFileSync(join(models, 'broken.json'), JSON.stringify({ name: 'broken', fields: { a: { type: 'string' } } }))
  writeFileSync(join(models, 'broken.mjs'), "throw new Error('broken.mjs cannot load')\n")
  const result = await runCli(['serve'], {
    DATABASE_URL: await databaseUrl('postgres'),
    MODELS_DIR: models,
    WORKERS: '2',
    PORT: '0',
    LOG_FORMAT: 'json'
  })
  t.equal(result.code, 1)
  t.match(result.stdout + result.stderr, /broken\.mjs cannot load/, 'the worker says why')
  t.match(
    result.stdout,
    /exited \(code 1\) before it listened: stopping/,
    'the primary says it stops rather than start it again'
  )
})

t.test("a node:cluster worker that another supervisor forked (PM2's cluster mode) runs alone", async t => {
  const port = await freePort()
  // A stand-in for the other supervisor: a plain node:cluster primary forking `quire serve` once.
  const primary =
    `const cluster = require('node:cluster'); cluster.setupPrimary({ exec: 'src/cli.ts', args: ['serve'], ` +
    `execArgv: ${JSON.stringify(SOURCE_LOADER_ARGS)} }); ` +
    "const w = cluster.fork(); process.on('SIGTERM', () => { w.process.kill('SIGTERM'); w.on('exit', () " +
    '=> process.exit(0)) })'
  const child = spawn(process.execPath, ['-e', primary], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH,
      ...SOURCE_LOADER_ENV,
      DATABASE_URL: await databaseUrl('postgres'),
      MODELS_DIR: join(REPO_ROOT, 'models'),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOGIN_RATE_LIMIT: '1',
      MAX_EVENT_LOOP_DELAY_MS: '0'
    }
  })
  t.teardown(() => {
    child.kill('SIGTERM')
  })
  const url = `http://127.0.0.1:${port}`
  for (
    const started = Date.now();
    !(await fetch(`${url}/health`).then(
      r => r.ok,
      () => false
    ));
  ) {
    if (Date.now() - started > 60_000 || child.exitCode !== null) throw new Error('the worker did not start')
    await sleep(100)
  }
  const basic = { authorization: `Basic ${Buffer.from('nobody@example.com:guess').toString('base64')}` }
  t.same(
    [(await send(`${url}/api/test`, 'GET', basic)).status, (await send(`${url}/api/test`, 'GET', basic)).status],
    [401, 429],
    'its rate limits count in the process (no question to a primary that would never answer)'
  )
})

t.test('two workers on PostgreSQL', async t => {
  const env = {
    DATABASE_URL: await databaseUrl('postgres'),
    MODELS_DIR: join(REPO_ROOT, 'models'),
    WORKERS: '2',
    LOG_FORMAT: 'json',
    COUNT_CACHE_MS: '600000',
    LOGIN_RATE_LIMIT: String(LIMIT),
    MAX_EVENT_LOOP_DELAY_MS: '0',
    BCRYPT_ROUNDS: '4',
    QUIRE_SECRET: 'a-secret-for-the-cluster-test-0123456789'
  }
  const created = await runCli(['admin', 'create', '--email', 'admin@example.com', '--password', 'admin-password'], env)
  t.equal(created.code, 0, created.stderr)
  const server = await startServer(env)
  t.teardown(() => {
    server.child.kill('SIGKILL')
  })
  await until('both workers listen', () => listening(server).size === 2)
  const workers = listening(server)

  t.test('both workers answer', async t => {
    const from = server.lines.length
    for (let i = 0; i < 6; i++) t.equal((await send(`${server.url}/ready`, 'GET')).status, 200)
    await until('the requests are logged', () => answeredBy(server, from, '/ready').size === 2, 5000).catch(() => {})
    t.same(
      [...answeredBy(server, from, '/ready')].sort(),
      [...workers].sort(),
      'each worker answered some of the requests'
    )
  })

  t.test('a write through one worker shows in the list count of every worker at once', async t => {
    const count = async (): Promise<number> =>
      JSON.parse((await send(`${server.url}/api/link?limit=1`, 'GET')).body).count
    const from = server.lines.length
    t.same(
      [await count(), await count(), await count(), await count()],
      [0, 0, 0, 0],
      'both workers cache the count (COUNT_CACHE_MS=600000)'
    )
    const admin = `Basic ${Buffer.from('admin@example.com:admin-password').toString('base64')}`
    t.equal(
      (
        await send(
          `${server.url}/api/link`,
          'POST',
          { authorization: admin, 'content-type': 'application/json' },
          JSON.stringify({ name: 'new' })
        )
      ).status,
      200
    )
    t.same(
      [await count(), await count(), await count(), await count()],
      [1, 1, 1, 1],
      'the next reads count it, whichever worker answers'
    )
    t.equal(await workersThatAnswered(server, from, '/api/link?limit=1'), 2, 'both workers answered')
  })

  t.test('a password change empties the credential cache of every worker at once', async t => {
    const admin = `Basic ${Buffer.from('admin@example.com:admin-password').toString('base64')}`
    const from = server.lines.length
    const me = JSON.parse(
      (await send(`${server.url}/api/user?filter[email]=admin@example.com`, 'GET', { authorization: admin })).body
    ).data[0]
    for (let i = 0; i < 3; i++)
      t.equal((await send(`${server.url}/api/link`, 'GET', { authorization: admin })).status, 200, 'the pair is cached')
    const changed = await send(
      `${server.url}/api/user/${me._id as string}`,
      'PUT',
      { authorization: admin, 'content-type': 'application/json' },
      JSON.stringify({ password: 'another-password' })
    )
    t.equal(changed.status, 200, changed.body)
    const after = server.lines.length
    t.same(
      [
        (await send(`${server.url}/api/link`, 'GET', { authorization: admin })).status,
        (await send(`${server.url}/api/link`, 'GET', { authorization: admin })).status
      ],
      [401, 401],
      'the old password is refused on the next request, whichever worker answers'
    )
    t.equal(await workersThatAnswered(server, from, '/api/link'), 2, 'both workers had cached it')
    t.equal(await workersThatAnswered(server, after, '/api/link'), 2, 'both workers refused it')
  })

  t.test('wrong passwords spread over the workers share one budget', async t => {
    const from = server.lines.length
    const basic = `Basic ${Buffer.from('nobody@example.com:guess').toString('base64')}`
    for (let i = 0; i < LIMIT; i++)
      t.equal((await send(`${server.url}/api/test`, 'GET', { authorization: basic })).status, 401)
    const over = await send(`${server.url}/api/test`, 'GET', { authorization: basic })
    t.equal(over.status, 429, 'the next one waits, whichever worker takes it')
    t.match(JSON.parse(over.body).message, /Too many failed logins to this account from your address/)
    t.equal(await workersThatAnswered(server, from, '/api/test'), 2, 'both workers took part')
  })

  t.test('the /login request bucket is one for all workers', async t => {
    const login = JSON.stringify({ email: 'someone@example.com', password: 'whatever' })
    const headers = { 'content-type': 'application/json' }
    for (let i = 0; i < LIMIT; i++) t.not((await send(`${server.url}/login`, 'POST', headers, login)).status, 429)
    const over = await send(`${server.url}/login`, 'POST', headers, login)
    t.equal(over.status, 429)
    t.match(JSON.parse(over.body).message, /Too many requests to \/login from your address/)
  })

  t.test('a worker that dies is replaced', async t => {
    const [victim] = workers
    process.kill(victim, 'SIGKILL')
    await until('another worker listens', () => listening(server).size === 3)
    t.ok(
      logLines(server).some(
        l => l.level === 50 && l.msg === `worker ${victim} exited (signal SIGKILL): starting another`
      ),
      'the primary logs it'
    )
    t.equal((await send(`${server.url}/ready`, 'GET')).status, 200)
  })

  t.test('SIGTERM to the primary stops every worker', async t => {
    const pids = [...listening(server)].filter(alive)
    t.equal(pids.length, 2)
    server.child.kill('SIGTERM')
    t.equal(await server.exited, 0, 'the primary exits cleanly')
    t.same(pids.filter(alive), [], 'no worker is left')
    t.ok(logLines(server).some(l => l.msg === 'all workers stopped'))
    t.equal(logLines(server).filter(l => l.msg === 'closed').length, 2, 'each worker closed gracefully')
  })
})
