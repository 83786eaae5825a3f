// The password threads (src/auth/bcrypt-pool.ts): their hashes and comparisons are plain bcrypt's
// (a hash made there verifies with bcrypt.compareSync, one made by bcrypt.hashSync verifies
// there), and on Linux the work runs on threads of a lower priority (a higher nice value) than
// the thread that serves, so that serving goes first.
import { readdirSync, readFileSync } from 'node:fs'
import { getPriority } from 'node:os'
import t from 'tap'
import bcrypt from 'bcrypt'
import { bcryptWork } from '../../src/auth/bcrypt-pool.ts'

/** CPU time (clock ticks) this process's threads have used, split by whether they are niced (nice above 0). */
function cpuTicksByPriority(): { lowered: number; others: number } {
  const ticks = { lowered: 0, others: 0 }
  for (const thread of readdirSync('/proc/self/task')) {
    let stat: string
    try {
      stat = readFileSync(`/proc/self/task/${thread}/stat`, 'utf8')
    } catch {
      continue // the thread ended meanwhile
    }
    // proc(5): after the command in parentheses come state (field 3), ..., utime (14), stime (15), nice (19)
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const used = Number(fields[14 - 3]) + Number(fields[15 - 3])
    if (Number(fields[19 - 3]) > 0) ticks.lowered += used
    else ticks.others += used
  }
  return ticks
}

t.test('a hash made on the password threads verifies with plain bcrypt, and a wrong password does not', async t => {
  const hash = await bcryptWork.hash('correct horse', 4)
  t.match(hash, /^\$2b\$04\$/)
  t.ok(bcrypt.compareSync('correct horse', hash))
  t.notOk(bcrypt.compareSync('battery staple', hash))
})

t.test('a hash made by plain bcrypt is checked on the password threads', async t => {
  const hash = bcrypt.hashSync('correct horse', 4)
  t.equal(await bcryptWork.compare('correct horse', hash), true)
  t.equal(await bcryptWork.compare('battery staple', hash), false)
})

t.test(
  'the bcrypt work runs on threads niced below the serving one',
  {
    skip:
      (process.platform !== 'linux' && 'nice values are per thread on Linux only; elsewhere none is set') ||
      (getPriority() !== 0 && 'the tests run niced: the password threads may be no lower than the serving one')
  },
  async t => {
    await bcryptWork.hash('start a thread', 4)
    const before = cpuTicksByPriority()
    await bcryptWork.hash('a dear password', 12)
    const after = cpuTicksByPriority()
    const lowered = after.lowered - before.lowered
    const others = after.others - before.others
    t.ok(lowered > others, `CPU ticks on niced threads: ${lowered}, on the others: ${others}`)
  }
)
