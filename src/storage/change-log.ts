// The change log every engine keeps of committed writes, as the change feed
// (src/changes) reads it: one entry per changed document, in commit order.
import type { Doc } from './engine.ts'

/** What a write did to a document: soft delete, restore and permanent delete told apart. */
export type ChangeOp = 'create' | 'update' | 'restore' | 'soft_delete' | 'permanent_delete'

/** One changed document. */
export interface StoredChange {
  /** Its position in the log: later commits have greater positions (compare with ChangeLog.compare). */
  pos: string
  model: string
  op: ChangeOp
  /** The document's _id. */
  docId: string
  /** When the writing transaction started (ISO 8601 UTC). */
  at: string
  /** The _id of the user whose request wrote it; null for anonymous requests and the service's own work. */
  actor: string | null
  /**
   * The document as stored after the write (before it, for a permanent delete), password fields
   * included; the service's internal models (names starting with "_") keep only `user_id`.
   * Null when the engine cannot know it (MongoDB without pre-images, for a permanent delete).
   */
  doc: Doc | null
}

export interface ChangeLogRetention {
  /** Entries older than this are pruned. */
  seconds: number
  /** At most this many entries are kept (the newest). */
  entries: number
}

export interface ChangeLog {
  /** Orders two positions of this log: negative when `a` comes first, 0 when equal, positive when after. */
  compare: (a: string, b: string) => number

  /** The position of the latest committed change (a position before every change when there is none). */
  head: () => Promise<string>

  /**
   * Changes after position `after`, oldest first, at most `limit` of them; 'gone' when some changes
   * after it were pruned, or when `after` is not a position this log could have given.
   */
  readAfter: (after: string, limit: number) => Promise<StoredChange[] | 'gone'>

  /**
   * Calls `deliver` with every change committed from now on (by this process or any other on the
   * same database), in position order, without gaps, one batch at a time (the next call waits for
   * the promise of the previous one). The returned function stops it.
   */
  follow: (deliver: (changes: StoredChange[]) => Promise<void>) => Promise<() => Promise<void>>

  /**
   * Where changes are announced to every listening process at once (PostgreSQL's NOTIFY): the
   * position of the last change announced to this process, once a round trip on its listening
   * connection that started after this call has come back, so every change announced before the
   * call is at or before it (and has been handed to the followers). Undefined while this process
   * listens on no connection, or on another one than when it last read the head (notices may be lost).
   */
  heard?: () => Promise<string | undefined>

  /** With `heard`: resolves once every change committed before the call has been numbered and announced. */
  announce?: () => Promise<void>

  /** Drops the entries the retention no longer covers; returns how many. */
  prune: (retention: ChangeLogRetention) => Promise<number>
}
