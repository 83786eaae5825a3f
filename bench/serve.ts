// The Quire server under test (child process): the real app from buildApp,
// configured from the environment like `npm start`, on 127.0.0.1 and a free port.
import { buildApp } from '../app.ts'
import { loadConfig } from '../src/config.ts'
import { serveUntilStopped } from './child-server.ts'

const app = await buildApp({ config: loadConfig(process.env) })
await app.listen({ host: '127.0.0.1', port: 0 })
serveUntilStopped((app.server.address() as { port: number }).port, () => app.close())
