// Chooses and opens the storage engine named by DATABASE_URL (DESIGN.md section 2).
import type { Engine } from './engine.ts'
import { createSqlEngine } from './sql-engine.ts'
import { openPglite } from './pglite-client.ts'
import { openPostgres } from './postgres-client.ts'

export interface EngineOptions {
  statementTimeoutMs: number
  log?: (msg: string) => void
}

/** Opens the engine for a URL: pglite://memory, pglite://PATH, postgres(ql)://..., mongodb(+srv)://... */
export async function openEngine (url: string, options: EngineOptions): Promise<Engine> {
  const scheme = url.slice(0, url.indexOf('://'))
  switch (scheme) {
    case 'pglite': {
      const path = url.slice('pglite://'.length)
      return createSqlEngine(await openPglite(path === 'memory' ? undefined : path), options.log)
    }
    case 'postgres': case 'postgresql':
      return createSqlEngine(openPostgres(url, options.statementTimeoutMs), options.log)
    case 'mongodb': case 'mongodb+srv': {
      const { openMongoEngine } = await import('./mongo-engine.ts')
      return await openMongoEngine(url, options)
    }
    default:
      throw new Error(`DATABASE_URL must start with pglite://, postgres://, postgresql://, mongodb:// or mongodb+srv://; got ${JSON.stringify(url.replace(/\/\/[^@/]*@/, '//***@'))}`)
  }
}
