// A TCP proxy in front of a PostgreSQL server, to take the database away from
// an app and give it back without stopping the server: 'forward' passes bytes
// through, 'refuse' closes the port, 'blackhole' accepts connections and never
// answers. Switching mode cuts every open connection. New connections can be made to wait
// before they reach the server (a slow network), leaving open ones as they are.
import { createServer, connect, type Server, type Socket } from 'node:net'

type ProxyMode = 'forward' | 'refuse' | 'blackhole'

export interface TcpProxy {
  port: number
  /** The target URL with its host and port replaced by the proxy's. */
  url: string
  setMode: (mode: ProxyMode) => Promise<void>
  /** Connections opened from now on reach the server `ms` late (what the client sends meanwhile waits). */
  delayNewConnections: (ms: number) => void
  /** How many chunks of bytes clients have sent through so far (one per write of a small message batch). */
  chunksFromClients: () => number
  /** How many connections clients have opened to the proxy so far, in any mode. */
  connectionsFromClients: () => number
  close: () => Promise<void>
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port))
  })
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl)
  const sockets = new Set<Socket>()
  let mode: ProxyMode = 'forward'
  let connectDelayMs = 0
  let chunks = 0
  let connections = 0
  const track = (socket: Socket): void => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const server = createServer(client => {
    connections++
    track(client)
    if (mode !== 'forward') return
    const forward = (): void => {
      if (client.destroyed) return
      const upstream = connect(Number(target.port), target.hostname)
      track(upstream)
      client.on('data', () => {
        chunks++
      })
      client.pipe(upstream).pipe(client)
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
    }
    if (connectDelayMs > 0) setTimeout(forward, connectDelayMs)
    else forward()
  })
  const port = await listen(server, 0)
  const cut = (): void => {
    for (const socket of sockets) socket.destroy()
  }
  return {
    port,
    url: targetUrl.replace(`${target.hostname}:${target.port}`, `127.0.0.1:${port}`),
    setMode: async next => {
      cut()
      if (next === 'refuse' && server.listening) await new Promise(resolve => server.close(resolve))
      if (next !== 'refuse' && !server.listening) await listen(server, port)
      mode = next
    },
    delayNewConnections: ms => {
      connectDelayMs = ms
    },
    chunksFromClients: () => chunks,
    connectionsFromClients: () => connections,
    close: async () => {
      cut()
      if (server.listening) await new Promise(resolve => server.close(resolve))
    }
  }
}
