// A free TCP port on the loopback interface: taken from the system, then released, for a
// server started next (a throwaway PostgreSQL cluster, a child Quire in tests and the bench).
import { createServer } from 'node:net'

/** A TCP port on 127.0.0.1 that nothing listens on (taken, then released). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
