// The MongoDB engine's filter widening (src/storage/mongodb/mongo-stored-forms.ts): conditions on ids and
// dates match both stored forms (Quire's strings, Mongoose's ObjectIds and Dates); others stay as given.
import t from 'tap'
import { ObjectId } from 'mongodb'
import { bothForms } from '../../../src/storage/mongodb/mongo-stored-forms.ts'
import { ITEM } from '../../helpers/engine-fixtures.ts'

const hex = '65a1b2c3d4e5f60718293a4b'
const oid = ObjectId.createFromHexString(hex)
const iso = '2024-01-02T03:04:05.678Z'
const date = new Date(iso)

const CASES: Array<[string, object, object]> = [
  ['an id equality', { _id: hex }, { _id: { $in: [hex, oid] } }],
  ['a link equality', { main_tag_id: hex }, { main_tag_id: { $in: [hex, oid] } }],
  ['a many link', { tag_ids: { $in: [hex] } }, { tag_ids: { $in: [hex, oid] } }],
  ['$ne and $nin', { _owner_id: { $ne: hex } }, { _owner_id: { $nin: [hex, oid] } }],
  ['not an id: left alone', { _id: 'abc', name: hex }, { _id: 'abc', name: hex }],
  ['null owner: left alone', { _owner_id: null }, { _owner_id: null }],
  ['_deleted false: not true', { _deleted: false }, { _deleted: { $ne: true } }],
  ['_deleted true: as given', { _deleted: true }, { _deleted: true }],
  ['a date equality', { createdAt: iso }, { createdAt: { $in: [iso, date] } }],
  [
    'a date range: each form on its own',
    { when: { $gt: iso } },
    { $or: [{ when: { $gt: iso } }, { when: { $gt: date } }] }
  ],
  [
    'a range beside other conditions',
    { n: 1, updatedAt: { $lte: iso, $exists: true } },
    {
      $and: [
        { n: 1 },
        {
          $and: [
            { updatedAt: { $exists: true } },
            { $or: [{ updatedAt: { $lte: iso } }, { updatedAt: { $lte: date } }] }
          ]
        }
      ]
    }
  ],
  [
    'inside $or and $and',
    { $or: [{ _id: hex }, { $and: [{ _deleted: false }] }] },
    { $or: [{ _id: { $in: [hex, oid] } }, { $and: [{ _deleted: { $ne: true } }] }] }
  ],
  [
    'a regex or a plain field: left alone',
    { name: { $regex: '^a' }, 'meta.a': 1 },
    { name: { $regex: '^a' }, 'meta.a': 1 }
  ]
]

for (const [name, filter, widened] of CASES) t.strictSame(bothForms(ITEM, filter), widened, name)
