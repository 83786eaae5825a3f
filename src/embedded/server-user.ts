// Who runs the embedded PostgreSQL server. PostgreSQL refuses to run as root, so a Quire
// running as root starts it as the unprivileged `postgres` user (which Debian's and most
// distributions' packages create); otherwise it runs as Quire's own user.
import { execFileSync, spawnSync } from 'node:child_process'
import { userInfo } from 'node:os'
import { StartupError } from '../startup-error.ts'

export interface ServerUser {
  name: string
  /** Set when the server runs as another user than this process (Quire is root). */
  uid?: number
  gid?: number
}

/** The unprivileged account a root Quire runs the server as. */
const SERVER_ACCOUNT = 'postgres'

function lookup(name: string): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(
      execFileSync('id', ['-u', name], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim()
    )
    const gid = Number(
      execFileSync('id', ['-g', name], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim()
    )
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined
  } catch {
    return undefined
  }
}

/** This process's user, or the `postgres` account when this process is root. */
export function serverUser(): ServerUser {
  const me = userInfo()
  if (process.platform === 'win32' || me.uid !== 0) return { name: me.username }
  const account = lookup(SERVER_ACCOUNT)
  if (account === undefined) {
    throw new StartupError(
      `running as root, and PostgreSQL refuses to run as root: create an unprivileged user ` +
        `named ${SERVER_ACCOUNT} for it (useradd --system ${SERVER_ACCOUNT}), run Quire as an unprivileged ` +
        `user, or set DATABASE_URL`
    )
  }
  return { name: SERVER_ACCOUNT, ...account }
}

/** The spawn options that run a child process as the server's user. */
export function asServerUser(user: ServerUser): { uid?: number; gid?: number } {
  return user.uid === undefined ? {} : { uid: user.uid, gid: user.gid }
}

/**
 * Whether `user` can reach `path` (every directory on the way searchable, the file itself executable or searchable).
 */
export function canReach(user: ServerUser, path: string): boolean {
  if (user.uid === undefined) return true
  return (
    spawnSync('/bin/sh', ['-c', 'test -x "$1"', 'sh', path], { ...asServerUser(user), stdio: 'ignore' }).status === 0
  )
}
