// Import of mongoexport files (extended JSON ids and dates round-trip), NDJSON
// and JSON arrays, invalid documents, and export back to NDJSON, on every engine.
import t from 'tap'
import { writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { wideEngines, createTestApp } from '../helpers/test-app.ts'
import { importDocuments, type ImportOptions } from '../../src/transfer/import-documents.ts'
import { exportDocuments } from '../../src/transfer/export-documents.ts'

const dir = mkdtempSync(join(tmpdir(), 'quire-import-'))
const options: ImportOptions = { skipInvalid: false, bcryptRounds: 4, onProgress: () => {}, onSkip: () => {} }

const mongoexport = [
  '{"_id":{"$oid":"5f1d7a2b9c8e4a0012345678"},"name":"first","val":1,"createdAt":{"$date":"2020-07-26T12:00:00.123Z"}}',
  '{"_id":{"$oid":"5f1d7a2b9c8e4a0012345679"},"name":"second","val":{"$numberInt":"2"},' +
    '"updatedAt":{"$date":{"$numberLong":"1595764800000"}}}',
  '',
  '{"_id":{"$oid":"5f1d7a2b9c8e4a001234567a"},"name":"gone","val":3,"_deleted":true}'
].join('\n')

for (const engine of wideEngines()) {
  t.test(`import and export on ${engine}`, async t => {
    const { app } = await createTestApp(t, engine)
    const model = app.models.get('link')
    const file = join(dir, `${engine}.json`)
    writeFileSync(file, mongoexport)
    const progress: number[] = []
    const result = await importDocuments(app.db, model, file, {
      ...options,
      onProgress: p => progress.push(p.imported)
    })
    t.equal(result.imported, 3)
    t.ok(progress.length > 0, 'progress is reported')

    const first = JSON.parse((await app.inject({ url: '/api/link/5f1d7a2b9c8e4a0012345678' })).body).data
    t.equal(first.name, 'first', 'the id survives the move')
    t.equal(first.createdAt, '2020-07-26T12:00:00.123Z', 'and so does the date')
    const second = JSON.parse((await app.inject({ url: '/api/link/5f1d7a2b9c8e4a0012345679' })).body).data
    t.equal(second.val, 2)
    t.equal(second.updatedAt, '2020-07-26T12:00:00.000Z', '$date with $numberLong')
    t.equal(
      (await app.inject({ url: '/api/link/5f1d7a2b9c8e4a001234567a' })).statusCode,
      404,
      'a deleted document stays deleted'
    )

    const out = new PassThrough()
    const chunks: string[] = []
    out.on('data', c => chunks.push(String(c)))
    t.equal(await exportDocuments(app.db, model, out, () => {}), 3)
    const exported = chunks
      .join('')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
    t.same(
      exported.map(d => d._id),
      ['5f1d7a2b9c8e4a0012345678', '5f1d7a2b9c8e4a0012345679', '5f1d7a2b9c8e4a001234567a']
    )

    const again = join(dir, `${engine}-again.ndjson`)
    writeFileSync(again, chunks.join(''))
    await t.rejects(importDocuments(app.db, model, again, options), 'importing the same ids twice fails')

    const arrayFile = join(dir, `${engine}-array.json`)
    writeFileSync(
      arrayFile,
      JSON.stringify([
        { name: 'x', val: 1 },
        { name: 'bad', val: 'nope' },
        { name: 'y', val: 2 }
      ])
    )
    await t.rejects(
      importDocuments(app.db, model, arrayFile, options),
      /document 2: .*val/,
      'an invalid document stops the import, naming it'
    )
    const skipped: number[] = []
    const lenient = await importDocuments(app.db, model, arrayFile, {
      ...options,
      skipInvalid: true,
      onSkip: p => skipped.push(p)
    })
    t.equal(lenient.imported, 2)
    t.same(skipped, [2])
  })
}
