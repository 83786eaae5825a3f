// Numbers every committed change from a test, whoever else numbers in the same database.
import { setTimeout as sleep } from 'node:timers/promises'
import type { ChangeSequencer } from '../../src/storage/sql/changes/sql-change-sequencer.ts'

/**
 * Runs `sequencer.sequenceAll()` until it returns 'done', and returns how many times it found
 * another sequencer numbering. 'busy' only means that another sequencer of the same database (an
 * engine's own numbering round after a write, which a loaded machine may delay into the test's)
 * holds the numbering lock for a round; once that round ends, the next call gets the lock and
 * numbers whatever is still left. So 'done' means, as it always does, that every change committed
 * before the call has its position.
 */
export async function sequenceUntilDone(sequencer: ChangeSequencer): Promise<number> {
  let busy = 0
  while ((await sequencer.sequenceAll()) === 'busy') {
    busy++
    await sleep(20)
  }
  return busy
}
