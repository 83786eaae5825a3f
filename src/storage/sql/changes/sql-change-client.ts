// A SqlClient that hands the acting user's id to the change-capture trigger in the
// write's own statement (or transaction), and tells the change log that something may
// have been written. Every write path of the SQL engines goes through it.
import type { SqlClient } from '../sql-client.ts'
import { ACTOR_SETTING } from '../../../compiler/ddl/change-capture-ddl.ts'

const WRITE_STATEMENT = /^\s*(INSERT|UPDATE|DELETE)\b/i
const QUOTED = /'(?:[^']|'')*'|"(?:[^"]|"")*"/g
const SET_ACTOR = `SELECT set_config('${ACTOR_SETTING}', $1, true)`

/** A parameter list without its first element (the SqlClient methods' optional trailing options). */
type Rest<P extends unknown[]> = P extends [unknown, ...infer R] ? R : []

export interface ChangeClientHooks {
  /** The acting user's id for the statement about to run (undefined: none). */
  actor: () => string | undefined
  /** Called after a statement or transaction that may have written has finished. */
  wrote: () => void
}

/**
 * One statement that sets the actor for the trigger (a setting local to the statement's
 * transaction) and then writes: the write becomes a data-modifying WITH, and the setting is
 * evaluated by the main query, before any AFTER trigger fires. The rows returned are unchanged.
 */
function withActorStatement(text: string, actorParam: string): string {
  const returns = /\bRETURNING\b/i.test(text.replace(QUOTED, ''))
  const setting = `(SELECT set_config('${ACTOR_SETTING}', ${actorParam}, true) AS v) quire_actor`
  return returns
    ? `WITH quire_write AS (${text}) SELECT quire_write.* FROM quire_write, ${setting}`
    : `WITH quire_write AS (${text}) SELECT 1 FROM ${setting} WHERE quire_actor.v IS NULL`
}

export function withChangeActor(client: SqlClient, hooks: ChangeClientHooks): SqlClient {
  return {
    ...client,
    query: async (...args: Parameters<SqlClient['query']>) => {
      const [text, values = []] = args
      if (!WRITE_STATEMENT.test(text)) return await client.query(...args)
      const actor = hooks.actor()
      try {
        if (actor === undefined) return await client.query(...args)
        const rest = args.slice(2) as Rest<Rest<Parameters<SqlClient['query']>>>
        return await client.query(withActorStatement(text, `$${values.length + 1}`), [...values, actor], ...rest)
      } finally {
        hooks.wrote()
      }
    },
    transaction: async <T>(
      work: (tx: SqlClient) => Promise<T>,
      ...rest: Rest<Parameters<SqlClient['transaction']>>
    ): Promise<T> => {
      const actor = hooks.actor()
      try {
        return await client.transaction(
          async tx => {
            if (actor !== undefined) await tx.query(SET_ACTOR, [actor])
            return await work(tx)
          },
          ...rest
        )
      } finally {
        hooks.wrote()
      }
    }
  }
}
