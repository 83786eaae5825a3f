// The outbox in front of a slow socket: frames are written one at a time in order; what
// waits never passes the bound; passing it stops the outbox (dropping what it held) and
// reports the overflow once; a failed write stops it too.
import t from 'tap'
import { createOutbox } from '../../src/changes/transports/outbox.ts'

t.test('bounded, in order, overflow once', async t => {
  const written: string[] = []
  let release: () => void = () => {}
  const overflows: number[] = []
  const outbox = createOutbox<string>({
    maxBytes: 10,
    sizeOf: frame => frame.length,
    write: async frame => {
      written.push(frame)
      await new Promise<void>(resolve => {
        release = resolve
      })
    },
    onOverflow: () => {
      overflows.push(outbox.queuedBytes)
    },
    onError: () => {
      t.fail('no write fails here')
    }
  })
  t.ok(outbox.push('aaaa'), 'the first frame goes straight to the writer')
  t.ok(outbox.push('bbbb'), 'the next waits')
  t.ok(outbox.push('cccccc'), 'up to the bound')
  t.equal(outbox.queuedBytes, 10, 'what waits: 10 bytes')
  release()
  await new Promise(resolve => setImmediate(resolve))
  t.strictSame(written, ['aaaa', 'bbbb'], 'written one at a time, in order')
  t.notOk(outbox.push('ddddddd'), 'a frame past the bound overflows')
  t.strictSame([overflows.length, outbox.queuedBytes], [1, 0], 'reported once; what it held is dropped')
  t.notOk(outbox.push('e'), 'and it takes nothing more')
  release()
  await outbox.drained()
  t.strictSame(written, ['aaaa', 'bbbb'], 'nothing written after the overflow')
})

t.test('a frame larger than the bound still goes when nothing waits', async t => {
  const written: string[] = []
  const outbox = createOutbox<string>({
    maxBytes: 4,
    sizeOf: f => f.length,
    write: async f => {
      written.push(f)
    },
    onOverflow: () => t.fail('no overflow'),
    onError: () => {}
  })
  outbox.push('a-long-frame')
  await outbox.drained()
  outbox.push('another-long-one')
  await outbox.drained()
  t.strictSame(written, ['a-long-frame', 'another-long-one'])
})

t.test('a failed write stops the outbox', async t => {
  const errors: unknown[] = []
  const outbox = createOutbox<string>({
    maxBytes: 100,
    sizeOf: f => f.length,
    write: async () => {
      throw new Error('gone')
    },
    onOverflow: () => {},
    onError: err => {
      errors.push(err)
    }
  })
  outbox.push('x')
  outbox.push('y')
  await outbox.drained()
  t.equal(errors.length, 1, 'reported once')
  t.notOk(outbox.push('z'), 'stopped')
})

t.test('with coalesce, what waits while a write runs goes as one frame, in order', async t => {
  const written: string[] = []
  let release: () => void = () => {}
  const outbox = createOutbox<string>({
    maxBytes: 100,
    sizeOf: frame => frame.length,
    write: async frame => {
      written.push(frame)
      await new Promise<void>(resolve => {
        release = resolve
      })
    },
    coalesce: frames => frames.join('|'),
    onOverflow: () => t.fail('no overflow'),
    onError: () => t.fail('no write fails here')
  })
  for (const frame of ['a', 'b', 'c', 'd']) outbox.push(frame)
  t.equal(outbox.queuedBytes, 3, 'the first is being written; three wait')
  release()
  await new Promise(resolve => setImmediate(resolve))
  t.strictSame(written, ['a', 'b|c|d'], 'the three that waited, joined into one write')
  t.equal(outbox.queuedBytes, 0, 'nothing waits')
  outbox.push('e')
  release()
  await new Promise(resolve => setImmediate(resolve))
  release()
  await outbox.drained()
  t.strictSame(written, ['a', 'b|c|d', 'e'], 'a lone frame goes as it is')
})
