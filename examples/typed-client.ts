// A typed Quire client: the types generated from /openapi.json by openapi-typescript, the calls
// made by openapi-fetch. Logs in, creates a `test` document, lists with a filter, reads it back.
import createClient from 'openapi-fetch'
import type { paths } from './quire-api.js'

const baseUrl = process.env.API_URL ?? 'http://localhost:3000'
const client = createClient<paths>({ baseUrl })

const login = await client.POST('/login', { body: { email: 'admin@example.com', password: 'change-me' } })
if (!login.data) throw new Error(`login: ${login.error?.message}`)
const token = login.data.token
client.use({
  onRequest: ({ request }) => {
    request.headers.set('authorization', `Bearer ${token}`)
  }
})

const created = await client.POST('/api/test', { body: { foo: 'hello', shmack: ['a', 'b'], yack: { s: 'x', n: 3 } } })
if (!created.data?.data) throw new Error(`create: ${created.error?.message}`)
const id = created.data.data._id

const list = await client.GET('/api/test', {
  params: { query: { filter: { foo: 'hello' }, sort: '-createdAt', limit: 10 } }
})
if (!list.data) throw new Error(`list: ${list.error?.message}`)
console.log(`${list.data.count} test documents with foo=hello; the newest: ${list.data.data[0]?._id}`)

const read = await client.GET('/api/test/{id}', { params: { path: { id } } })
if (!read.data) throw new Error(`read: ${read.error?.message}`)
console.log(`read back ${read.data.data._id}: foo=${read.data.data.foo}, yack.n=${read.data.data.yack?.n}`)
