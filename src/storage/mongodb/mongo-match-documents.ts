// Engine.matchDocuments for MongoDB: the documents enter an aggregation as literals
// ($documents, MongoDB 5.1+) and each filter is a $facet branch with the filter as its
// $match, so the server's own query semantics decide. Facets answer with _ids, so the
// documents go in groups in which each _id appears once.
import type { Db, Document } from 'mongodb'
import type { Doc, Engine } from '../engine.ts'
import { toStored } from './mongo-bulk-write.ts'
import type { MongoCapabilities } from './mongo-capabilities.ts'
import { QuireError } from '../../errors.ts'

const FILTERS_PER_STAGE = 50

/** Splits the indexes of `docs` into groups without a repeated _id, in order. */
function groupsOfDistinctIds(docs: Doc[]): number[][] {
  const groups: Array<{ ids: Set<unknown>; members: number[] }> = []
  docs.forEach((doc, i) => {
    let group = groups.find(g => !g.ids.has(doc._id))
    if (!group) groups.push((group = { ids: new Set(), members: [] }))
    group.ids.add(doc._id)
    group.members.push(i)
  })
  return groups.map(g => g.members)
}

export function mongoMatchDocuments(
  db: Db,
  maxTimeMS: number,
  caps: Pick<MongoCapabilities, 'server' | 'stages'>
): Engine['matchDocuments'] {
  return async (_model, docs, filters) => {
    if (caps.stages && !(caps.stages.has('$documents') && caps.stages.has('$facet'))) {
      // Only the change feed matches documents, and a server without these stages (FerretDB v1) has no change streams
      // either.
      throw new QuireError(
        'NOT_SUPPORTED_BY_STORAGE',
        `Matching documents needs the $documents and $facet aggregation stages, which ${caps.server} does not have`
      )
    }
    const result = filters.map(() => docs.map(() => false))
    for (const members of groupsOfDistinctIds(docs)) {
      const literals = members.map(i => toStored(docs[i]))
      for (let f = 0; f < filters.length; f += FILTERS_PER_STAGE) {
        const some = filters.slice(f, f + FILTERS_PER_STAGE)
        const facets = Object.fromEntries(
          some.map((filter, j) => [`f${j}`, [{ $match: filter }, { $project: { _id: 1 } }]])
        )
        const [answer] = await db
          .aggregate<Document>([{ $documents: literals }, { $facet: facets }], { maxTimeMS })
          .toArray()
        some.forEach((_, j) => {
          const matched = new Set((answer[`f${j}`] as Document[]).map(d => d._id))
          members.forEach(i => {
            result[f + j][i] = matched.has(docs[i]._id)
          })
        })
      }
    }
    return result
  }
}
