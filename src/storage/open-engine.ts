// Chooses and opens the storage engine named by DATABASE_URL (DESIGN.md section 2). The embedded
// default is a PostgreSQL server like any other once src/embedded/ has started it.
import { availableParallelism } from 'node:os'
import type { Engine } from './engine.ts'
import { createSqlEngine } from './sql/sql-engine.ts'
import type { Config } from '../config.ts'
import { openPostgres } from './postgres/postgres-client.ts'

/** The Config fields the engines read (config.ts documents them); unset ones take the engine's defaults. */
export interface EngineOptions
  extends Partial<
    Pick<Config, 'pgPoolSize' | 'quickStatementMs' | 'expensiveQuerySlots' | 'expensiveQuerySlotsPerClient' | 'workers'>
  > {
  statementTimeoutMs: number
  log?: (msg: string) => void
}

/** Opens the engine for a URL: postgres(ql)://..., mongodb(+srv)://... */
export async function openEngine(url: string, options: EngineOptions): Promise<Engine> {
  const scheme = url.slice(0, url.indexOf('://'))
  switch (scheme) {
    case 'postgres':
    case 'postgresql': {
      const limits = {
        poolSize: options.pgPoolSize,
        quickStatementMs: options.quickStatementMs,
        expensiveSlots: options.expensiveQuerySlots,
        expensiveSlotsPerClient: options.expensiveQuerySlotsPerClient,
        // The embedded server, like the shipped compose.yaml's, runs on this host: all its cores but one
        // (left to Quire and to simple statements), shared among the workers.
        databaseCores: Math.max(1, Math.floor((availableParallelism() - 1) / (options.workers ?? 1)))
      }
      return createSqlEngine(openPostgres(url, options.statementTimeoutMs, limits), options.log)
    }
    case 'mongodb':
    case 'mongodb+srv': {
      const { openMongoEngine } = await import('./mongodb/mongo-engine.ts')
      return await openMongoEngine(url, options)
    }
    default:
      throw new Error(
        `DATABASE_URL must start with postgres://, postgresql://, mongodb:// or mongodb+srv://; ` +
          `got ${JSON.stringify(url.replace(/\/\/[^@/]*@/, '//***@'))}`
      )
  }
}
