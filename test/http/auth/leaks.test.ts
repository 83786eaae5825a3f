// A scan for leaked secrets: runs every authentication flow (and reads of models
// with password fields) with the log captured at trace level, then checks that
// no log line holds a password, hash, token, API key or JWT, and that replies
// hold no password or hash and carry credentials only where they are the answer.
import t from 'tap'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { ENGINES, basicAuth } from '../../helpers/test-app.ts'
import { bearer, createLoggedApp, decodeMail, json, startSmtp } from '../../helpers/auth-helpers.ts'
import { USER_MODEL } from '../../../src/auth/users/user-model.ts'

const PASSWORDS = ['root-password-1', 'alice-password-1', 'alice-password-2', 'doc-password-1', 'wrong-password-1']
/** Replies that are allowed to carry a credential. */
const CREDENTIAL_ROUTES = ['/login', '/refresh', '/login/jwt', '/login/getjwt', '/users/:id/apikey']

interface Exchange {
  url: string
  status: number
  body: string
}

function recorder(app: FastifyInstance): {
  send: (opts: InjectOptions) => Promise<Record<string, any>>
  exchanges: Exchange[]
} {
  const exchanges: Exchange[] = []
  return {
    exchanges,
    send: async opts => {
      const res = await app.inject(opts)
      exchanges.push({ url: String(opts.url), status: res.statusCode, body: res.body })
      return res.body ? json(res) : {}
    }
  }
}

for (const engine of ENGINES) {
  t.test(engine, async t => {
    const smtp = await startSmtp(t)
    const { app, logs } = await createLoggedApp(t, engine, { smtpUrl: `smtp://127.0.0.1:${smtp.port}` })
    const { send, exchanges } = recorder(app)
    const secrets: string[] = [...PASSWORDS]

    await send({ method: 'POST', url: '/setup', payload: { email: 'root@example.com', password: 'root-password-1' } })
    const admin = { authorization: basicAuth('root@example.com', 'root-password-1') }
    const alice = (
      await send({
        method: 'POST',
        url: '/api/user',
        headers: admin,
        payload: { email: 'alice@example.com', password: 'alice-password-1' }
      })
    ).data
    await send({ method: 'POST', url: '/api/test', headers: admin, payload: { foo: 'x', password: 'doc-password-1' } })
    await send({ method: 'POST', url: '/api/test', headers: admin, payload: { foo: 'y' } })
    await send({ method: 'POST', url: '/login', payload: { email: 'alice@example.com', password: 'wrong-password-1' } })
    const session = await send({
      method: 'POST',
      url: '/login',
      payload: { email: 'alice@example.com', password: 'alice-password-1' }
    })
    const refreshed = await send({ method: 'POST', url: '/refresh', headers: bearer(session.refresh_token) })
    secrets.push(session.token, session.refresh_token, session.apikey, refreshed.token, refreshed.refresh_token)
    for (const query of [
      `?apikey=${session.apikey}`,
      `?apikey=${session.apikey.slice(0, -1)}`,
      '?apikey=qak_wrong&limit=2'
    ]) {
      await send({ method: 'GET', url: `/api/user/${alice._id}${query}` })
    }
    await send({ method: 'GET', url: '/api/user', headers: { 'x-api-key': session.apikey } })
    // Near misses are refused (400 or 401), yet each URL still carries a live key to the log.
    for (const url of [
      `/api/test?apiKey=${session.apikey}`,
      `/api/test?apikey[]=${session.apikey}`,
      `/api/test?api_key=${session.apikey}`,
      `/api/test??apikey=${session.apikey}`,
      `/api/test?limit=1?apikey=${session.apikey}`,
      `/api/test?apikey%00=${session.apikey}`,
      `/api/test?JWT[]=${session.token}`,
      `/api/test/${session.apikey}`
    ]) {
      await send({ method: 'GET', url })
    }
    const paged = await send({ method: 'GET', url: `/api/test?limit=1&apikey=${session.apikey}` })
    t.equal(paged.next, '/api/test?limit=1&page=2', 'paging links leave the API key out')
    await send({ method: 'GET', url: '/api/user', headers: bearer(refreshed.token) })
    await send({ method: 'GET', url: '/api/user', headers: bearer(session.token) })
    await send({
      method: 'GET',
      url: '/api/user',
      headers: { authorization: basicAuth('alice@example.com', 'wrong-password-1') }
    })
    const { jwt } = await send({
      method: 'POST',
      url: '/login/getjwt',
      headers: admin,
      payload: { email: 'alice@example.com' }
    })
    secrets.push(jwt)
    const linked = await send({ method: 'GET', url: `/login/jwt?jwt=${jwt}` })
    secrets.push(linked.token, linked.refresh_token)
    await send({ method: 'GET', url: `/api/user?jwt=${jwt}&jwt=${jwt}` })
    await send({ method: 'POST', url: '/login/recover', payload: { email: 'alice@example.com' } })
    const mailed = /jwt=([^\s&]+)/.exec(decodeMail(smtp.mails[0].data))![1]
    secrets.push(decodeURIComponent(mailed))
    await send({
      method: 'POST',
      url: '/login/reset',
      payload: { jwt: decodeURIComponent(mailed), password: 'alice-password-2' }
    })
    await send({
      method: 'POST',
      url: '/login/reset',
      payload: { jwt: decodeURIComponent(mailed), password: 'alice-password-2' }
    })
    for (const url of [
      '/api/user',
      '/api/test',
      '/api/test?fields=password,foo',
      '/count/user',
      '/api/test?filter[password]=$regex:/^.2b/',
      '/api/test?sort=password',
      '/api/test?search[password]=2b'
    ]) {
      await send({ method: 'GET', url, headers: admin })
    }
    await send({
      method: 'POST',
      url: '/query/test',
      headers: admin,
      payload: { query: { password: { $regex: '^\\$2b' } } }
    })
    await send({
      method: 'POST',
      url: '/query/test',
      headers: admin,
      payload: { query: { $expr: { $eq: [{ $substr: ['$password', 0, 1] }, '$'] } } }
    })
    for (const pipeline of [
      [{ $project: { h: '$password' } }],
      [{ $replaceRoot: { newRoot: { doc: '$$ROOT' } } }],
      [{ $group: { _id: '$password' } }],
      [{ $match: { password: { $regex: '^\\$2' } } }, { $count: 'n' }],
      [{ $lookup: { from: 'user', localField: '_owner_id', foreignField: '_id', as: 'owner' } }]
    ]) {
      await send({ method: 'POST', url: '/aggregate/test', headers: admin, payload: pipeline })
    }
    const rotated = await send({ method: 'POST', url: `/users/${alice._id}/apikey`, headers: admin })
    secrets.push(rotated.apikey)
    await send({ method: 'GET', url: `/api/user/${alice._id}?apikey=${rotated.apikey}` })
    await send({ method: 'DELETE', url: `/users/${alice._id}/apikey`, headers: admin })
    await send({
      method: 'PUT',
      url: `/api/user/${alice._id}`,
      headers: admin,
      payload: { password: 'alice-password-1' }
    })
    await send({ method: 'GET', url: '/login/logout', headers: admin })

    const stored = [
      await app.system.findRaw(USER_MODEL, { email: 'alice@example.com' }),
      await app.system.findRaw(USER_MODEL, { email: 'root@example.com' }),
      await app.system.findRaw(app.models.get('test'), { foo: 'x' })
    ]
    secrets.push(...stored.map(doc => doc!.password as string))
    t.ok(
      secrets.every(s => typeof s === 'string' && s.length >= 10),
      'every secret was collected'
    )

    t.test('no log line holds a secret', async t => {
      t.ok(logs.length > 20, `${logs.length} log lines`)
      for (const line of logs) {
        const leaked = secrets.find(s => line.includes(s))
        t.notOk(leaked, leaked ? `log line leaks a secret: ${line.slice(0, 200)}` : 'clean')
        if (leaked) break
      }
      t.notOk(
        logs.some(l => /\$2[aby]\$|qat_|qrt_|qak_|eyJ[\w-]+\.eyJ/.test(l)),
        'no credential-shaped text in the log'
      )
      t.ok(
        logs.some(l => l.includes('apikey=[redacted]')),
        'URLs are logged with the API key redacted'
      )
    })

    t.test('no reply holds a password or a hash; credentials only where asked for', async t => {
      for (const { url, body } of exchanges) {
        t.notOk(/\$2[aby]\$/.test(body), `no hash in ${url}`)
        t.notOk(
          PASSWORDS.some(p => body.includes(p)),
          `no password in ${url}`
        )
        const path = url.split('?')[0]
        if (!CREDENTIAL_ROUTES.includes(path.replace(/^\/users\/[0-9a-f]{24}\//, '/users/:id/')))
          t.notOk(
            secrets.some(s => body.includes(s)),
            `no credential in ${url}`
          )
      }
      for (const e of exchanges.filter(
        e => e.url.includes('filter[password]') || e.url.includes('sort=password') || e.url.includes('search[password]')
      )) {
        t.equal(e.status, 400, `${e.url} is refused`)
      }
      t.same(
        exchanges.filter(e => e.url === '/query/test').map(e => e.status),
        [400, 400],
        'queries on a password field are refused'
      )
      const matched = exchanges.filter(e => e.url === '/aggregate/test')[3]
      t.equal(matched.status, 400, 'a pipeline cannot match on a password hash (refused like /query)')
    })
  })
}
