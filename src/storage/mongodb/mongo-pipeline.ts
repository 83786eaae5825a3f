// Builds the aggregation pipeline that answers a FindQuery on MongoDB: the filter (with $text
// when searching), sort with the _id tie-break, paging and the projection. Populate is a second
// query per link (mongo-populate.ts), not $lookup, which FerretDB v1 lacks (docs/mongodb.md).
import type { Document } from 'mongodb'
import type { FindQuery } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { Filter, Sort } from '../../query/types.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'

/** The query's filter, with the full-text condition when it searches. */
export function matchOf(query: Pick<FindQuery, 'filter' | 'search'>): Filter {
  return query.search === undefined ? query.filter : { ...query.filter, $text: { $search: query.search } }
}

/**
 * The $sort spec: `first` descending (the search score) if given, then `sort`, then _id in the last key's direction.
 */
function sortSpec(sort: Sort, first?: string): Record<string, 1 | -1> {
  const spec: Record<string, 1 | -1> = first === undefined ? {} : { [first]: -1 }
  for (const [path, direction] of sort) if (!Object.hasOwn(spec, path)) spec[path] = direction
  if (!Object.hasOwn(spec, '_id')) spec._id = sort.at(-1)?.[1] === -1 ? -1 : 1
  return spec
}

/** Paths without those inside another listed path (MongoDB rejects {a: 1, 'a.b': 1}). */
function dropCoveredPaths(paths: string[]): string[] {
  return paths.filter(p => !paths.some(q => p.startsWith(`${q}.`)))
}

/**
 * The projection of `fields` plus _id and `extra` (computed fields); with no `fields`, everything but
 * the password fields. Undefined when nothing is left out. Only plain inclusions and exclusions, which
 * every MongoDB-wire server has (FerretDB v1 too): `id` (= _id, as the SQL engines give it) is set by
 * withId once the documents are read.
 */
export function projectionOf(
  fields: string[] | undefined,
  hidden: string[],
  extra: string[] = []
): Document | undefined {
  if (fields === undefined) return hidden.length ? Object.fromEntries(hidden.map(f => [f, 0])) : undefined
  const wanted = [...fields, ...extra].filter(f => ![...hidden, '_id', 'id'].includes(f.split('.')[0]))
  return { _id: 1, ...Object.fromEntries(dropCoveredPaths(wanted).map(f => [f, 1])) }
}

/**
 * The document with `id` beside `_id`, as the SQL engines answer: documents Quire stored carry it,
 * a projection leaves it out, and documents another application stored (a JXP app through Mongoose)
 * never had it. An ObjectId _id gives its 24-hex text.
 */
export function withId(doc: Document): Document {
  if (doc._id === undefined) return doc
  const { _id, id, ...rest } = doc
  return { _id, id: id ?? String(_id), ...rest }
}

/**
 * The pipeline of one page of an authorized query (checked by src/validation, so MongoDB-only
 * operators such as $where never reach the server): match, (score), sort, skip, limit, project.
 * Links are populated afterwards by populateLinks() (mongo-populate.ts), which needs the link
 * fields: `linkFields` are kept by the projection for it.
 */
export function findPipeline(model: Model, query: FindQuery, linkFields: string[] = []): Document[] {
  const searching = query.search !== undefined
  const stages: Document[] = [{ $match: matchOf(query) }]
  if (searching) stages.push({ $set: { score: { $meta: 'textScore' } } })
  stages.push(
    { $sort: sortSpec(query.sort, searching ? 'score' : undefined) },
    { $skip: query.skip },
    { $limit: query.limit }
  )
  const projection = projectionOf(query.fields, hiddenFields(model), [...linkFields, ...(searching ? ['score'] : [])])
  if (projection) stages.push({ $project: projection })
  return stages
}
