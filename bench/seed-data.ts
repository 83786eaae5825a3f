// Generates the benchmark's documents once per run, through prepareCreate (the
// same shaping, validation and system fields as POST), deterministic per seed.
import { prepareCreate } from '../src/documents/prepare-document.ts'
import { USER_MODEL } from '../src/auth/users/user-model.ts'
import type { Model } from '../src/models/model-definition.ts'
import type { Doc } from '../src/storage/engine.ts'
import type { Caller } from '../src/auth/caller.ts'

export const BENCH_USER = { email: 'bench@example.com', password: 'bench-password' }
/** Distinct values of `foo` (each matches testDocs / FOO_VALUES documents). */
export const FOO_VALUES = 100
/**
 * Distinct numbers in `shmack` (after its three words): `filter[shmack]=3` matches testDocs / SHMACK_NUMBERS documents.
 */
export const SHMACK_NUMBERS = 20
/** Distinct search topics in `fulltext` (each matches testDocs / TOPICS documents). */
export const TOPICS = 50

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo ' +
  'consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint'
).split(' ')

export interface SeedData {
  user: Doc
  /** Other users to store (the reliability suite adds an admin). */
  moreUsers?: Doc[]
  link: Doc[]
  test: Doc[]
}

/** A small deterministic pseudo-random generator (mulberry32), so every run seeds the same text. */
export function createRandom(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function sentence(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')
}

function testBody(i: number, random: () => number, linkIds: string[]): Doc {
  const pick = (): string => linkIds[Math.floor(random() * linkIds.length)]
  return {
    foo: `foo-${i % FOO_VALUES}`,
    bar: `bar-${Math.floor(random() * 1e9).toString(36)}`,
    shmack: [sentence(random, 1), sentence(random, 1), sentence(random, 1), String(i % SHMACK_NUMBERS)],
    yack: { s: `group-${i % 10}`, n: Math.floor(random() * 1000) },
    fulltext: `topic${i % TOPICS} ${sentence(random, 110)}`,
    link_id: pick(),
    other_link_id: pick(),
    array_link_id: [pick(), pick(), pick()]
  }
}

async function createAll(model: Model, count: number, caller: Caller, body: (i: number) => Doc): Promise<Doc[]> {
  const docs: Doc[] = []
  for (let i = 0; i < count; i++)
    docs.push(await prepareCreate({ model, body: body(i), caller, form: false, bcryptRounds: 4 }))
  return docs
}

/** The bench user (a plain user, not an admin), `linkDocs` small link documents and `testDocs` ~1 KB test documents. */
export async function generateSeedData(
  models: { test: Model; link: Model },
  counts: { testDocs: number; linkDocs: number }
): Promise<SeedData> {
  const admin: Caller = { admin: true, groups: [] }
  const user = await prepareCreate({
    model: USER_MODEL,
    body: { ...BENCH_USER },
    caller: admin,
    form: false,
    bcryptRounds: 4
  })
  const owner: Caller = { userId: user._id as string, admin: false, groups: [] }
  const random = createRandom(42)
  const link = await createAll(models.link, counts.linkDocs, owner, i => ({ name: `link-${i}`, val: i }))
  const linkIds = link.map(d => d._id as string)
  const test = await createAll(models.test, counts.testDocs, owner, i => testBody(i, random, linkIds))
  return { user, link, test }
}
