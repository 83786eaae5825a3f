// Populate on MongoDB (DESIGN.md section 4): after a page is read, one query per link fetches the
// linked documents of the whole page by _id ($in, the _id index) through the link's filter, and
// each document gets them under `as`: the document or null for a single link, the live ones in
// the order of the ids for a `many` link. This replaced a $lookup per link: FerretDB v1 has no
// $lookup, and on MongoDB a page's one $in query reads each linked document once where $lookup
// ran a sub-pipeline per page document (docs/mongodb.md gives the measurements).
import { ObjectId, type Db, type Document, type Filter } from 'mongodb'
import type { PopulateSpec } from '../engine.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'
import { projectionOf, withId } from './mongo-pipeline.ts'
import { collectionName } from './mongo-indexes.ts'
import { isValidId } from '../../ids.ts'

/** The ids a document links to through `field` (one, an array of them, or none). */
function linkedIds(doc: Document, spec: PopulateSpec): unknown[] {
  const value = doc[spec.field]
  if (spec.many) return Array.isArray(value) ? value.filter(id => id !== null && id !== undefined) : []
  return value === null || value === undefined || Array.isArray(value) ? [] : [value]
}

/** Comparable key of an id: a string id and the ObjectId of the same 24 hex digits are one document. */
const keyOf = (id: unknown): string =>
  id instanceof ObjectId ? id.toHexString() : typeof id === 'string' ? id : JSON.stringify(id)

/** Both forms of each id: Quire stores 24-hex strings, a Mongoose app ObjectIds, and a link may cross. */
function bothForms(ids: Iterable<unknown>): unknown[] {
  const all: unknown[] = []
  for (const id of ids) {
    all.push(id)
    if (id instanceof ObjectId) all.push(id.toHexString())
    else if (isValidId(id)) all.push(ObjectId.createFromHexString(id))
  }
  return all
}

/** The link fields a page must be read with, for populate to follow them. */
export function linkFieldsOf(specs: PopulateSpec[]): string[] {
  return specs.map(spec => spec.field)
}

/**
 * Fills each spec's `as` field of `docs` (in place) with the linked documents, read through the
 * spec's filter without password fields; then drops the link fields the page was read with only
 * for populate (those not in `fields`, when the query named fields).
 */
export async function populateLinks(
  docs: Document[],
  specs: PopulateSpec[],
  fields: string[] | undefined,
  db: Db,
  maxTimeMS: number
): Promise<void> {
  for (const spec of specs) {
    const ids = new Map<string, unknown>()
    for (const doc of docs) for (const id of linkedIds(doc, spec)) ids.set(keyOf(id), id)
    const found = new Map<string, Document>()
    if (ids.size > 0) {
      const projection = projectionOf(spec.fields, hiddenFields(spec.target))
      const filter = { $and: [spec.filter, { _id: { $in: bothForms(ids.values()) } }] } as Filter<Document>
      const linked = await db
        .collection(collectionName(spec.target))
        .find(filter, { maxTimeMS, ...(projection && { projection }) })
        .toArray()
      for (const doc of linked) found.set(keyOf(doc._id), withId(doc))
    }
    for (const doc of docs) {
      const linked = linkedIds(doc, spec).flatMap(id => found.get(keyOf(id)) ?? [])
      doc[spec.as] = spec.many ? linked : (linked[0] ?? null)
    }
  }
  if (fields === undefined) return
  const kept = new Set(fields.map(f => f.split('.')[0]))
  for (const spec of specs) {
    if (kept.has(spec.field)) continue
    for (const doc of docs) delete doc[spec.field]
  }
}
