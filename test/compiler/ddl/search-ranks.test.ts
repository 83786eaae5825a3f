// The rank table of a full-text index (src/compiler/ddl/search-ranks.ts): whatever writes the documents
// (inserts, updates through the engine or by hand, deletes), it holds exactly each document's
// ts_rank for each of its lexemes; a one-word search read from it gives exactly the page that
// ranking every match gives; and the schema sync builds it once, leaves it alone on the next
// start and replaces it when the index changes. On PostgreSQL.
import t from 'tap'
import { openPostgres } from '../../../src/storage/postgres/postgres-client.ts'
import { createSqlEngine } from '../../../src/storage/sql/sql-engine.ts'
import type { Doc, FindQuery } from '../../../src/storage/engine.ts'
import { authorized, type Authorized } from '../../../src/permissions/authorized.ts'
import { parseModelFile } from '../../../src/models/load-models.ts'
import type { Model } from '../../../src/models/model-definition.ts'
import { searchRanks } from '../../../src/compiler/ddl/search-ranks.ts'
import { fulltextColumn } from '../../../src/compiler/ddl/schema-ddl.ts'
import type { SqlClient } from '../../../src/storage/sql/sql-client.ts'
import { databaseUrl, ENGINES, type EngineName } from '../../helpers/test-app.ts'

const WORDS = ['apple', 'banana', 'cherry', 'damson', 'elder', 'fig', 'grape', "o'neil", 'back\\slash', 'the']

function modelOf(language: string): Model {
  return parseModelFile(
    JSON.stringify({
      name: 'ranked',
      fields: { body: { type: 'string' }, title: { type: 'string' }, n: { type: 'integer' } },
      fulltext: { fields: ['title', 'body'], language }
    }),
    'ranked.json'
  )
}

/** Pseudo-random but repeatable: word counts from 0 to 3, so ranks differ and tie. */
function textOf(k: number): string {
  return WORDS.flatMap((word, w) => Array.from({ length: (k * (w + 3) + w * w) % 4 }, () => word)).join(' ')
}

function documents(count: number, salt = 0): Doc[] {
  return Array.from({ length: count }, (_, k) => {
    const id = (k + salt * 100_000).toString(16).padStart(24, '0')
    return {
      _id: id,
      id,
      _deleted: k % 11 === 0,
      title: textOf(k + salt)
        .split(' ')
        .slice(0, 2)
        .join(' '),
      body: textOf(k * 7 + salt),
      n: k % 5
    }
  })
}

async function openClient(engine: EngineName): Promise<SqlClient> {
  return openPostgres(await databaseUrl(engine), 60_000)
}

/**
 * Rows of the rank table that a recomputation from the documents (every lexeme ranked above one occurrence) lacks, and
 * the other way round.
 */
async function rankDrift(client: SqlClient, model: Model): Promise<number> {
  const ranks = searchRanks(model)!.name
  const fts = fulltextColumn(model)!.name
  const rank = `ts_rank(t.${fts}, array_to_tsvector(ARRAY[l.lexeme])::text::tsquery)`
  const recomputed =
    `SELECT l.lexeme, ${rank}, t._id FROM q_ranked t, unnest(t.${fts}) l WHERE ${rank} > ` +
    `ts_rank('x:1'::tsvector, 'x')`
  const [row] = await client.query(
    `SELECT (SELECT count(*) FROM ((SELECT * FROM ${ranks} EXCEPT ALL ${recomputed}) UNION ALL ` +
      `(${recomputed} EXCEPT ALL SELECT * FROM ${ranks})) d)::int AS n`
  )
  return row.n as number
}

function searchQuery(word: string, extra: Partial<FindQuery> = {}): Authorized<FindQuery> {
  return authorized({
    filter: authorized({ _deleted: false }),
    sort: [],
    limit: 7,
    skip: 0,
    count: true,
    search: word,
    populate: [],
    ...extra
  })
}

/**
 * The page a search should give: every match (with `condition`) ranked by ts_rank, then `order`, computed here in SQL.
 */
async function expectedPage(
  client: SqlClient,
  model: Model,
  word: string,
  query: FindQuery,
  order: string,
  condition = 'true'
): Promise<string[]> {
  const fts = fulltextColumn(model)!.name
  const q = "websearch_to_tsquery('english', $1)"
  const rows = await client.query(
    `SELECT _id FROM q_ranked t WHERE t.${fts} @@ ${q} AND (t.doc->'_deleted') = 'false' AND ${condition} ` +
      `ORDER BY ts_rank(t.${fts}, ${q}) DESC, ${order} LIMIT ${query.limit} OFFSET ${query.skip}`,
    [word]
  )
  return rows.map(r => r._id as string)
}

const idsOf = (data: string): string[] => (JSON.parse(data) as Array<{ _id: string }>).map(d => d._id)

for (const engine of ENGINES) {
  t.test(`${engine}: one-word searches read the rank table and give the page ranking every match gives`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    const model = modelOf('english')
    const sql = createSqlEngine(client)
    await sql.syncModels([model])
    await sql.insertMany(model, documents(300))
    t.equal(await rankDrift(client, model), 0, 'the rank table holds every lexeme ranked above a single occurrence')
    const [{ held, all }] = await client.query(
      `SELECT (SELECT count(*) FROM ${searchRanks(model)!.name})::int AS held, (SELECT count(*) FROM ` +
        `q_ranked, unnest(${fulltextColumn(model)!.name}))::int AS all`
    )
    t.ok(Number(held) > 300 && Number(held) < Number(all), `and only those: ${String(held)} of ${String(all)} lexemes`)

    const cases: Array<[Partial<FindQuery>, string, string?]> = [
      [{}, '_id ASC'],
      [{ skip: 7 }, '_id ASC'],
      [{ limit: 50, skip: 3 }, '_id ASC'],
      [{ sort: [['n', -1]] }, "(t.doc->'n') DESC, _id DESC"],
      [{ filter: authorized({ _deleted: false, n: 2 }) }, '_id ASC', "(t.doc->'n') = '2'"]
    ]
    for (const word of [...WORDS, 'Apple', 'figs', 'nothing']) {
      for (const [extra, order, condition] of cases) {
        for (const count of [true, false]) {
          // without the count, a page in _id order is first tried on a walk of the primary key
          const query = searchQuery(word, { ...extra, count })
          t.same(
            idsOf((await sql.find(model, query)).data),
            await expectedPage(client, model, word, query, order, condition),
            `search=${word} ${JSON.stringify({ ...extra, count })}`
          )
        }
      }
    }
    const [first] = JSON.parse((await sql.find(model, searchQuery('cherry'))).data) as Array<{ score: number }>
    const [{ r }] = await client.query(
      `SELECT jsonb_build_object('r', max(ts_rank(${fulltextColumn(model)!.name}, to_tsquery('english', ` +
        `'cherry'))))->>'r' AS r FROM q_ranked WHERE (doc->'_deleted') = 'false'`
    )
    t.equal(first.score, Number(r), 'the score is ts_rank')
    t.equal(
      JSON.parse((await sql.find(model, searchQuery('apple banana'))).data).length,
      7,
      'a two-word search still answers (from the matches)'
    )

    await client.exec(
      "UPDATE q_ranked SET doc = jsonb_set(doc, '{body}', to_jsonb('grape grape grape grape'::text)) " +
        'WHERE _id IN (SELECT _id FROM q_ranked ORDER BY _id LIMIT 40)'
    )
    await client.exec(
      "UPDATE q_ranked SET doc = jsonb_set(doc, '{n}', '9') WHERE _id IN (SELECT _id FROM q_ranked ORDER " +
        'BY _id DESC LIMIT 40)'
    )
    await client.exec('DELETE FROM q_ranked WHERE _id IN (SELECT _id FROM q_ranked ORDER BY _id LIMIT 20 OFFSET 100)')
    await sql.insertMany(model, documents(30, 1))
    t.equal(
      await rankDrift(client, model),
      0,
      'after updates of the text and of other fields, deletes and more inserts'
    )
    const grape = searchQuery('grape')
    t.same(
      idsOf((await sql.find(model, grape)).data),
      await expectedPage(client, model, 'grape', grape, '_id ASC'),
      'and the search follows them'
    )

    // Documents sorting after all others by _id, none holding the words above: a page in
    // descending _id order walks them first, finds no match and reads the full-text index instead.
    const fillers = Array.from({ length: 2600 }, (_, k): Doc => {
      const id = `f${k.toString(16).padStart(23, '0')}`
      return { _id: id, id, _deleted: false, title: 'filler', body: 'filler text', n: 0 }
    })
    await sql.insertMany(model, fillers)
    for (const word of ['apple', 'grape', 'filler', 'damson']) {
      const query = searchQuery(word, { sort: [['_id', -1]], count: false })
      t.same(
        idsOf((await sql.find(model, query)).data),
        await expectedPage(client, model, word, query, '_id DESC'),
        `search=${word}, newest first, past the walk`
      )
    }
  })

  t.test(`${engine}: the schema sync builds the rank table once and replaces it when the index changes`, async t => {
    const client = await openClient(engine)
    t.teardown(() => client.close())
    const logged: string[] = []
    const english = modelOf('english')
    await createSqlEngine(client).syncModels([english])
    await createSqlEngine(client).insertMany(english, documents(50))
    await createSqlEngine(client, msg => logged.push(msg)).syncModels([english])
    t.same(
      logged.filter(msg => msg.includes('search ranks')),
      [],
      'an up-to-date database is only read'
    )

    const simple = modelOf('simple')
    t.not(searchRanks(simple)!.name, searchRanks(english)!.name, 'another language, another rank table')
    await createSqlEngine(client, msg => logged.push(msg)).syncModels([simple])
    t.ok(
      logged.some(msg => msg.startsWith(`building search ranks ${searchRanks(simple)!.name}`)),
      'built'
    )
    const tables = await client.query(
      "SELECT relname AS name FROM pg_class WHERE relname LIKE 'qr\\_ranked\\_%' AND relkind = 'r'"
    )
    t.same(
      tables.map(r => r.name),
      [searchRanks(simple)!.name],
      'the stale rank table is dropped'
    )
    const triggers = await client.query(
      "SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'q_ranked'::regclass AND tgname LIKE 'qr\\_%' ORDER BY 1"
    )
    t.equal(triggers.length, 3, 'three triggers keep it (insert, update, delete)')
    t.equal(await rankDrift(client, simple), 0, "it holds the stored documents' lexemes")

    await createSqlEngine(client).syncModels([
      parseModelFile(JSON.stringify({ name: 'ranked', fields: { body: { type: 'string' } } }), 'ranked.json')
    ])
    t.same(
      await client.query("SELECT relname FROM pg_class WHERE relname LIKE 'qr\\_ranked\\_%'"),
      [],
      'no full-text index, no rank table'
    )
    await client.exec("INSERT INTO q_ranked (_id, doc) VALUES ('f'||repeat('0', 23), '{}')")
    t.pass('and writes go on without its triggers')
  })
}
