// Models and documents of the engine contract suite. The documents are made once, so
// every engine stores the very same ones (same ids) and must give the same answers.
import type { Doc, PopulateSpec } from '../../src/storage/engine.ts'
import type { Model } from '../../src/models/model-definition.ts'
import { parseModelFile } from '../../src/models/load-models.ts'
import { newId } from '../../src/ids.ts'
import { authorized } from '../../src/permissions/authorized.ts'

function model(file: object): Model {
  return parseModelFile(JSON.stringify(file), 'engine-fixtures')
}

export const TAG = model({
  name: 'ct_tag',
  fields: { label: { type: 'string' }, pin: { type: 'password' } },
  indexes: [{ fields: ['label'] }]
})

export const ITEM = model({
  name: 'ct_item',
  fields: {
    name: { type: 'string' },
    n: { type: 'number' },
    body: { type: 'string' },
    labels: { type: 'array', items: { type: 'string' } },
    meta: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' }, c: { type: 'number' } } },
    when: { type: 'date' },
    secret: { type: 'password' },
    main_tag_id: { type: 'id', link: 'ct_tag' },
    tag_ids: { type: 'array', items: { type: 'id' }, link: 'ct_tag' }
  },
  indexes: [{ fields: ['name'], unique: true }, { fields: ['n'] }],
  fulltext: { fields: ['body'], language: 'english' }
})

/** A model whose definition changes between syncs: v2 adds a unique index that v1 lacks. */
export const EVOLVE_V1 = model({ name: 'ct_evolve', fields: { code: { type: 'string' } } })
export const EVOLVE_V2 = model({
  name: 'ct_evolve',
  fields: { code: { type: 'string' } },
  indexes: [{ fields: ['code'], unique: true }]
})

export const MODELS = [TAG, ITEM, EVOLVE_V1]

const CREATED = '2024-05-01T10:00:00.000Z'

/** A stored document: `fields` plus system fields, with a new id. */
export function makeDoc(fields: Doc, deleted = false): Doc {
  const id = newId()
  return { ...fields, _id: id, id, _deleted: deleted, _owner_id: null, createdAt: CREATED, updatedAt: CREATED, __v: 0 }
}

export const TAGS = {
  red: makeDoc({ label: 'red', pin: '$2b$04$pin-red' }),
  green: makeDoc({ label: 'green', pin: '$2b$04$pin-green' }),
  blue: makeDoc({ label: 'blue', pin: '$2b$04$pin-blue' }, true)
}

export const ITEMS = {
  alpha: makeDoc({
    name: 'alpha',
    n: 1,
    body: 'apple pie with cream',
    labels: ['x', 'y'],
    meta: { a: 1, b: 2 },
    when: '2024-01-02T03:04:05.678Z',
    secret: '$2b$04$secret-alpha',
    main_tag_id: TAGS.red._id,
    tag_ids: [TAGS.green._id, TAGS.blue._id, TAGS.red._id]
  }),
  bravo: makeDoc({
    name: 'bravo',
    n: 2,
    body: 'apple apple apple',
    labels: ['y'],
    secret: '$2b$04$secret-bravo',
    main_tag_id: TAGS.blue._id,
    tag_ids: []
  }),
  charlie: makeDoc({ name: 'charlie', n: 2, body: 'banana split', secret: '$2b$04$secret-charlie' }),
  delta: makeDoc({ name: 'delta', n: 3, body: 'cherry apple', secret: '$2b$04$secret-delta' }, true),
  echo: makeDoc({ name: 'echo', n: 5, body: 'apple', secret: '$2b$04$secret-echo' })
}

/** The live items in _id (creation) order. */
export const LIVE = [ITEMS.alpha, ITEMS.bravo, ITEMS.charlie, ITEMS.echo]

/** A copy of `doc` without the fields named. */
export function omit(doc: Doc, ...fields: string[]): Doc {
  return Object.fromEntries(Object.entries(doc).filter(([k]) => !fields.includes(k)))
}

/** Populate spec of one of ITEM's links, filtered to live tags. */
export function populateOf(field: string, fields?: string[]): PopulateSpec {
  const link = ITEM.links.find(l => l.field === field)!
  return { field, as: link.as, target: TAG, many: link.many, fields, filter: authorized({ _deleted: false }) }
}
