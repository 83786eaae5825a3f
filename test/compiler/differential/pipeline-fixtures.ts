// Fixtures of the aggregation differential test: a seeded random generator, the two
// collections, the mingo reference run (ISO date strings read as dates) and result comparison.
import { Aggregator } from 'mingo/aggregator'
import { Context, evalExpr } from 'mingo/core'
import * as accumulator from 'mingo/operators/accumulator'
import * as expression from 'mingo/operators/expression'
import * as pipeline from 'mingo/operators/pipeline'
import * as projection from 'mingo/operators/projection'
import * as query from 'mingo/operators/query'

import { QuireError } from '../../../src/errors.ts'
import type { FieldKindLookup, Filter } from '../../../src/query/types.ts'
import { compilePipeline, type PipelineContext } from '../../../src/compiler/pipeline/compile-pipeline.ts'
import { quoteIdent, type SqlValue } from '../../../src/compiler/sql-text.ts'
import { checkPipeline } from '../../../src/validation/check-pipeline.ts'

export type Doc = Record<string, unknown>

export interface Rng {
  next: () => number
  int: (min: number, max: number) => number
  pick: <T>(items: readonly T[]) => T
  chance: (p: number) => boolean
}

/** mulberry32: a small deterministic generator, so every run sees the same data and pipelines. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  return { next, int, pick: items => items[int(0, items.length - 1)], chance: p => next() < p }
}

export const CATEGORIES = ['a', 'b', 'c', 'd'] as const
export const WORDS = ['alpha', 'Beta', 'gamma', 'Delta', 'eps', 'Zeta', 'eta'] as const
export const TAGS = ['red', 'green', 'blue', 'x'] as const

function hexId(prefix: string, k: number): string {
  return prefix + k.toString(16).padStart(24 - prefix.length, '0')
}

function isoDate(rng: Rng): string {
  return new Date(
    Date.UTC(
      rng.int(2019, 2024),
      rng.int(0, 11),
      rng.int(1, 28),
      rng.int(0, 23),
      rng.int(0, 59),
      rng.int(0, 59),
      rng.int(0, 999)
    )
  ).toISOString()
}

/** Sets `key` with probability `p` (the field is missing otherwise). */
function maybe(doc: Doc, rng: Rng, key: string, p: number, value: () => unknown): void {
  if (rng.chance(p)) doc[key] = value()
}

function mixedValue(rng: Rng): unknown {
  const r = rng.next()
  if (r < 0.45) return rng.int(-20, 20)
  if (r < 0.65) return Math.round(rng.next() * 4000 - 2000) / 100
  if (r < 0.8) return null
  if (r < 0.9) return rng.pick(WORDS)
  if (r < 0.95) return rng.chance(0.5)
  return { v: rng.int(0, 3) }
}

export function makeOwners(rng: Rng, count: number): Doc[] {
  return Array.from({ length: count }, (_, k) => {
    const doc: Doc = { _id: hexId('0a', k), _deleted: rng.chance(0.1), name: rng.pick(WORDS), rank: rng.int(1, 5) }
    maybe(doc, rng, 'code', 0.85, () =>
      rng.chance(0.2) ? [rng.int(0, 4), rng.int(5, 9)] : rng.chance(0.1) ? null : rng.int(0, 12)
    )
    maybe(doc, rng, 'tags', 0.7, () => Array.from({ length: rng.int(0, 2) }, () => rng.pick(TAGS)))
    return doc
  })
}

export function makeItems(rng: Rng, count: number, owners: Doc[]): Doc[] {
  return Array.from({ length: count }, (_, k) => {
    const created = isoDate(rng)
    const doc: Doc = {
      _id: hexId('0b', k),
      _deleted: rng.chance(0.05),
      _owner_id: rng.pick(owners)._id,
      createdAt: created,
      updatedAt: created,
      __v: rng.int(0, 3),
      i: rng.int(0, 9),
      f: Math.round(rng.next() * 20000 - 10000) / 100,
      name: `${rng.pick(WORDS)}${rng.int(0, 99)}`
    }
    maybe(doc, rng, 'cat', 0.85, () => (rng.chance(0.1) ? null : rng.pick(CATEGORIES)))
    maybe(doc, rng, 'n', 0.85, () => mixedValue(rng))
    maybe(doc, rng, 's', 0.8, () => (rng.chance(0.15) ? null : rng.pick(WORDS)))
    maybe(doc, rng, 'b', 0.8, () => rng.chance(0.5))
    maybe(doc, rng, 'tags', 0.75, () => Array.from({ length: rng.int(0, 3) }, () => rng.pick(TAGS)))
    maybe(doc, rng, 'nums', 0.75, () => Array.from({ length: rng.int(0, 4) }, () => rng.int(-5, 5)))
    maybe(doc, rng, 'nested', 0.8, () => {
      const nested: Doc = { y: rng.pick(WORDS) }
      maybe(nested, rng, 'x', 0.85, () => rng.int(0, 20))
      return nested
    })
    maybe(doc, rng, 'items', 0.7, () =>
      Array.from({ length: rng.int(0, 3) }, () => ({ sku: rng.pick(TAGS), q: rng.int(1, 9) }))
    )
    maybe(doc, rng, 'd', 0.85, () => (rng.chance(0.1) ? null : isoDate(rng)))
    maybe(doc, rng, 'owner', 0.8, () => (rng.chance(0.1) ? null : rng.pick(owners)._id))
    maybe(doc, rng, 'refs', 0.6, () => [...new Set(Array.from({ length: rng.int(0, 3) }, () => rng.pick(owners)._id))])
    return doc
  })
}

/**
 * Wraps a mingo date operator so that ISO date strings (Quire's stored dates) are read as
 * dates; a null or missing date gives null (or $dateToString's onNull), as in MongoDB.
 */
function readIsoDates(op: (obj: unknown, expr: unknown, options: never) => unknown, objectForm: boolean) {
  return (obj: unknown, expr: unknown, options: never): unknown => {
    const spec = (objectForm ? expr : { date: expr }) as Record<string, unknown>
    const date = evalExpr(obj, spec.date, options)
    if (date === null || date === undefined)
      return spec.onNull === undefined ? null : evalExpr(obj, spec.onNull, options)
    const literal = { $literal: typeof date === 'string' ? new Date(date) : date }
    return op(obj, objectForm ? { ...spec, date: literal } : literal, options)
  }
}

const DATE_OPERATORS = ['$year', '$month', '$dayOfMonth', '$hour', '$minute', '$second', '$millisecond'] as const
const ops = expression as unknown as Record<string, (obj: unknown, expr: unknown, options: never) => unknown>
const CONTEXT = Context.init({
  accumulator,
  pipeline,
  projection,
  query,
  expression: {
    ...expression,
    ...Object.fromEntries(DATE_OPERATORS.map(name => [name, readIsoDates(ops[name], false)])),
    $dateToString: readIsoDates(ops.$dateToString, true)
  }
} as never)

/**
 * The reference: mingo over the live items, with $lookup reading the live owners (fresh
 * copies each run, since mingo may change its input). A final $sample is checked by size
 * only (mingo samples with replacement), so it runs the pipeline without it.
 */
export function createMingoReference(items: Doc[], owners: Doc[]) {
  const liveText = (docs: Doc[]): string => JSON.stringify(docs.filter(d => d._deleted !== true))
  const [itemsText, ownersText] = [liveText(items), liveText(owners)]
  return function runMingo(stages: object[], sampleSize?: number): Doc[] {
    const run = sampleSize === undefined ? stages : stages.slice(0, -1)
    const options = { context: CONTEXT, collectionResolver: () => JSON.parse(ownersText) as Doc[] }
    const docs = undoMingoQuirks(
      new Aggregator(run as never, options as never).run(JSON.parse(itemsText) as Doc[]) as Doc[]
    )
    return sampleSize === undefined ? docs : docs.slice(0, sampleSize)
  }
}

/**
 * A comparable form of a value: object keys sorted, numbers to 12 significant digits, and
 * arrays under "set*" and "j" keys (sets, lookup matches) sorted by their JSON text.
 */
function normalize(value: unknown, key = ''): unknown {
  if (typeof value === 'number') return Object.is(value, -0) ? 0 : Number(value.toPrecision(12))
  if (Array.isArray(value)) {
    const items = value.map(v => normalize(v))
    return key.startsWith('set') || key === 'j' ? items.map(v => JSON.stringify(v)).sort(compareText) : items
  }
  if (value === null || typeof value !== 'object') return value
  const out: Doc = {}
  for (const k of Object.keys(value).sort(compareText)) {
    const v = (value as Doc)[k]
    if (v !== undefined) out[k] = normalize(v, k)
  }
  return out
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Undoes two mingo quirks where MongoDB behaves otherwise, at the top level and in $facet
 * arrays: $count on no input gives {name: 0} (MongoDB: no document; the generator names
 * $count outputs "cnt"), and a $lookup whose local array holds an unmatched value gets an
 * undefined element in its "as" array (the generator names it "j").
 */
function undoMingoQuirks(docs: Doc[]): Doc[] {
  const isEmptyCount = (v: unknown): boolean =>
    v !== null && typeof v === 'object' && (v as Doc).cnt === 0 && Object.keys(v).length === 1
  const fix = (list: unknown[]): unknown[] =>
    list
      .filter(d => !isEmptyCount(d))
      .map(d => {
        if (d === null || typeof d !== 'object') return d
        const doc = d as Doc
        if (Array.isArray(doc.j)) doc.j = doc.j.filter(x => x !== undefined)
        for (const [k, v] of Object.entries(doc)) if (k !== 'j' && Array.isArray(v)) doc[k] = fix(v)
        return doc
      })
  return fix(docs) as Doc[]
}

/** Text of a result for comparison; unordered results are compared as multisets. */
export function resultKey(docs: unknown[], ordered: boolean): string {
  const texts = docs.map(d => JSON.stringify(normalize(d)))
  return (ordered ? texts : texts.sort(compareText)).join('\n')
}

/**
 * The compiler's context over the tables q_items and q_owners (no hidden fields), every source filtered by `filter`.
 */
export function itemsContext(filter: Filter, kindOf?: FieldKindLookup): PipelineContext {
  return {
    sourceTable: quoteIdent('q_items'),
    baseFilter: filter,
    hiddenFields: [],
    lookup: model => ({ table: quoteIdent(`q_${model}`), filter }),
    kindOf
  }
}

/** What the SQL engine runs for a client's pipeline on q_items: checked, then compiled. */
export function compileItemsPipeline(pipeline: unknown[], ctx: PipelineContext): { text: string; values: SqlValue[] } {
  const lookup = (model: string): void => {
    if (model !== 'items' && model !== 'owners') throw new QuireError('MODEL_NOT_FOUND')
  }
  return compilePipeline(checkPipeline(pipeline, { hidden: new Set(), lookup }), ctx)
}
