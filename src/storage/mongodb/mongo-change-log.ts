// The ChangeLog of the MongoDB engine: the server's own change stream over the
// database, which sees every write (this process's, other processes', the shell's).
// Positions are resume tokens; the retention window is the server's oplog. Change
// streams need a replica set or a sharded cluster: on a standalone server, and on FerretDB v1
// (which has none), the feed answers 503 CHANGES_UNAVAILABLE. MongoDB does not record who wrote: `actor` is null.
import { MongoServerError, type ChangeStreamOptions, type Db, type Document } from 'mongodb'
import type { ChangeLog, ChangeOp, StoredChange } from '../change-log.ts'
import type { Doc } from '../engine.ts'
import { QuireError } from '../../errors.ts'
import type { MongoCapabilities } from './mongo-capabilities.ts'

/** ChangeStreamHistoryLost, ChangeStreamFatalError, InvalidResumeToken, BadValue, FailedToParse. */
const GONE_CODES = [286, 280, 260, 2, 9]
/** The $changeStream stage is only supported on replica sets. */
const NOT_A_REPLICA_SET = 40573
const TOKEN = /^[0-9A-Fa-f]{2,1024}$/
const MODEL_COLLECTIONS = [
  { $match: { 'ns.coll': { $regex: '^q_' }, operationType: { $in: ['insert', 'update', 'replace', 'delete'] } } }
]

function opOf(event: Document): ChangeOp {
  if (event.operationType === 'insert') return 'create'
  if (event.operationType === 'delete') return 'permanent_delete'
  const before = event.fullDocumentBeforeChange as Doc | undefined
  const deleted =
    event.operationType === 'replace'
      ? (event.fullDocument as Doc | null)?._deleted
      : event.updateDescription?.updatedFields?._deleted
  if (deleted === true && before?._deleted !== true) return 'soft_delete'
  if (deleted === false && before?._deleted !== false) return 'restore'
  return 'update'
}

/** A change event as a StoredChange; internal models (names starting with "_") keep only `user_id`. */
function changeOf(event: Document): StoredChange {
  const model = String(event.ns.coll).slice(2)
  let doc = (event.operationType === 'delete' ? event.fullDocumentBeforeChange : event.fullDocument) as
    | Doc
    | null
    | undefined
  if (doc && model.startsWith('_')) doc = 'user_id' in doc ? { user_id: doc.user_id } : {}
  const at = event.wallTime instanceof Date ? event.wallTime : new Date(Number(event.clusterTime?.high ?? 0) * 1000)
  return {
    pos: String(event._id._data),
    model,
    op: opOf(event),
    docId: String(event.documentKey._id),
    at: at.toISOString(),
    actor: null,
    doc: doc ?? null
  }
}

function unavailable(err: unknown): never {
  if (err instanceof MongoServerError && err.code === NOT_A_REPLICA_SET) {
    throw new QuireError(
      'CHANGES_UNAVAILABLE',
      'Change feeds on MongoDB need a replica set or a sharded cluster (change streams)'
    )
  }
  throw err
}

/** The change log of a server without change streams (FerretDB v1; a standalone MongoDB): every read answers 503. */
function unavailableLog(caps: MongoCapabilities): ChangeLog {
  const refuse = async (): Promise<never> => {
    const why = caps.ferretdb
      ? `${caps.server} has no change streams`
      : `${caps.server} is not a replica set, and change streams need one`
    throw new QuireError('CHANGES_UNAVAILABLE', `Change feeds on MongoDB need change streams: ${why}`)
  }
  return {
    compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    head: refuse,
    readAfter: refuse,
    follow: refuse,
    prune: async () => 0
  }
}

export async function createMongoChangeLog(
  db: Db,
  caps: MongoCapabilities,
  log: (msg: string) => void
): Promise<ChangeLog> {
  if (!caps.changeStreams) return unavailableLog(caps)
  const { preImages } = caps
  const options = (extra: ChangeStreamOptions = {}): ChangeStreamOptions => ({
    fullDocument: 'updateLookup',
    ...(preImages && { fullDocumentBeforeChange: 'whenAvailable' }),
    ...extra
  })

  return {
    compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    head: async () => {
      const stream = db.watch(MODEL_COLLECTIONS, options())
      try {
        await stream.tryNext()
        return String((stream.resumeToken as { _data: string })._data)
      } catch (err) {
        return unavailable(err)
      } finally {
        await stream.close()
      }
    },
    readAfter: async (after, limit) => {
      if (!TOKEN.test(after)) return 'gone'
      const stream = db.watch(MODEL_COLLECTIONS, options({ resumeAfter: { _data: after } }))
      const changes: StoredChange[] = []
      try {
        for (let event = await stream.tryNext(); event; event = changes.length < limit ? await stream.tryNext() : null)
          changes.push(changeOf(event))
        return changes
      } catch (err) {
        if (err instanceof MongoServerError && GONE_CODES.includes(Number(err.code))) return 'gone'
        return unavailable(err)
      } finally {
        await stream.close()
      }
    },
    follow: async deliver => {
      const stream = db.watch(MODEL_COLLECTIONS, options())
      const first = await stream.tryNext().catch(unavailable)
      if (first) await deliver([changeOf(first)])
      const done = (async () => {
        for await (const event of stream) await deliver([changeOf(event)])
      })().catch(err => {
        if (!stream.closed) log(`the MongoDB change stream stopped: ${(err as Error).message}`)
      })
      return async () => {
        await stream.close()
        await done
      }
    },
    // The oplog is the retention window; the server prunes it.
    prune: async () => 0
  }
}
