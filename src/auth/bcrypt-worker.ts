// A thread of the bcrypt pool (bcrypt-pool.ts). A hash or a comparison is tens of ms of a whole
// core; here it runs at a low CPU priority (nice 10), so that the scheduler prefers the serving
// thread and the database, and passwords get little more than the CPU they leave: logins slow
// down only when the machine is saturated. Nice 10 rather than 19, by measurement on 2 cores:
// both kept a reader's p99 where it was while another client created documents with a password
// field (at nice 0 it more than doubled), but with both cores saturated by other work a login
// took about 0.5 s at 10 and 3.5 s at 19 (a nice-19 thread gets about 1.5% of a contended core,
// a nice-10 one about 10%). bcrypt's synchronous calls, so that the work runs on this thread.
import os from 'node:os'
import bcrypt from 'bcrypt'

/** The nice value of this thread (0 is the default, 19 the lowest priority). */
const PASSWORD_WORK_NICE = 10

// On Linux the nice value belongs to a thread (setpriority(2), NOTES: pid 0 is the calling
// thread), so this lowers this worker only. On macOS and Windows it would lower the whole
// process, the serving thread with it: there, nothing is changed. A process started niced
// further keeps its value (raising a priority needs privileges).
if (process.platform === 'linux' && os.getPriority() < PASSWORD_WORK_NICE) os.setPriority(PASSWORD_WORK_NICE)

/** A password to hash at a cost, or to compare with a hash. */
export type BcryptTask = { password: string; rounds: number } | { password: string; hash: string }

/** The hash (a string) or whether the password matches (a boolean). */
export default function runBcryptTask(task: BcryptTask): string | boolean {
  return 'hash' in task ? bcrypt.compareSync(task.password, task.hash) : bcrypt.hashSync(task.password, task.rounds)
}
