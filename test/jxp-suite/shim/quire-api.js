// The HTTP calls that stand in for JXP's direct Mongoose writes in its tests (init.js, and the
// `Test`/`User` models the tests save and empty): they go through Quire's API as an admin.
'use strict'

const BASE = process.env.JXP_SUITE_URL

async function call(method, path, { body, auth } = {}) {
  const headers = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (auth) headers.authorization = 'Basic ' + Buffer.from(`${auth.email}:${auth.password}`).toString('base64')
  const res = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  let json = null
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: res.status, body: json }
}

/** Like call(), but throws unless the answer is 200. */
async function ok(method, path, options) {
  const res = await call(method, path, options)
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`)
  return res.body
}

/** The users the JXP tests know; the first that is an admin does the harness's writes. */
const known = []
function remember(email, password) {
  if (!known.some(k => k.email === email && k.password === password)) known.push({ email, password })
}

async function findAdmin() {
  for (const auth of known) {
    const login = await call('POST', '/login', { body: auth })
    if (login.status !== 200) continue
    const me = await call('GET', `/api/user/${login.body.user_id}`, { auth })
    if (me.status === 200 && me.body.data.admin === true) return { ...auth, id: login.body.user_id }
  }
  return null
}

async function adminOrThrow() {
  const admin = await findAdmin()
  if (!admin) throw new Error('jxp-suite: no admin among the users the tests created')
  return admin
}

/** Every document of `model`, deleted ones too, removed for good. */
async function removeAll(model, admin, { except } = {}) {
  for (;;) {
    const list = await ok('GET', `/api/${model}?showDeleted=1&limit=1000&fields=_id`, { auth: admin })
    const ids = list.data.map(d => d._id).filter(id => id !== except)
    if (ids.length === 0) return
    for (const id of ids) await ok('DELETE', `/api/${model}/${id}?_permaDelete=1&_cascade=1`, { auth: admin })
  }
}

async function create(model, data) {
  const admin = await adminOrThrow()
  const res = await ok('POST', `/api/${model}`, { body: data, auth: admin })
  return res.data
}

module.exports = { call, ok, remember, findAdmin, adminOrThrow, removeAll, create }
