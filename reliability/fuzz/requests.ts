// The fuzz's requests, route by route (routes/*.ts), their bodies from the
// route schemas (schemas/*.ts) and the models. Two modes: "hostile" requests
// are reads of any kind plus writes that must be refused (each carries a defect:
// a caller without the right, an unknown model, a bad id, a body the model
// refuses, a bulk operation that fails), so that stored data must not change;
// "valid" requests add writes that should succeed, at the bounds of the models.
import { EmailBody, ResetBody, SetupBody } from '../../schemas/auth.ts'
import type { Model } from '../../src/models/model-definition.ts'
import type { HttpRequest } from '../http-client.ts'
import type { Choice } from './random-choice.ts'
import { obj, toJsonText, type Json } from './json-text.ts'
import { basic, credentials, extraHeaders, headerSafe, type CallerKind, type Identities } from './callers.ts'
import { defectiveDocument, validDocument, type KnownIds } from './documents.ts'
import { filter, update } from './mongo-filters.ts'
import { pipeline } from './pipelines.ts'
import { encode, queryString, segment } from './query-params.ts'
import { schemaBody } from './schema-bodies.ts'

export type FuzzMode = 'hostile' | 'valid'

export interface FuzzRequest extends HttpRequest {
  /** Which builder made it, e.g. "list", "create-defect". */
  family: string
  /** A request that may change stored data when it succeeds. */
  write: boolean
}

export interface FuzzTarget {
  models: Model[]
  ids: KnownIds
  identities: Identities
  onPassword: (password: string) => void
}

type Build = () => FuzzRequest

const JSON_TYPE = { 'content-type': 'application/json' }
/** Model names that are not a model: unknown, internal, a table's name, wrong case, escaped oddities. */
const ODD_MODEL_NAMES = ['nosuchmodel', '_credential', 'q_test', 'User', 'test%20', 'test%00', 't%C3%A9st']
const NOT_HEX_IDS = [
  '0',
  'x',
  '6650c0ffee',
  '6650c0ffee0000000000abcdz',
  '6650C0FFEE0000000000ABCD',
  '../user',
  '%2e%2e',
  '__proto__'
]

interface Kit {
  c: Choice
  target: FuzzTarget
  modelNames: string[]
  model: () => Model
  caller: () => CallerKind
  /** A known id of the model (or, now and then, a hostile one). */
  id: (model: string) => string
  /** An id no document has, or one that is not an id. */
  missingId: () => string
  json: (body: Json) => string
  req: Req
  withQuery: (path: string, m: Model) => string
}

function createKit(c: Choice, target: FuzzTarget): Kit {
  const { models, ids, identities } = target
  const req: Req = (family, write, method, path, who, body, headers = {}) => {
    const inUrl = (who === 'user' || who === 'admin') && c.chance(0.1)
    const url = inUrl ? `${path}${path.includes('?') ? '&' : '?'}apikey=${identities[who].apikey}` : path
    return {
      family,
      write,
      method,
      path: url,
      body,
      headers: {
        ...extraHeaders(c),
        ...(body !== undefined && JSON_TYPE),
        ...(inUrl ? {} : credentials(c, who, identities)),
        ...headers
      }
    }
  }
  return {
    c,
    target,
    req,
    modelNames: models.map(m => m.name),
    model: () => c.pick(models),
    caller: () => c.pick(['anonymous', 'user', 'admin', 'garbage']),
    id: name =>
      c.chance(0.8) && ids[name]?.length ? c.pick(ids[name]) : segment(c, [...NOT_HEX_IDS, 'ffffffffffffffffffffffff']),
    missingId: () => c.pick(['ffffffffffffffffffffffff', '000000000000000000000000', ...NOT_HEX_IDS]),
    json: body => toJsonText(body),
    withQuery: (path, m) => {
      const qs = queryString(c, m)
      return qs ? `${path}?${qs}` : path
    }
  }
}

/** Reads of every kind, by every kind of caller: any status but a 5xx is fine, nothing may change. */
function readFamilies(k: Kit): Array<readonly [number, Build]> {
  const { c, target, req, model, caller, id, json, withQuery, modelNames } = k
  const { models, identities } = target
  return [
    [
      25,
      () => {
        const m = model()
        return req('list', false, 'GET', withQuery(`/api/${segment(c, modelNames)}`, m), caller())
      }
    ],
    [
      8,
      () => {
        const m = model()
        return req('read', false, 'GET', withQuery(`/api/${m.name}/${id(m.name)}`, m), caller())
      }
    ],
    [
      6,
      () => {
        const m = model()
        return req('count', false, 'GET', withQuery(`/count/${segment(c, modelNames)}`, m), caller())
      }
    ],
    [
      12,
      () => {
        const m = model()
        const body = c.chance(0.9) ? json(obj([['query', filter(c, m)]])) : json(c.value())
        return req('query', false, 'POST', withQuery(`/query/${segment(c, modelNames)}`, m), caller(), body)
      }
    ],
    [
      12,
      () => {
        const m = model()
        const stages = pipeline(c, m, models)
        const body = c.weighted<Json>([
          [8, () => stages],
          [1, () => obj([['query', stages]])],
          [1, () => c.value()]
        ])
        return req(
          'aggregate',
          false,
          'POST',
          `/aggregate/${segment(c, modelNames)}${c.chance(0.1) ? '?showDeleted=true' : ''}`,
          caller(),
          json(body)
        )
      }
    ],
    [
      3,
      () => {
        const known = { email: [identities.admin.email, identities.user.email] }
        return c.chance(0.5)
          ? req('recover', false, 'POST', '/login/recover', caller(), json(schemaBody(c, EmailBody, known)))
          : req('getjwt', false, 'POST', '/login/getjwt', caller(), json(schemaBody(c, EmailBody, known)))
      }
    ],
    [2, () => req('meta', false, 'GET', c.pick(['/health', '/ready', `/users/${id('user')}/groups`]), caller())]
  ]
}

/** Writes that must be refused: each carries a defect (caller, model, id, body or operation). */
function refusedWriteFamilies(k: Kit): Array<readonly [number, Build]> {
  const { c, target, req, model, caller, id, missingId, json, modelNames } = k
  const { models, ids, identities } = target
  return [
    [
      8,
      () => {
        const m = model()
        return c.weighted<FuzzRequest>([
          [
            3,
            () =>
              req('create-defect', true, 'POST', `/api/${m.name}`, 'admin', json(defectiveDocument(c, m, ids, false)))
          ],
          [
            1,
            () =>
              req(
                'create-anonymous',
                true,
                'POST',
                `/api/${c.pick(['test', 'link', 'kinds', 'user'])}`,
                'anonymous',
                json(validDocument(c, m, ids, () => {}))
              )
          ],
          [
            1,
            () =>
              req(
                'create-forbidden',
                true,
                'POST',
                `/api/${c.pick(['kinds', 'user'])}`,
                'user',
                json(validDocument(c, models.find(x => x.name === 'kinds') ?? m, ids, () => {}))
              )
          ],
          [
            1,
            () =>
              req(
                'create-no-model',
                true,
                'POST',
                `/api/${segment(c, ODD_MODEL_NAMES)}`,
                'admin',
                json(validDocument(c, m, ids, () => {}))
              )
          ]
        ])
      }
    ],
    [
      6,
      () => {
        const m = model()
        return c.weighted<FuzzRequest>([
          [
            3,
            () =>
              req(
                'update-defect',
                true,
                'PUT',
                `/api/${m.name}/${id(m.name)}`,
                'admin',
                json(defectiveDocument(c, m, ids, true))
              )
          ],
          [
            1,
            () =>
              req(
                'update-anonymous',
                true,
                'PUT',
                `/api/${m.name}/${id(m.name)}`,
                'anonymous',
                json(validDocument(c, m, ids, () => {}, true))
              )
          ],
          [
            1,
            () =>
              req(
                'update-forbidden',
                true,
                'PUT',
                `/api/kinds/${id('kinds')}`,
                'user',
                json(obj([['title', 'changed by a reader']]))
              )
          ],
          [
            1,
            () =>
              req(
                'update-missing',
                true,
                'PUT',
                `/api/${m.name}/${missingId()}`,
                'admin',
                json(validDocument(c, m, ids, () => {}, true))
              )
          ]
        ])
      }
    ],
    [
      3,
      () =>
        c.weighted<FuzzRequest>([
          [
            1,
            () => {
              const m = model()
              return req('delete-anonymous', true, 'DELETE', `/api/${m.name}/${id(m.name)}`, 'anonymous')
            }
          ],
          [1, () => req('delete-forbidden', true, 'DELETE', `/api/kinds/${id('kinds')}`, 'user')],
          [1, () => req('delete-missing', true, 'DELETE', `/api/${segment(c, modelNames)}/${missingId()}`, 'admin')]
        ])
    ],
    [
      8,
      () => {
        const m = model()
        const sound = validBulkOps(c, m, target, c.int(0, 4))
        const bad = c.weighted<Json[]>([
          [3, () => [...sound, obj([['insertOne', obj([['document', defectiveDocument(c, m, ids, false)]])]])]],
          [2, () => [...sound, obj([[c.pick(['insertMany', 'drop', 'foo', '$where', '__proto__x', '']), obj([])]])]],
          [1, () => [...sound, c.value()]],
          [
            1,
            () =>
              Array.from({ length: 1001 }, () => obj([['deleteOne', obj([['filter', obj([['_id', missingId()]])]])]]))
          ]
        ])
        const who: CallerKind = c.chance(0.8) ? 'admin' : 'anonymous'
        return req('bulk-defect', true, 'POST', `/bulkwrite/${m.name}`, who, json(bad))
      }
    ],
    [
      6,
      () =>
        c.weighted<FuzzRequest>([
          [
            3,
            () =>
              req(
                'login-wrong',
                true,
                'POST',
                '/login',
                'anonymous',
                json(
                  obj([
                    ['email', c.pick([identities.user.email, identities.admin.email, c.string()])],
                    ['password', c.string()]
                  ])
                )
              )
          ],
          [
            1,
            () =>
              req('login-basic-wrong', true, 'POST', '/login', 'anonymous', undefined, {
                authorization: basic(identities.user.email, headerSafe(c.string()))
              })
          ],
          [2, () => req('refresh-garbage', true, 'POST', '/refresh', 'garbage')],
          [
            1,
            () =>
              req(
                'logout-garbage',
                true,
                c.pick(['GET', 'POST']),
                '/login/logout',
                c.pick<CallerKind>(['anonymous', 'garbage'])
              )
          ],
          [1, () => req('jwt-garbage', true, 'GET', `/login/jwt?jwt=${encode(c.string())}`, 'anonymous')],
          [1, () => req('reset-garbage', true, 'POST', '/login/reset', 'anonymous', json(schemaBody(c, ResetBody)))],
          [
            1,
            () =>
              req(
                'setup-again',
                true,
                'POST',
                '/setup',
                caller(),
                json(schemaBody(c, SetupBody, { email: [identities.user.email] }))
              )
          ],
          [
            1,
            () =>
              req(
                'groups-refused',
                true,
                c.pick(['POST', 'DELETE']),
                `/users/${id('user')}/groups${c.chance(0.5) ? '/editors' : ''}`,
                c.pick<CallerKind>(['user', 'anonymous', 'garbage']),
                json(obj([['group', 'editors']]))
              )
          ],
          [
            1,
            () =>
              req(
                'groups-invalid',
                true,
                'POST',
                `/users/${id('user')}/groups`,
                'admin',
                json(
                  obj([
                    ['group', c.pick<Json>(['admin', 'all', 'owner', 'user', '', 'x y', 'x'.repeat(65), [], obj([])])]
                  ])
                )
              )
          ]
        ])
    ],
    [3, () => junk(c, req)]
  ]
}

/** Writes that should succeed: valid documents at the bounds of the models, by callers with the right. */
function validWriteFamilies(k: Kit): Array<readonly [number, Build]> {
  const { c, target, req, id, json } = k
  const { models, ids } = target
  return [
    [
      10,
      () => {
        const m = c.pick(models.filter(x => x.name !== 'user'))
        const who: CallerKind = m.name === 'kinds' || c.chance(0.5) ? 'admin' : 'user'
        return req(
          `create-${m.name}`,
          true,
          'POST',
          `/api/${m.name}`,
          who,
          json(validDocument(c, m, ids, target.onPassword))
        )
      }
    ],
    [
      6,
      () => {
        const m = c.pick(models.filter(x => x.name !== 'user'))
        return req(
          `update-${m.name}`,
          true,
          'PUT',
          `/api/${m.name}/${id(m.name)}`,
          'admin',
          json(validDocument(c, m, ids, target.onPassword, true))
        )
      }
    ],
    [
      2,
      () => {
        const m = c.pick(models.filter(x => x.name !== 'user'))
        return req('delete', true, 'DELETE', `/api/${m.name}/${id(m.name)}`, 'admin')
      }
    ],
    [
      5,
      () => {
        const m = c.pick(models.filter(x => x.name !== 'user'))
        return req('bulk', true, 'POST', `/bulkwrite/${m.name}`, 'admin', json(validBulkOps(c, m, target, c.int(1, 6))))
      }
    ],
    [
      1,
      () =>
        req(
          'groups',
          true,
          c.pick(['POST', 'DELETE']),
          `/users/${id('user')}/groups${c.chance(0.5) ? '' : '/editors'}`,
          'admin',
          json(obj([['group', c.pick(['editors', 'readers', 'g-1'])]]))
        )
    ]
  ]
}

export function createRequestGenerator(c: Choice, target: FuzzTarget, mode: FuzzMode): Build {
  const kit = createKit(c, target)
  const families = [...readFamilies(kit), ...(mode === 'hostile' ? refusedWriteFamilies(kit) : validWriteFamilies(kit))]
  return () => c.weighted(families)
}

/** Bulk operations that are sound on their own (ids the fuzz knows; a valid document or update). */
function validBulkOps(c: Choice, m: Model, target: FuzzTarget, count: number): Json[] {
  const known = target.ids[m.name] ?? []
  const byId = (): Json => obj([['_id', known.length ? c.pick(known) : 'ffffffffffffffffffffffff']])
  const doc = (partial: boolean): Json => validDocument(c, m, target.ids, target.onPassword, partial)
  return Array.from({ length: count }, () =>
    c.weighted<Json>([
      [3, () => obj([['insertOne', obj([['document', doc(false)]])]])],
      [
        3,
        () =>
          obj([
            [
              'updateOne',
              obj([
                ['filter', byId()],
                ['update', obj([['$set', doc(true)]])]
              ])
            ]
          ])
      ],
      [
        1,
        () =>
          obj([
            [
              'updateMany',
              obj([
                ['filter', filter(c, m)],
                ['update', update(c, m, () => doc(true))]
              ])
            ]
          ])
      ],
      [
        1,
        () =>
          obj([
            [
              'replaceOne',
              obj([
                ['filter', byId()],
                ['replacement', doc(false)]
              ])
            ]
          ])
      ],
      [1, () => obj([['deleteOne', obj([['filter', byId()]])]])]
    ])
  )
}

type Req = (
  family: string,
  write: boolean,
  method: string,
  path: string,
  who: CallerKind,
  body?: string,
  headers?: Record<string, string>
) => FuzzRequest

/** Requests that are wrong before any route runs: unknown routes and methods, bodies that are not what they claim. */
/**
 * Whether a request with `method` would change something if it were accepted (OPTIONS only describes a route: 204 with
 * Allow).
 */
const changes = (method: string): boolean => !['GET', 'HEAD', 'OPTIONS'].includes(method)

function junk(c: Choice, req: Req): FuzzRequest {
  const method = (methods: string[]): [boolean, string] => {
    const m = c.pick(methods)
    return [changes(m), m]
  }
  // A valid Basic header logs in whatever the body holds (JXP's /login reads the header when the
  // body has no credentials), so a malformed body sent to /login is a refused write only without one.
  const post = (name: string, paths: string[], body: string, headers?: Record<string, string>): FuzzRequest => {
    const path = c.pick(paths)
    return req(name, true, 'POST', path, path === '/login' ? 'anonymous' : 'admin', body, headers)
  }
  return c.weighted<FuzzRequest>([
    [
      2,
      () =>
        req(
          'no-route',
          ...method(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']),
          c.pick([
            '/',
            '/api',
            '/api/',
            '/admin',
            '/.env',
            '/api/test/x/y',
            '/%2e%2e/%2e%2e/etc/passwd',
            `/${'a'.repeat(5000)}`
          ]),
          c.pick<CallerKind>(['anonymous', 'admin'])
        )
    ],
    [
      2,
      () => req('patch', ...method(['PATCH', 'OPTIONS']), '/api/test/ffffffffffffffffffffffff', 'admin', '{"foo":"x"}')
    ],
    [
      1,
      () =>
        req(
          'wrong-method',
          true,
          c.pick(['PUT', 'DELETE', 'PATCH']),
          c.pick(['/login', '/refresh', '/setup', '/count/test', '/aggregate/test']),
          'admin',
          '{}'
        )
    ],
    [
      3,
      () =>
        post(
          'bad-json',
          ['/api/test', '/query/test', '/aggregate/test', '/bulkwrite/test', '/login'],
          c.pick([
            '{',
            '{"foo":',
            '{"foo":"x"}}',
            '[1,2',
            'nul',
            '{"foo":"\\u00"}',
            '{"__proto__":{"admin":true}}',
            '{"constructor":{"prototype":{"admin":true}}}',
            '\u0000',
            ''
          ])
        )
    ],
    [
      2,
      () =>
        post('content-type', ['/api/test', '/login', '/query/test'], '{"nosuchfield":"x"}', {
          'content-type': c.pick([
            'text/plain',
            'application/xml',
            'multipart/form-data; boundary=x',
            'application/json; charset=latin1',
            'application/x-www-form-urlencoded',
            '',
            'application/jsonx',
            'application/json, text/plain'
          ])
        })
    ],
    [
      1,
      () =>
        req(
          'form',
          true,
          'POST',
          c.pick(['/api/test', '/api/kinds']),
          'anonymous',
          `foo=${encode(c.string())}&count=abc&__proto__=x`,
          { 'content-type': 'application/x-www-form-urlencoded' }
        )
    ],
    [
      1,
      () =>
        req(
          'too-large',
          true,
          'POST',
          c.pick(['/api/test', '/bulkwrite/test', '/aggregate/test']),
          'admin',
          `{"foo":"${'x'.repeat(1_100_000)}"}`
        )
    ]
  ])
}
