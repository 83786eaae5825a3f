// Builds the one aggregation pipeline that answers a FindQuery on MongoDB: the
// filter (with $text when searching), sort with the _id tie-break, paging, populate
// ($lookup on the target's _id index; needs MongoDB 5.0+) and the projection.
import type { Document } from 'mongodb'
import type { FindQuery, PopulateSpec } from './engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { Filter, Sort } from '../query/types.ts'
import { hiddenFields } from '../permissions/field-policy.ts'
import { collectionName } from './mongo-indexes.ts'

/** The query's filter, with the full-text condition when it searches. */
export function matchOf (query: Pick<FindQuery, 'filter' | 'search'>): Filter {
  return query.search === undefined ? query.filter : { ...query.filter, $text: { $search: query.search } }
}

/** The $sort spec: `first` descending (the search score) if given, then `sort`, then _id in the last key's direction. */
function sortSpec (sort: Sort, first?: string): Record<string, 1 | -1> {
  const spec: Record<string, 1 | -1> = first === undefined ? {} : { [first]: -1 }
  for (const [path, direction] of sort) if (!Object.hasOwn(spec, path)) spec[path] = direction
  if (!Object.hasOwn(spec, '_id')) spec._id = sort.at(-1)?.[1] === -1 ? -1 : 1
  return spec
}

/** Paths without those inside another listed path (MongoDB rejects {a: 1, 'a.b': 1}). */
function dropCoveredPaths (paths: string[]): string[] {
  return paths.filter(p => !paths.some(q => p.startsWith(`${q}.`)))
}

/**
 * The projection of `fields` plus _id, id (= _id, as the SQL engines give it) and `extra` (computed fields);
 * with no `fields`, everything but the password fields. Undefined when nothing is left out.
 */
export function projectionOf (fields: string[] | undefined, passwordFields: string[], extra: string[] = []): Document | undefined {
  if (fields === undefined) return passwordFields.length ? Object.fromEntries(passwordFields.map(f => [f, 0])) : undefined
  const wanted = [...fields, ...extra].filter(f => ![...passwordFields, '_id', 'id'].includes(f.split('.')[0]))
  return { _id: 1, id: '$_id', ...Object.fromEntries(dropCoveredPaths(wanted).map(f => [f, 1])) }
}

/** The linked documents of a `many` link, in the order of the ids (ids without a match left out). */
function inIdOrder (spec: PopulateSpec): Document {
  const ids = { $cond: [{ $isArray: `$${spec.field}` }, `$${spec.field}`, []] }
  const matchOfId = { $filter: { input: `$${spec.as}`, cond: { $eq: ['$$this._id', '$$linkId'] } } }
  const found = { $map: { input: ids, as: 'linkId', in: { $arrayElemAt: [matchOfId, 0] } } }
  return { $filter: { input: found, cond: { $ne: ['$$this', null] } } }
}

/** A $lookup filling `spec.as`, then shaping it: the document or null, or the array in id order. */
function populateStages (spec: PopulateSpec): Document[] {
  const pipeline: Document[] = [{ $match: spec.filter }]
  const projection = projectionOf(spec.fields, hiddenFields(spec.target))
  if (projection) pipeline.push({ $project: projection })
  const lookup = { from: collectionName(spec.target), localField: spec.field, foreignField: '_id', pipeline, as: spec.as }
  const shaped = spec.many ? inIdOrder(spec) : { $ifNull: [{ $arrayElemAt: [`$${spec.as}`, 0] }, null] }
  return [{ $lookup: lookup }, { $set: { [spec.as]: shaped } }]
}

/**
 * The pipeline of one page of an authorized query (checked by src/validation, so MongoDB-only
 * operators such as $where never reach the server): match, (score), sort, skip, limit, populate, project.
 */
export function findPipeline (model: Model, query: FindQuery): Document[] {
  const searching = query.search !== undefined
  const stages: Document[] = [{ $match: matchOf(query) }]
  if (searching) stages.push({ $set: { score: { $meta: 'textScore' } } })
  stages.push({ $sort: sortSpec(query.sort, searching ? 'score' : undefined) }, { $skip: query.skip }, { $limit: query.limit })
  for (const spec of query.populate) stages.push(...populateStages(spec))
  const computed = [...query.populate.map(spec => spec.as), ...(searching ? ['score'] : [])]
  const projection = projectionOf(query.fields, hiddenFields(model), computed)
  if (projection) stages.push({ $project: projection })
  return stages
}
