// A disk that fills up: the embedded default's start is one clear line (initdb's own reason),
// and a statement the full disk refuses (SQLSTATE 53100) is a 503 UNAVAILABLE saying so, never
// a 500. The start case needs a small file system, so it mounts one: as root only.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { useEmbeddedServer } from '../../src/embedded/embedded-server.ts'
import { translateSqlError } from '../../src/storage/sql/sql-engine.ts'
import { QuireError } from '../../src/errors.ts'
import { SqlError } from '../../src/storage/sql/sql-client.ts'
import { describeStartupFailure } from '../../src/startup-error.ts'

t.test('a statement refused for a full disk is 503 UNAVAILABLE, out of disk space', async t => {
  t.throws(
    () => translateSqlError(new SqlError('could not extend file "base/5/16384": No space left on device', '53100')),
    new QuireError('UNAVAILABLE', 'The database is out of disk space')
  )
})

t.test(
  "no room for a new database: one line with initdb's reason",
  { skip: userInfo().uid !== 0 && 'mounting a small file system needs root' },
  async t => {
    const parent = mkdtempSync(join(tmpdir(), 'quire-full-'))
    chmodSync(parent, 0o755)
    const small = join(parent, 'small')
    mkdirSync(small)
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0755', 'tmpfs', small], { stdio: 'pipe' })
    } catch (err) {
      rmSync(parent, { recursive: true, force: true })
      t.plan(0, `cannot mount a small tmpfs here: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`)
      return
    }
    t.teardown(() => {
      execFileSync('umount', [small])
      rmSync(parent, { recursive: true, force: true })
    })
    let line: string | undefined
    try {
      await useEmbeddedServer(join(small, 'data'), () => {})
    } catch (err) {
      line = describeStartupFailure(err)
    }
    t.match(line, /^cannot create the database in .*: initdb: .*No space left on device/)
  }
)
