// Every method of jxp-helper 1.4 (JXP's npm client), used unchanged against a Quire
// listening on a real port, on PostgreSQL: each does what JXP does.
// The helper throws a failed request's response body; `failure` catches it.
import t from 'tap'
import { wideEngines } from '../../helpers/test-app.ts'
import { startJxpServer } from '../../helpers/jxp-server.ts'

async function failure(promise: Promise<unknown>): Promise<Record<string, any>> {
  try {
    await promise
  } catch (err) {
    return err as Record<string, any>
  }
  throw new Error('the request succeeded')
}

for (const engine of wideEngines()) {
  t.test(`jxp-helper against Quire on ${engine}`, async t => {
    const server = await startJxpServer(t, engine)
    const admin = server.helper(server.adminUser.apikey)
    const alice = await server.user('alice@example.com', 'alice-password')
    const asAlice = server.helper(alice.apikey)
    const anonymous = server.helper()
    const ids: Record<string, string> = {}

    await t.test('login', async t => {
      const { data, user } = await admin.login('alice@example.com', 'alice-password')
      t.equal(data.user_id, alice.id, 'the login reply')
      t.equal(data.apikey, alice.apikey, "the user's permanent API key")
      t.match(data, { token: String, token_expires: String, refresh_token: String, refresh_token_expires: String })
      t.equal(user.data.email, 'alice@example.com', "and the user record, read with the helper's key")
      t.notOk('password' in user.data, 'without the password hash')
      t.equal(
        (await asAlice.login('alice@example.com', 'alice-password')).user.data._id,
        alice.id,
        'a user may read their own record'
      )
      const keyless = await anonymous.login('alice@example.com', 'alice-password')
      t.match(
        keyless,
        { status: 'fail', code: 'AUTH_REQUIRED' },
        'without a key (apikey=undefined) the user record cannot be read: the helper returns that reply, as with JXP'
      )
      t.match(
        await admin.login('alice@example.com', 'wrong'),
        { status: 'fail', message: 'Authentication failed' },
        'a wrong password: the failure body'
      )
    })

    await t.test('post, getOne, get, count', async t => {
      const link = await asAlice.post('link', { name: 'first link', val: 1 })
      t.match(link, { status: 'ok', message: 'link created', data: { name: 'first link' } })
      ids.link = link.data._id
      const doc = await asAlice.post('test', {
        foo: 'alpha',
        bar: 'b1',
        link_id: ids.link,
        yack: { s: 'x', n: 1 },
        shmack: ['a', 'b'],
        password: 'pw-secret'
      })
      t.match(doc, { status: 'ok', message: 'test created', data: { foo: 'alpha', _owner_id: alice.id } })
      t.notOk('password' in doc.data)
      ids.alpha = doc.data._id
      t.match(
        await failure(asAlice.post('test', { bar: 'Throw an error' })),
        { code: 'REFUSED', message: "I'm a teapot" },
        "the model's hook refuses, as JXP's sample model does"
      )
      t.match(
        await failure(anonymous.post('test', { foo: 'x' })),
        { code: 'AUTH_REQUIRED' },
        'anonymous callers cannot create'
      )

      const one = await anonymous.getOne('test', ids.alpha, { populate: 'link' })
      t.match(
        one.data,
        { _id: ids.alpha, foo: 'alpha', link: { _id: ids.link, name: 'first link' } },
        'getOne with populate'
      )
      t.match(await failure(anonymous.getOne('test', '0123456789abcdef01234567')), { code: 'DOCUMENT_NOT_FOUND' })

      const list = await anonymous.get('test', {
        'filter[foo]': 'alpha',
        limit: 10,
        sort: '-foo',
        count: 'true',
        _: Date.now(),
        autopopulate: 1
      })
      t.match(
        list,
        { count: 1, limit: 10, page: 1, data: [{ _id: ids.alpha, link: { name: 'first link' } }] },
        "get with JXP's habits: count=true, a cache buster, autopopulate=1"
      )
      t.equal((await admin.get('test', { showDeleted: 1 })).count, 1, 'showDeleted=1')
      t.equal(await anonymous.count('test', { 'filter[foo]': 'alpha' }), 1, 'count')
      t.equal(await anonymous.count('test', { 'filter[foo]': 'nothing' }), 0)
    })

    await t.test("query and aggregate, with JXP's literal strings", async t => {
      const recent = await anonymous.query(
        'test',
        { $and: [{ foo: { $regex: 'ALP', $options: 'i' } }, { createdAt: { $gte: 'relative_date(-1,"days")' } }] },
        { limit: 5 }
      )
      t.match(recent, { count: 1, data: [{ _id: ids.alpha }] }, 'relative_date(...)')
      t.equal(
        (await anonymous.query('test', { createdAt: { $lt: 'new Date("2000-01-01T00:00:00.000Z")' } })).count,
        0,
        'new Date(...)'
      )
      const grouped = await anonymous.aggregate(
        'test',
        [{ $match: { _id: `ObjectId("${ids.alpha}")` } }, { $project: { _id: 0, foo: 1 } }],
        { allowDiskUse: true }
      )
      t.same(grouped, { data: [{ foo: 'alpha' }] }, 'aggregate with ObjectId(...) and allowDiskUse')
      t.match(
        await failure(anonymous.query('test', { createdAt: { $gt: 'new Date("yesterday")' } })),
        { code: 'INVALID_QUERY' },
        'a literal that does not parse is a 400, never an empty success'
      )
    })

    await t.test('csv', async t => {
      const csv = await anonymous.csv('test', { 'filter[foo]': 'alpha' })
      const [header, row, end] = csv.split('\r\n')
      t.ok(
        header.startsWith(
          '_id,foo,bar,shmack,yack.s,yack.n,fulltext,link_id,other_link_id,array_link_id,' +
            '_deleted,_owner_id,createdAt,updatedAt,__v'
        ),
        header
      )
      t.ok(row.startsWith(`${ids.alpha},alpha,b1,"[""a"",""b""]",x,1,`), row)
      t.equal(end, '', 'one row, CRLF line ends')
      t.notOk(csv.includes('password') || csv.includes('$2'), 'no password column, no hash')
    })

    await t.test('put and postput', async t => {
      t.match(await asAlice.put('test', ids.alpha, { bar: 'b2' }), {
        status: 'ok',
        message: 'test updated',
        data: { bar: 'b2', foo: 'alpha' }
      })
      const read = (await asAlice.getOne('test', ids.alpha)).data
      t.match(
        await asAlice.put('test', ids.alpha, { ...read, bar: 'b3' }),
        { data: { bar: 'b3' } },
        'a document read back and PUT by its owner'
      )
      const created = await asAlice.postput('test', 'foo', { foo: 'upserted', bar: 'one' })
      t.match(created, { message: 'test created', data: { bar: 'one' } }, 'postput creates when nothing has the key')
      const updated = await asAlice.postput('test', 'foo', { foo: 'upserted', bar: 'two' })
      t.match(
        updated,
        { message: 'test updated', data: { _id: created.data._id, bar: 'two' } },
        'and updates when something has it'
      )
      ids.upserted = created.data._id
    })

    await t.test('bulk, bulk_post, bulk_put, bulk_postput, put_all', async t => {
      const bulk = await admin.bulk('test', [
        { insertOne: { document: { foo: 'bulk1' } } },
        { updateOne: { filter: { foo: 'bulk1' }, update: { $set: { bar: 'x' } } } }
      ])
      t.match(
        bulk,
        {
          status: 'ok',
          nInserted: 1,
          nModified: 1,
          data: { ok: 1, nInserted: 1, nModified: 1, insertedIds: [{ index: 0, _id: String }] }
        },
        "bulk: Quire's counts and JXP's data"
      )
      t.match(
        await admin.bulk_post('link', [
          { name: 'bp1', val: 1 },
          { name: 'bp2', val: 2 }
        ]),
        { nInserted: 2, data: { nInserted: 2 } }
      )
      t.match(
        await admin.bulk_put('link', 'name', [{ name: 'bp1', val: 10 }]),
        { nMatched: 1, nModified: 1 },
        'bulk_put: updates without operators'
      )
      const postput = await admin.bulk_postput('link', 'name', [
        { name: 'bp2', val: 20 },
        { name: 'bp3', val: 30 }
      ])
      t.match(
        postput,
        { nModified: 1, nUpserted: 1, data: { nUpserted: 1, upserted: [{ index: 1, _id: String }] } },
        'bulk_postput: update one, upsert the other'
      )
      const links = (await admin.get('link', { sort: 'name' })).data.map((l: Record<string, unknown>) => [
        l.name,
        l.val
      ])
      t.same(links, [
        ['bp1', 10],
        ['bp2', 20],
        ['bp3', 30],
        ['first link', 1]
      ])
      t.match(await admin.put_all('link', { val: 99 }), { nMatched: 4, nModified: 4 }, 'put_all')
      t.same(
        (await admin.get('link')).data.map((l: Record<string, unknown>) => l.val),
        [99, 99, 99, 99]
      )
    })

    await t.test('call', async t => {
      t.equal(await anonymous.call('test', 'test', {}), 'Testing OKAY!', 'a method the model exposes')
      t.match(
        await failure(anonymous.call('test', 'constructor', {})),
        { code: 'UNKNOWN_METHOD' },
        'not a method it exposes: 404'
      )
    })

    await t.test('groups_put, groups_post, groups_del', async t => {
      t.same(await admin.groups_put(alice.id, ['editors', 'sales']), {
        status: 'ok',
        user_id: alice.id,
        groups: ['editors', 'sales']
      })
      t.same((await admin.groups_put(alice.id, 'ops')).groups, ['editors', 'sales', 'ops'], 'adds one')
      t.same((await admin.groups_post(alice.id, ['writers'])).groups, ['writers'], 'replaces them')
      t.same((await admin.groups_del(alice.id, 'writers')).groups, [], 'removes one')
      t.match(await failure(asAlice.groups_put(alice.id, 'admins')), { code: 'FORBIDDEN' }, 'admins only')
    })

    await t.test('getjwt', async t => {
      const minted = await admin.getjwt('alice@example.com')
      t.match(
        minted,
        { status: 'ok', email: 'alice@example.com', jwt: String, token: minted.jwt },
        "JXP's email and token, Quire's jwt"
      )
      const res = await fetch(`${server.url}/api/user/${alice.id}?jwt=${minted.token}`)
      t.equal(res.status, 200, 'the token logs the user in through a URL')
      t.match(await failure(asAlice.getjwt('alice@example.com')), { code: 'FORBIDDEN' }, 'admins only')
    })

    await t.test('model and models', async t => {
      const names = (await anonymous.models()).map((m: { model: string }) => m.model).sort()
      t.same(names, ['link', 'test'], 'what an anonymous caller may use')
      t.ok(
        (await admin.models()).some((m: { model: string }) => m.model === 'user'),
        'admins see the user model too'
      )
      const paths = await anonymous.model('test')
      t.match(paths.foo, { path: 'foo', instance: 'String' })
      t.match(paths.link_id, { instance: 'ObjectID', options: { link: 'link', map_to: 'link' } })
      t.match(paths['yack.n'], { instance: 'Number' })
      t.match(paths.password, { instance: 'String' })
      t.notOk('defaultValue' in paths.password)
      t.match(await failure(anonymous.model('user')), { code: 'AUTH_REQUIRED' })
    })

    await t.test('del, del_cascade, del_perm, del_perm_cascade', async t => {
      t.match(
        await failure(asAlice.del('link', ids.link)),
        { code: 'REFERENCED', message: 'Parent link item exists in test/link_id' },
        'a document other documents link to'
      )
      t.equal((await anonymous.getOne('link', ids.link)).data._id, ids.link, 'is still there')
      t.same(
        await asAlice.del_cascade('link', ids.link),
        { status: 'ok', message: `link/${ids.link} deleted` },
        'del_cascade'
      )
      t.match(
        await failure(anonymous.getOne('test', ids.alpha)),
        { code: 'DOCUMENT_NOT_FOUND' },
        'the linking document went with it'
      )
      t.equal((await admin.getOne('test', ids.alpha, { showDeleted: 1 })).data._deleted, true, 'soft-deleted')
      t.same(
        await admin.del_perm('test', ids.alpha),
        { status: 'ok', message: `test/${ids.alpha} deleted` },
        'del_perm, also of a soft-deleted document'
      )
      t.match(
        await failure(admin.getOne('test', ids.alpha, { showDeleted: 1 })),
        { code: 'DOCUMENT_NOT_FOUND' },
        'gone for good'
      )
      t.same(await asAlice.del('test', ids.upserted), { status: 'ok', message: `test/${ids.upserted} deleted` }, 'del')
      const parent = (await asAlice.post('link', { name: 'parent' })).data._id
      const child = (await asAlice.post('test', { foo: 'child', array_link_id: [parent] })).data._id
      t.same(
        await asAlice.del_perm_cascade('link', parent),
        { status: 'ok', message: `link/${parent} deleted` },
        'del_perm_cascade'
      )
      t.match(
        await failure(admin.getOne('test', child, { showDeleted: 1 })),
        { code: 'DOCUMENT_NOT_FOUND' },
        'removed with its link'
      )
      t.match(await failure(anonymous.del('test', child)), { code: 'AUTH_REQUIRED' })
    })
  })
}
