// Stands in for JXP's test/init.js (same exports): the users it writes through Mongoose are
// created through Quire's API instead: POST /setup for the admin, POST /api/user for the other.
// Emptying removes every test document and every user (the admin last), as JXP's does.
'use strict'
const api = require('./quire-api')

const email = 'test@freespeechpub.co.za'
const password = 'test'
const admin_email = 'admin@freespeechpub.co.za'
const admin_password = 'SecretPassword'
api.remember(admin_email, admin_password)
api.remember(email, password)

async function empty_user_collections() {
  const admin = await api.findAdmin()
  if (!admin) return
  await api.removeAll('test', admin)
  await api.removeAll('user', admin, { except: admin.id })
  await api.ok('DELETE', `/api/user/${admin.id}?_permaDelete=1`, { auth: admin })
}

async function init() {
  const admin = await api.findAdmin()
  if (admin) await api.call('GET', '/cache/clear', { auth: admin })
  await empty_user_collections()
  const setup = await api.ok('POST', '/setup', { body: { email: admin_email, password: admin_password } })
  const adminAuth = { email: admin_email, password: admin_password }
  const adminId = setup.data?._id ?? setup._id ?? (await api.call('POST', '/login', { body: adminAuth })).body.user_id
  await api.ok('PUT', `/api/user/${adminId}`, { body: { name: 'Admin User' }, auth: adminAuth })
  await api.create('user', { name: 'Test User', email, password })
  return true
}

module.exports = { init, empty_user_collections, email, password, admin_email, admin_password }
