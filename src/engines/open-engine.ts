// Chooses and opens the storage engine named by DATABASE_URL (DESIGN.md section 2).
import type { Engine } from './engine.ts'
import { createSqlEngine } from './sql-engine.ts'
import { openPglite, type PgliteOptions } from './pglite-client.ts'
import { startPgliteHousekeeping } from './pglite-housekeeping.ts'
import type { Config } from '../config.ts'
import { openPostgres } from './postgres-client.ts'

/** The Config fields the engines read (config.ts documents them); unset ones take the engine's defaults. */
export interface EngineOptions extends Partial<Pick<Config, 'pgPoolSize' | 'quickStatementMs' | 'expensiveQuerySlots' | 'expensiveQuerySlotsPerClient' | 'pgliteExpensiveTimeoutMs' | 'pgliteRecycleMb' | 'pgliteOverrunCooldownMs'>> {
  statementTimeoutMs: number
  log?: (msg: string) => void
}

function pgliteOptions (options: EngineOptions): Partial<PgliteOptions> {
  return {
    statementTimeoutMs: options.statementTimeoutMs,
    ...(options.pgliteExpensiveTimeoutMs !== undefined && { expensiveTimeoutMs: options.pgliteExpensiveTimeoutMs }),
    ...(options.pgliteRecycleMb !== undefined && { recycleBytes: options.pgliteRecycleMb * 1048576 }),
    ...(options.pgliteOverrunCooldownMs !== undefined && { overrunCooldownMs: options.pgliteOverrunCooldownMs }),
    ...(options.log && { log: options.log })
  }
}

/** Opens the engine for a URL: pglite://memory, pglite://PATH, postgres(ql)://..., mongodb(+srv)://... */
export async function openEngine (url: string, options: EngineOptions): Promise<Engine> {
  const scheme = url.slice(0, url.indexOf('://'))
  switch (scheme) {
    case 'pglite': {
      const path = url.slice('pglite://'.length)
      const client = await openPglite(path === 'memory' ? undefined : path, pgliteOptions(options))
      const engine = createSqlEngine(client, options.log)
      const housekeeping = startPgliteHousekeeping(client, options.log ?? (() => {}))
      return { ...engine, close: async () => { await housekeeping.stop(); await engine.close() } }
    }
    case 'postgres': case 'postgresql': {
      const limits = { poolSize: options.pgPoolSize, quickStatementMs: options.quickStatementMs, expensiveSlots: options.expensiveQuerySlots, expensiveSlotsPerClient: options.expensiveQuerySlotsPerClient }
      return createSqlEngine(openPostgres(url, options.statementTimeoutMs, limits), options.log)
    }
    case 'mongodb': case 'mongodb+srv': {
      const { openMongoEngine } = await import('./mongo-engine.ts')
      return await openMongoEngine(url, options)
    }
    default:
      throw new Error(`DATABASE_URL must start with pglite://, postgres://, postgresql://, mongodb:// or mongodb+srv://; got ${JSON.stringify(url.replace(/\/\/[^@/]*@/, '//***@'))}`)
  }
}
