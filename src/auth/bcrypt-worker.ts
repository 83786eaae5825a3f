// A thread of the bcrypt pool (bcrypt-pool.ts). A hash or a comparison is tens of ms of a whole
// core; here it runs at the lowest CPU priority, so that the scheduler always prefers the
// serving thread and the database, and passwords get only the CPU they leave (logins slow
// down only when the machine is saturated). Nice 19 rather than 10, by measurement: with 10, a
// client creating documents with a password field still raised another client's read p99
// (NICE_MEASUREMENT); at 19 a login still took NICE_LOGIN while the machine was busy.
// bcrypt's synchronous calls, so that the work runs on this thread and not on libuv's pool.
import os from 'node:os'
import bcrypt from 'bcrypt'

/** The nice value of this thread: the lowest priority there is. */
const PASSWORD_WORK_NICE = 19

// On Linux the nice value belongs to a thread (setpriority(2), NOTES: pid 0 is the calling
// thread), so this lowers this worker only. On macOS and Windows it would lower the whole
// process, the serving thread with it: there, nothing is changed.
if (process.platform === 'linux') os.setPriority(PASSWORD_WORK_NICE)

/** A password to hash at a cost, or to compare with a hash. */
export type BcryptTask = { password: string; rounds: number } | { password: string; hash: string }

/** The hash (a string) or whether the password matches (a boolean). */
export default function runBcryptTask(task: BcryptTask): string | boolean {
  return 'hash' in task ? bcrypt.compareSync(task.password, task.hash) : bcrypt.hashSync(task.password, task.rounds)
}
