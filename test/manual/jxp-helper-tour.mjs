// Drives a running Quire (`npm start`) with jxp-helper, JXP's npm client, calling every one of
// its methods as a JXP script would, and prints what each returned. Exits 1 if any result is not
// what JXP gives (Quire's code in `quire_code` under JXP_COMPAT, where `code` is restify's). Usage (the first admin is
// created through /setup when no user exists yet):
// SERVER=http://localhost:3000 ADMIN_EMAIL=admin@example.com ADMIN_PASSWORD=change-me node
// test/manual/jxp-helper-tour.mjs
import JXPHelper from 'jxp-helper'

const server = process.env.SERVER ?? 'http://localhost:3000'
const email = process.env.ADMIN_EMAIL ?? 'admin@example.com'
const password = process.env.ADMIN_PASSWORD ?? 'change-me'
const run = Date.now().toString(36)

async function postJson(path, body) {
  const res = await fetch(`${server}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body)
  })
  return { status: res.status, body: await res.json() }
}

await postJson('/setup', { email, password }) // 409 once an admin exists: fine
const session = await postJson('/login', { email, password })
if (session.status !== 200) throw new Error(`cannot log in as ${email}: ${JSON.stringify(session.body)}`)
const admin = new JXPHelper({ server, apikey: session.body.apikey, hideErrors: true })
const anonymous = new JXPHelper({ server, hideErrors: true })

let failed = 0
/** Runs one method call; `check` says whether the result (or thrown body) is JXP's. */
async function step(name, call, check, show = r => JSON.stringify(r)) {
  let result
  let threw = false
  try {
    result = await call()
  } catch (err) {
    result = err
    threw = true
  }
  const ok = check(result, threw)
  if (!ok) failed++
  const text = (threw ? 'threw ' : '') + show(result)
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(18)} ${text.length > 150 ? text.slice(0, 147) + '...' : text}`)
  return result
}

const bobEmail = `bob-${run}@example.com`
const bob = await step(
  'post (a user)',
  () => admin.post('user', { email: bobEmail, password: 'bob-password' }),
  r => r.status === 'ok'
)
await step(
  'login',
  () => admin.login(bobEmail, 'bob-password'),
  r => r.data?.user_id === bob.data._id && r.user?.data?.email === bobEmail
)
const link = await step(
  'post',
  () => admin.post('link', { name: `link ${run}`, val: 1 }),
  r => r.message === 'link created'
)
const doc = await step(
  'post',
  () =>
    admin.post('test', { foo: `foo ${run}`, bar: 'b', link_id: link.data._id, yack: { s: 'x', n: 1 }, shmack: ['a'] }),
  r => r.data?.link_id === link.data._id
)
const id = doc.data._id
await step(
  'getOne',
  () => anonymous.getOne('test', id, { populate: 'link' }),
  r => r.data?.link?.name === `link ${run}`
)
await step(
  'get',
  () =>
    anonymous.get('test', { 'filter[foo]': `foo ${run}`, limit: 10, sort: '-createdAt', count: 'true', _: Date.now() }),
  r => r.count === 1 && r.data[0]._id === id
)
await step(
  'count',
  () => anonymous.count('test', { 'filter[foo]': `foo ${run}` }),
  r => r === 1
)
await step(
  'query',
  () => anonymous.query('test', { foo: `foo ${run}`, createdAt: { $gte: 'relative_date(-1, "days")' } }),
  r => r.count === 1
)
await step(
  'aggregate',
  () =>
    anonymous.aggregate('test', [{ $match: { _id: `ObjectId("${id}")` } }, { $project: { _id: 0, foo: 1 } }], {
      allowDiskUse: true
    }),
  r => r.data?.[0]?.foo === `foo ${run}`
)
await step(
  'csv',
  () => anonymous.csv('test', { 'filter[foo]': `foo ${run}` }),
  r => typeof r === 'string' && r.startsWith('_id,foo,bar') && r.includes(id),
  r => JSON.stringify(r)
)
await step(
  'put',
  () => admin.put('test', id, { bar: 'edited' }),
  r => r.data?.bar === 'edited'
)
await step(
  'postput',
  () => admin.postput('test', 'foo', { foo: `pp ${run}`, bar: 'one' }),
  r => r.message === 'test created'
)
await step(
  'postput',
  () => admin.postput('test', 'foo', { foo: `pp ${run}`, bar: 'two' }),
  r => r.message === 'test updated' && r.data.bar === 'two'
)
await step(
  'bulk',
  () =>
    admin.bulk('link', [
      { insertOne: { document: { name: `bulk ${run}` } } },
      { updateOne: { filter: { name: `bulk ${run}` }, update: { $set: { val: 2 } } } }
    ]),
  r => r.nInserted === 1 && r.nModified === 1 && r.data?.nInserted === 1
)
await step(
  'bulk_post',
  () => admin.bulk_post('link', [{ name: `bp1 ${run}` }, { name: `bp2 ${run}` }]),
  r => r.nInserted === 2
)
await step(
  'bulk_put',
  () => admin.bulk_put('link', 'name', [{ name: `bp1 ${run}`, val: 10 }]),
  r => r.nModified === 1
)
await step(
  'bulk_postput',
  () =>
    admin.bulk_postput('link', 'name', [
      { name: `bp2 ${run}`, val: 20 },
      { name: `bp3 ${run}`, val: 30 }
    ]),
  r => r.nModified === 1 && r.nUpserted === 1
)
await step(
  'put_all',
  () => admin.put_all('link', { val: 99 }),
  r => r.status === 'ok' && r.nMatched === r.nModified
)
await step(
  'call',
  () => anonymous.call('test', 'test', {}),
  r => r === 'Testing OKAY!'
)
await step(
  'groups_put',
  () => admin.groups_put(bob.data._id, ['editors', 'sales']),
  r => r.groups?.join() === 'editors,sales'
)
await step(
  'groups_post',
  () => admin.groups_post(bob.data._id, 'writers'),
  r => r.groups?.join() === 'writers'
)
await step(
  'groups_del',
  () => admin.groups_del(bob.data._id, 'writers'),
  r => r.groups?.length === 0
)
await step(
  'getjwt',
  () => admin.getjwt(bobEmail),
  r => r.status === 'ok' && r.email === bobEmail && r.token === r.jwt
)
await step(
  'model',
  () => anonymous.model('test'),
  r => r.foo?.instance === 'String' && r.link_id?.options?.link === 'link',
  r => JSON.stringify({ foo: r.foo, link_id: r.link_id })
)
await step(
  'models',
  () => anonymous.models(),
  r => r.some(m => m.model === 'test') && !r.some(m => m.model === 'user'),
  r => JSON.stringify(r.map(m => m.model))
)
await step(
  'del (linked)',
  () => admin.del('link', link.data._id),
  (r, threw) =>
    threw && (r.quire_code ?? r.code) === 'REFERENCED' && r.message === 'Parent link item exists in test/link_id'
)
await step(
  'del_cascade',
  () => admin.del_cascade('link', link.data._id),
  r => r.message === `link/${link.data._id} deleted`
)
await step(
  'getOne (cascaded)',
  () => admin.getOne('test', id, { showDeleted: 1 }),
  r => r.data?._deleted === true
)
await step(
  'del_perm',
  () => admin.del_perm('test', id),
  r => r.status === 'ok'
)
await step(
  'getOne (gone)',
  () => admin.getOne('test', id, { showDeleted: 1 }),
  (r, threw) => threw && (r.quire_code ?? r.code) === 'DOCUMENT_NOT_FOUND'
)
const parent = await admin.post('link', { name: `parent ${run}` })
const child = await admin.post('test', { foo: `child ${run}`, array_link_id: [parent.data._id] })
await step(
  'del_perm_cascade',
  () => admin.del_perm_cascade('link', parent.data._id),
  r => r.status === 'ok'
)
await step(
  'getOne (gone)',
  () => admin.getOne('test', child.data._id, { showDeleted: 1 }),
  (r, threw) => threw && (r.quire_code ?? r.code) === 'DOCUMENT_NOT_FOUND'
)
await step(
  'del',
  () => admin.del('user', bob.data._id),
  r => r.status === 'ok'
)

console.log(failed ? `${failed} result(s) differ from JXP's` : 'every method did what JXP does')
process.exit(failed ? 1 : 0)
