// Regression tests of the outside audit (issue 9), hostile-input class, on both
// engines: input that used to cause a 500 (or a silently wrong answer) is a 4xx
// with a stable code, and changes nothing.
import t from 'tap'
import { ENGINES, createTestApp } from '../../helpers/test-app.ts'
import { json } from '../../helpers/auth-helpers.ts'
import { LIMITS } from '../../../src/validation/limits.ts'

const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) })

for (const engine of ENGINES) {
  t.test(`hostile input is a 4xx on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    const headers = { authorization: admin }
    await app.inject({ method: 'POST', url: '/api/test', headers, payload: { foo: 'x', yack: { s: 's', n: 1e300 } } })

    const cases: Array<[string, () => Promise<{ statusCode: number; body: string }>]> = [
      [
        'NUL in a document',
        () => app.inject({ method: 'POST', url: '/api/test', headers, payload: { foo: 'a\u0000b' } })
      ],
      [
        'lone surrogate in a document',
        () =>
          app.inject({
            method: 'POST',
            url: '/api/test',
            payload: '{"foo":"a\\ud800"}',
            headers: { ...headers, 'content-type': 'application/json' }
          })
      ],
      [
        '1e400 in a number field',
        () =>
          app.inject({
            method: 'POST',
            url: '/api/test',
            headers: { ...headers, 'content-type': 'application/json' },
            payload: '{"yack":{"s":"x","n":1e400}}'
          })
      ],
      [
        'NUL in a pipeline',
        () => app.inject({ method: 'POST', url: '/aggregate/test', headers, payload: [{ $match: { foo: 'a\u0000' } }] })
      ],
      ['NUL in search', () => app.inject({ method: 'GET', url: '/api/test?search=a%00b' })],
      ['NUL in $regex', () => app.inject({ method: 'GET', url: '/api/test?filter[foo]=$regex:a%00' })],
      [
        '$multiply overflow',
        () =>
          app.inject({
            method: 'POST',
            url: '/aggregate/test',
            payload: [{ $project: { x: { $multiply: ['$yack.n', 1e300, 1e300] } } }]
          })
      ],
      [
        '$add overflow',
        () =>
          app.inject({
            method: 'POST',
            url: '/aggregate/test',
            payload: [{ $project: { x: { $add: ['$yack.n', 1.7e308, 1.7e308] } } }]
          })
      ],
      [
        '$sum overflow',
        () =>
          app.inject({
            method: 'POST',
            url: '/aggregate/test',
            payload: [{ $project: { v: [1, 2] } }, { $unwind: '$v' }, { $group: { _id: null, x: { $sum: 1.7e308 } } }]
          })
      ],
      [
        '$round overflow',
        () =>
          app.inject({
            method: 'POST',
            url: '/aggregate/test',
            payload: [{ $project: { x: { $round: [{ $multiply: ['$yack.n', 1e10] }, 2] } } }]
          })
      ],
      [
        '$type "constructor"',
        () => app.inject({ method: 'POST', url: '/query/test', payload: { query: { foo: { $type: 'constructor' } } } })
      ],
      [
        'more than 65,535 bound values',
        () =>
          app.inject({
            method: 'POST',
            url: '/aggregate/test',
            payload: [{ $project: { x: Array.from({ length: 66_000 }, () => 0) } }]
          })
      ],
      [
        'nesting 40 levels deep',
        () => app.inject({ method: 'POST', url: '/api/test', headers, payload: { yack: deep(40) } })
      ],
      [
        'a group named constructor',
        () =>
          app.inject({
            method: 'POST',
            url: '/api/user',
            headers,
            payload: { email: 'c@example.com', password: 'pw-123456', groups: ['constructor'] }
          })
      ],
      [
        'a group named __proto__',
        () =>
          app.inject({
            method: 'POST',
            url: '/api/user',
            headers,
            payload: { email: 'p@example.com', password: 'pw-123456', groups: ['__proto__'] }
          })
      ],
      ['filter[__proto__]', () => app.inject({ method: 'GET', url: '/api/test?filter[__proto__]=x' })],
      ['filter[constructor]', () => app.inject({ method: 'GET', url: '/api/test?filter[constructor]=x' })],
      // A form parser drops these keys: the query read as empty and matched every document.
      [
        'a form query naming __proto__',
        () =>
          app.inject({
            method: 'POST',
            url: '/query/test',
            headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
            payload: 'query[__proto__][foo]=x'
          })
      ],
      [
        'a form field named toString',
        () =>
          app.inject({
            method: 'POST',
            url: '/api/test',
            headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
            payload: 'foo=y&%74oString=x'
          })
      ]
    ]
    for (const [name, send] of cases) {
      const res = await send()
      t.ok(res.statusCode >= 400 && res.statusCode < 500, `${name}: ${res.statusCode} ${res.body.slice(0, 160)}`)
      t.type(json(res as never).code, 'string', `${name}: a stable code`)
    }
    const count = json(await app.inject({ method: 'GET', url: '/count/test', headers }))
    t.equal(count.count, 1, 'nothing was stored by the refused requests')
    const users = json(await app.inject({ method: 'GET', url: '/count/user', headers }))
    t.equal(users.count, 1, 'no user with a reserved group name')
  })
}

// Found by the second audit: an aggregation's result had no bound. A 90-byte pipeline returned
// 42 MB and stalled the event loop for over a second.
for (const engine of ENGINES) {
  t.test(`an aggregation's result is bounded on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    const headers = { authorization: admin }
    const big = 'x'.repeat(700_000)
    for (let i = 0; i < 5; i++)
      await app.inject({ method: 'POST', url: '/api/test', headers, payload: { foo: `big-${i}`, shmack: [big] } })
    const aggregate = (pipeline: unknown[]) => app.inject({ method: 'POST', url: '/aggregate/test', payload: pipeline })
    const blowUp = await aggregate([{ $lookup: { from: 'test', pipeline: [], as: 'all' } }])
    t.equal(blowUp.statusCode, 400, 'five documents each carrying all five (21 MB): 400')
    t.match(json(blowUp), { code: 'QUERY_TOO_COMPLEX', message: /larger than 16 MB/ })
    const whole = await aggregate([{ $sort: { foo: -1 } }])
    t.equal(whole.statusCode, 200, 'the five documents themselves (3.5 MB) are within the bound')
    t.same(
      json(whole).data.map((doc: { foo: string; shmack: string[] }) => [doc.foo, doc.shmack[0].length]),
      [4, 3, 2, 1, 0].map(i => [`big-${i}`, 700_000]),
      "whole, in the pipeline's order"
    )
  })
}

// Found by a black-box probe: an anonymous $add of 3,000 terms ran the embedded database's stack
// out inside PostgreSQL, and looping it slowed every other client's reads from 5 to 300 ms. A pipeline's expressions
// now hold at most
// LIMITS.expressionTerms terms, and the widest allowed one evaluates on every engine.
for (const engine of ENGINES) {
  t.test(`an aggregation's expressions are bounded in width on ${engine}`, async t => {
    const { app, admin } = await createTestApp(t, engine)
    await app.inject({ method: 'POST', url: '/api/test', headers: { authorization: admin }, payload: { foo: 'x' } })
    const sumOf = (terms: number) =>
      app.inject({
        method: 'POST',
        url: '/aggregate/test',
        payload: [{ $project: { _id: 0, n: { $add: Array.from({ length: terms }, () => 1) } } }]
      })
    const wide = await sumOf(3000)
    t.equal(wide.statusCode, 400, "the probe's 3,000 terms: 400")
    t.match(json(wide), { code: 'QUERY_TOO_COMPLEX', message: new RegExp(`at most ${LIMITS.expressionTerms} terms`) })
    // The terms: _id's 0, the operator object, its list and the numbers.
    const widest = await sumOf(LIMITS.expressionTerms - 3)
    t.equal(widest.statusCode, 200, 'the widest expression allowed runs')
    t.same(json(widest).data, [{ n: LIMITS.expressionTerms - 3 }], 'and sums every term')
  })
}
