// Raw TCP for the attacks of the one-against-all scenario: they send what no polite client sends
// (requests never read, bodies never finished, WebSocket frames never answered), which node:http
// does not allow, from any loopback address (Linux accepts every 127.x.y.z as a local address).
import { connect, type Socket } from 'node:net'

export interface AttackSpec {
  /** The server, e.g. http://127.0.0.1:41234 */
  url: string
  seconds: number
  /** The one seeded document the reader reads and pinned reads name. */
  documentId: string
  /** The plain user's session token and credentials (creates, Basic logins). */
  token: string
  email: string
  password: string
}

/** What an attack did, by name (connections opened, requests sent, refusals seen...). */
export type AttackCounts = Record<string, number>

export interface AttackRun {
  spec: AttackSpec
  counts: AttackCounts
  /** True until the attack's time is up. */
  running: () => boolean
  /** Settles when the attack's time is up. */
  over: Promise<void>
}

export type Attack = (run: AttackRun) => Promise<void>

export function count(counts: AttackCounts, name: string, n = 1): void {
  counts[name] = (counts[name] ?? 0) + n
}

export const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** A connection to the server from `localAddress` (default: 127.0.0.1); undefined when it cannot be made. */
export function openSocket(spec: AttackSpec, localAddress?: string): Promise<Socket | undefined> {
  const { hostname, port } = new URL(spec.url)
  return new Promise(resolve => {
    const socket = connect({ host: hostname, port: Number(port), localAddress })
    socket.on('error', () => resolve(undefined))
    socket.once('connect', () => resolve(socket))
  })
}

/** Settles when the socket is closed (by either side). */
export function closed(socket: Socket): Promise<void> {
  return new Promise(resolve => {
    if (socket.destroyed) resolve()
    else socket.once('close', () => resolve())
  })
}

/** Writes `data`, waiting while the socket's buffer is full: false when the socket closed or the attack ended first. */
export async function writeWhole(socket: Socket, data: string | Buffer, over: Promise<void>): Promise<boolean> {
  if (socket.destroyed) return false
  if (socket.write(data)) return true
  await new Promise<void>(resolve => {
    const settle = (): void => {
      socket.off('drain', settle)
      socket.off('close', settle)
      resolve()
    }
    socket.on('drain', settle)
    socket.on('close', settle)
    void over.then(settle)
  })
  return !socket.destroyed && !socket.writableNeedDrain
}

/** The first bytes the server sends (a status line); the socket then reads nothing more; '' if it closed first. */
export function firstReply(socket: Socket): Promise<string> {
  return new Promise(resolve => {
    socket.once('data', chunk => {
      socket.pause()
      resolve(chunk.toString('latin1'))
    })
    socket.once('close', () => resolve(''))
  })
}

/** The request head of `method path` with `headers` (Host added). */
export function requestHead(method: string, path: string, headers: Record<string, string> = {}): string {
  const lines = Object.entries({ host: 'localhost', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`)
  return `${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`
}

/** Runs `loop` on `n` parallel lanes until the attack is over. */
export async function lanes(run: AttackRun, n: number, loop: (lane: number) => Promise<void>): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async (_, lane) => {
      while (run.running()) await loop(lane)
    })
  )
}
