// $project, $addFields/$set and $unset: parses the spec into a field tree and builds
// the jsonb SQL of the reshaped document (inclusion, exclusion, merged computed fields).
import { QuireError } from '../../errors.ts'
import { quoteLiteral } from '../sql-text.ts'
import { parseFieldPath } from '../../validation/field-path.ts'
import { isPlainObject } from '../../validation/values.ts'
import { bindValues, buildObject, mapArrayAware, EMPTY_OBJECT } from './jsonb-sql.ts'
import type { Scope } from './pipeline-state.ts'
import { compileExpression } from './compile-expression.ts'

type FieldNode =
  | { kind: 'include' }
  | { kind: 'exclude' }
  | { kind: 'set'; sql: string }
  | { kind: 'tree'; children: FieldTree }
type FieldTree = Map<string, FieldNode>
type LeafParser = (value: unknown) => FieldNode

/** The document after a $project stage. */
export function compileProject(spec: unknown, scope: Scope): string {
  const tree = parseSpec(checkObject('$project', spec), value => projectLeaf(value, scope), false)
  if (tree.size === 0) throw new QuireError('INVALID_QUERY', '$project needs at least one field')
  const leaves = collectLeaves(tree, true)
  const including =
    leaves.has('include') || leaves.has('set') || (leaves.size === 0 && tree.get('_id')?.kind !== 'exclude')
  if (including && leaves.has('exclude')) {
    throw new QuireError('INVALID_QUERY', '$project cannot mix inclusion and exclusion (except for _id)')
  }
  if (!including) return applyExclusion(scope, scope.doc, tree)
  if (!tree.has('_id')) tree.set('_id', { kind: 'include' })
  return applyInclusion(scope, scope.doc, tree)
}

/** The document after an $addFields / $set stage: nested objects merge, missing values remove. */
export function compileAddFields(spec: unknown, scope: Scope): string {
  const tree = parseSpec(
    checkObject('$addFields', spec),
    value => ({ kind: 'set', sql: compileExpression(value, scope) }),
    true
  )
  return applySet(scope, scope.doc, tree)
}

/** The document after an $unset stage (a field path or a list of them). */
export function compileUnset(spec: unknown, scope: Scope): string {
  const paths = Array.isArray(spec) ? spec : [spec]
  if (paths.length === 0 || !paths.every(p => typeof p === 'string')) {
    throw new QuireError('INVALID_QUERY', '$unset needs a field path or a non-empty list of field paths')
  }
  const tree: FieldTree = new Map()
  for (const path of paths as string[]) insertNode(tree, parseFieldPath(path), { kind: 'exclude' }, path)
  return applyExclusion(scope, scope.doc, tree)
}

/** `doc` with the fields at the paths set to SQL values (a field is removed when its value is SQL NULL). */
export function setFields(scope: Scope, doc: string, fields: Array<[path: string, value: string]>): string {
  const tree: FieldTree = new Map()
  for (const [path, value] of fields) insertNode(tree, parseFieldPath(path), { kind: 'set', sql: value }, path)
  return applySet(scope, doc, tree)
}

function checkObject(stage: string, spec: unknown): Record<string, unknown> {
  if (!isPlainObject(spec)) {
    throw new QuireError('INVALID_QUERY', `${stage} needs an object`)
  }
  return spec
}

function projectLeaf(value: unknown, scope: Scope): FieldNode {
  if (value === false || value === 0) return { kind: 'exclude' }
  if (value === true || typeof value === 'number') return { kind: 'include' }
  return { kind: 'set', sql: compileExpression(value, scope) }
}

/** Plain nested objects ({a: {b: 1}}) are sub-specs; `{}` is an empty object value where allowed. */
function parseSpec(
  spec: Record<string, unknown>,
  leaf: LeafParser,
  emptyIsValue: boolean,
  tree: FieldTree = new Map(),
  prefix: string[] = []
): FieldTree {
  for (const [key, value] of Object.entries(spec)) {
    const path = [...prefix, ...parseFieldPath(key)]
    const nested = isPlainObject(value) && !Object.keys(value).some(k => k.startsWith('$'))
    if (nested && Object.keys(value).length > 0) parseSpec(value, leaf, emptyIsValue, tree, path)
    else if (nested && !emptyIsValue)
      throw new QuireError('INVALID_QUERY', `An empty object is not a valid value for ${path.join('.')}`)
    else insertNode(tree, path, nested ? { kind: 'set', sql: EMPTY_OBJECT } : leaf(value), path.join('.'))
  }
  return tree
}

function insertNode(tree: FieldTree, path: string[], node: FieldNode, name: string): void {
  let level = tree
  for (const segment of path.slice(0, -1)) {
    const existing = level.get(segment) ?? { kind: 'tree', children: new Map() }
    if (existing.kind !== 'tree') throw pathCollision(name)
    level.set(segment, existing)
    level = existing.children
  }
  const last = path[path.length - 1]
  if (level.has(last)) throw pathCollision(name)
  level.set(last, node)
}

function pathCollision(name: string): QuireError {
  return new QuireError('INVALID_QUERY', `Path collision at ${name.slice(0, 80)}`)
}

/** Kinds of the leaves in a tree; the top-level _id does not decide the projection mode. */
function collectLeaves(tree: FieldTree, top: boolean, kinds = new Set<string>()): Set<string> {
  for (const [key, node] of tree) {
    if (node.kind === 'tree') collectLeaves(node.children, false, kinds)
    else if (!(top && key === '_id')) kinds.add(node.kind)
  }
  return kinds
}

function containsSet(tree: FieldTree): boolean {
  return [...tree.values()].some(n => n.kind === 'set' || (n.kind === 'tree' && containsSet(n.children)))
}

function field(doc: string, key: string): string {
  return `${doc}->${quoteLiteral(key)}`
}

function keyArray(keys: string[]): string {
  return `ARRAY[${keys.map(quoteLiteral).join(', ')}]::text[]`
}

/**
 * Inclusion: only listed and computed fields. Through arrays, object elements are
 * projected and other elements dropped (kept as objects when computed fields apply).
 */
function applyInclusion(scope: Scope, doc: string, tree: FieldTree): string {
  const pairs: Array<[string, string]> = []
  for (const [key, node] of tree) {
    if (node.kind === 'include') pairs.push([key, field(doc, key)])
    else if (node.kind === 'set') pairs.push([key, node.sql])
    else if (node.kind === 'tree') {
      const sub = node.children
      const element = containsSet(sub)
        ? (e: string) => applyInclusion(scope, e, sub)
        : (e: string) => `CASE WHEN jsonb_typeof(${e}) = 'object' THEN ${applyInclusion(scope, e, sub)} END`
      pairs.push([key, mapArrayAware(scope, field(doc, key), element)])
    }
  }
  return buildObject(scope, pairs)
}

/** Exclusion: removes the listed fields, inside the object elements of arrays too. */
function applyExclusion(scope: Scope, doc: string, tree: FieldTree): string {
  const removed = [...tree].filter(([, node]) => node.kind === 'exclude').map(([key]) => key)
  const rebuilt: Array<[string, string]> = []
  for (const [key, node] of tree) {
    if (node.kind !== 'tree') continue
    const element = (e: string): string =>
      `CASE WHEN jsonb_typeof(${e}) = 'object' THEN ${applyExclusion(scope, e, node.children)} ELSE ${e} END`
    rebuilt.push([
      key,
      `CASE WHEN ${field(doc, key)} IS NOT NULL THEN ${mapArrayAware(scope, field(doc, key), element)} END`
    ])
  }
  const stripped = removed.length === 0 ? doc : `(${doc} - ${keyArray(removed)})`
  return rebuilt.length === 0 ? stripped : `(${stripped} || ${buildObject(scope, rebuilt)})`
}

/**
 * Computed fields replace the field (a missing value removes it); a nested path merges
 * into an existing object, into each element of an array, or creates the object.
 */
function applySet(scope: Scope, doc: string, tree: FieldTree): string {
  const pairs: Array<[string, string]> = []
  for (const [key, node] of tree) {
    if (node.kind === 'set') pairs.push([key, node.sql])
    else if (node.kind === 'tree') {
      const element = (e: string): string =>
        bindValues(scope, [`CASE WHEN jsonb_typeof(${e}) = 'object' THEN ${e} ELSE '{}'::jsonb END`], ([target]) =>
          applySet(scope, target, node.children)
        )
      pairs.push([key, mapArrayAware(scope, field(doc, key), element)])
    }
  }
  return `((${doc} - ${keyArray([...tree.keys()])}) || ${buildObject(scope, pairs)})`
}
