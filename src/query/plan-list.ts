// The plan of a list read besides its query: the page (its size, the default when none is asked
// and capped at the maximum, and where it starts) and how the answer's `count` is made. The
// `count` parameter (after PostgREST's `Prefer: count=exact|planned|estimated`): unset, or JXP's
// flag values (true, 1, false, 0), the contract's default, exact while the collection holds at
// most EXACT_COUNT_LIMIT documents and -1 above; `exact`: counted whatever the size (O(matching
// rows), within STATEMENT_TIMEOUT_MS); `planned`: the query planner's estimate (no scan; labelled);
// `estimated`: exact up to the limit, the planner's estimate above it (labelled).
import type { Page } from '../permissions/authorize/authorize-read.ts'
import type { Engine } from '../storage/engine.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import type { ListParams } from './parse-list-params.ts'
import { QuireError } from '../errors.ts'

export const COUNT_MODES = ['exact', 'planned', 'estimated'] as const

export type CountMode = (typeof COUNT_MODES)[number]

const FLAGS = new Set(['true', 'false', '1', '0', ''])

/** The count mode a `count` parameter asks for; undefined for the default. */
export function parseCountMode(text: string | string[] | undefined): CountMode | undefined {
  if (text === undefined || (typeof text === 'string' && FLAGS.has(text))) return undefined
  if (typeof text === 'string' && (COUNT_MODES as readonly string[]).includes(text)) return text as CountMode
  throw new QuireError(
    'BAD_REQUEST',
    `count must be exact, planned or estimated (or left out: exact up to EXACT_COUNT_LIMIT documents, -1 above)`
  )
}

export interface PageSettings {
  defaultPageSize: number
  maxPageSize: number
}

export interface ListPage extends Page {
  page: number
  /** The client asked for more than the maximum (the reply says `limit_capped`). */
  limitCapped: boolean
}

/** The page a list read's parameters ask for, within the settings; no count (planCount decides). */
export function planPage(params: ListParams, settings: PageSettings): ListPage {
  const limitCapped = params.limit !== undefined && params.limit > settings.maxPageSize
  const limit = Math.min(params.limit ?? settings.defaultPageSize, settings.maxPageSize)
  return { limit, skip: (params.page - 1) * limit + params.skip, count: false, page: params.page, limitCapped }
}

export interface CountSettings {
  /** The collection's size estimate (cachedEstimates). */
  estimate: () => Promise<number>
  exactCountLimit: number
}

/**
 * How a list's count is made: exactly, by the planner, or not at all (-1). By default, and for
 * count=estimated, exactly while the collection is at most EXACT_COUNT_LIMIT documents (its O(1)
 * size estimate says); above it not at all, or by the planner for count=estimated (which cannot
 * estimate a full-text search).
 */
export async function planCount(
  mode: CountMode | undefined,
  searching: boolean,
  settings: CountSettings
): Promise<'exact' | 'planned' | 'none'> {
  if (mode === 'planned' && searching)
    throw new QuireError(
      'BAD_REQUEST',
      "count=planned cannot estimate a full-text search's matches: use count=exact, or leave count out"
    )
  if (mode === 'exact' || mode === 'planned') return mode
  if ((await settings.estimate()) <= settings.exactCountLimit) return 'exact'
  return mode === 'estimated' && !searching ? 'planned' : 'none'
}

const ESTIMATE_TTL_MS = 5000

/** engine.estimateCount, each model's answer kept for a few seconds: one per process. */
export function cachedEstimates(
  engine: Engine,
  registry: ModelRegistry,
  now: () => number = Date.now
): (modelName: string) => Promise<number> {
  const cache = new Map<string, { n: number; at: number }>()
  return async modelName => {
    const hit = cache.get(modelName)
    if (hit && now() - hit.at < ESTIMATE_TTL_MS) return hit.n
    const n = await engine.estimateCount(registry.get(modelName))
    cache.set(modelName, { n, at: now() })
    return n
  }
}
