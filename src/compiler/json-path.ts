// Renders validated field paths as lax-mode SQL/JSON path (jsonpath) text. Lax mode walks
// arrays of objects one level deep, as MongoDB does; array-index segments get explicit guards
// because lax mode would otherwise treat a non-array as a one-element array.
import { checkText } from '../validation/values.ts'
import { quoteLiteral } from './sql-text.ts'
import { isIndexSegment } from '../validation/field-path.ts'

/** A field name followed by the array indexes applied to its value ("items.0" -> items, [0]). */
interface Run {
  name: string
  indexes: string[]
}

/** The parts of a path for a condition on the last field, written as a filter on its parent. */
interface LeafParts {
  /** Path to the parents of the last field. */
  parent: string
  /** The last field relative to its parent, e.g. `@."tags"` or `@."m"[0]`. */
  leaf: string
  /** The accessor appended to the parent to reach the last field, e.g. `."tags"`. */
  accessor: string
  /** Conditions the parent must meet for the indexes to apply, or undefined. */
  guard?: string
}

function splitRuns(segs: string[]): Run[] {
  const runs: Run[] = []
  for (const seg of segs) {
    if (isIndexSegment(seg) && runs.length > 0) runs[runs.length - 1].indexes.push(seg)
    else runs.push({ name: seg, indexes: [] })
  }
  return runs
}

function runAccessor(run: Run): string {
  return `."${run.name}"` + run.indexes.map(i => `[${i}]`).join('')
}

/** Each value an index is applied to must be an array: `@."m".type() == "array" && ...`. */
function runGuard(run: Run): string | undefined {
  const checks = run.indexes.map(
    (_, i) => `@${runAccessor({ name: run.name, indexes: run.indexes.slice(0, i) })}.type() == "array"`
  )
  return checks.length > 0 ? checks.join(' && ') : undefined
}

function renderRuns(runs: Run[]): string {
  return runs.reduce((path, run) => {
    const guard = runGuard(run)
    return `${path}${guard ? ` ? (${guard})` : ''}${runAccessor(run)}`
  }, '$')
}

/** Path to every value of the field: `$."a"."b"` (through arrays of objects). */
export function fieldPath(segs: string[]): string {
  return renderRuns(splitRuns(segs))
}

function leafParts(segs: string[]): LeafParts {
  const runs = splitRuns(segs)
  const last = runs[runs.length - 1]
  return {
    parent: renderRuns(runs.slice(0, -1)),
    leaf: `@${runAccessor(last)}`,
    accessor: runAccessor(last),
    guard: runGuard(last)
  }
}

/** A filter on the parents that holds when the last field meets `condition` (written on `leaf`). */
export function leafFilterPath(segs: string[], condition: (leaf: string) => string): string {
  const { parent, leaf, guard } = leafParts(segs)
  return `${parent} ? (${guard ? `${guard} && ` : ''}${condition(leaf)})`
}

/** Path to the elements of the field's array values (for $elemMatch). */
export function arrayElementsPath(segs: string[]): string {
  return `${leafFilterPath(segs, leaf => `${leaf}.type() == "array"`)}${leafParts(segs).accessor}[*]`
}

/**
 * Path that exists when MongoDB's `{field: null}` matches: the value (or an element of it) is
 * null, or the field is missing on some branch: a parent object lacks it, a parent on the way is
 * a scalar, or an object element of an array on the way lacks it. Scalar array elements don't count.
 */
export function nullOrMissingPath(segs: string[]): string {
  return `$ ? (${nullOrMissingCondition(splitRuns(segs), 0)})`
}

function nullOrMissingCondition(runs: Run[], i: number): string {
  const run = runs[i]
  const field = `@."${run.name}"`
  const isLeaf = i === runs.length - 1
  const inner = isLeaf ? '@.type() == "null"' : `@.type() == "object" && (${nullOrMissingCondition(runs, i + 1)})`
  const parts = [`!exists(${field})`]
  if (!isLeaf || run.indexes.length > 0) parts.push(`${field}.type() != "object" && ${field}.type() != "array"`)
  const guard = runGuard(run)
  parts.push(`${guard ? `${guard} && ` : ''}exists(@${runAccessor(run)} ? (${inner}))`)
  return parts.map(p => `(${p})`).join(' || ')
}

/**
 * A client string as a jsonpath string literal. JSON string syntax is valid jsonpath string
 * syntax with the same meaning; text PostgreSQL cannot hold (NUL, lone surrogates) is refused.
 */
export function jsonpathString(text: string): string {
  return JSON.stringify(checkText(text))
}

/** A jsonpath constant for SQL. Paths hold only validated field names, never client values. */
export function jsonpathLiteral(path: string): string {
  return `${quoteLiteral(`lax ${path}`)}::jsonpath`
}
