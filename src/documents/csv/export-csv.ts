// GET /csv/{model}: a list read as CSV (RFC 4180 by csv-stringify, CRLF records,
// cells holding a CR or LF quoted, formula-looking cells escaped), streamed: documents come from the engine in
// batches and go out as the client takes them, so no export sits in memory. The
// same parameters and permissions as the list; no page size, but a caller who is
// not an admin gets at most CSV_MAX_ROWS rows: a larger export is a 400 before any
// row is sent (narrow it, or page it with limit and page).
import type { Readable } from 'node:stream'
import { stringify } from 'csv-stringify'
import type { FindQuery } from '../../storage/engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { QueryParams } from '../../query/parse-list-params.ts'
import { authorizeFind } from '../../permissions/authorize/authorize-read.ts'
import type { Authorized } from '../../permissions/authorized.ts'
import { LIMITS } from '../../validation/limits.ts'
import { QuireError } from '../../errors.ts'
import { csvColumns, csvRow, type CsvColumn } from './csv-columns.ts'
import type { DocumentContext } from '../document-context.ts'

export interface CsvExport {
  query: Authorized<FindQuery>
  columns: CsvColumn[]
}

function tooLarge(rows: number, cap: number): QuireError {
  return new QuireError(
    'QUERY_TOO_COMPLEX',
    `This export has ${rows} rows; callers who are not admins may export at most ${cap} at once: narrow ` +
      `it with filters, or export it in pages with limit and page`
  )
}

/** Refuses an export of more than `cap` rows (counted exactly: statistics may lag the writes). */
async function checkSize(ctx: DocumentContext, model: Model, query: Authorized<FindQuery>, cap: number): Promise<void> {
  const { count = 0 } = await ctx.engine.find(model, { ...query, limit: 1, skip: 0, count: true })
  if (count - query.skip > cap) throw tooLarge(count - query.skip, cap)
}

/** The export's authorized query and columns; 400 when a caller who is not an admin asks for too many rows. */
export async function planCsvExport(ctx: DocumentContext, model: Model, query: QueryParams): Promise<CsvExport> {
  const params = ctx.queryBuilder.parse(model, query)
  const cap = ctx.caller.admin ? undefined : ctx.config.csvMaxRows
  if (params.limit !== undefined && cap !== undefined && params.limit > cap) throw tooLarge(params.limit, cap)
  const limit = params.limit ?? cap ?? Number.MAX_SAFE_INTEGER
  const skip = (params.limit === undefined ? 0 : (params.page - 1) * params.limit) + params.skip
  const found = authorizeFind({ caller: ctx.caller, registry: ctx.registry }, model, params, {
    limit,
    skip,
    count: false
  })
  if (params.limit === undefined && cap !== undefined) await checkSize(ctx, model, found, cap)
  return { query: found, columns: csvColumns(model, params.fields, found.populate, params.search !== undefined) }
}

const clientLeft = (reason: string): QuireError => new QuireError('CLIENT_CLOSED', reason)

/**
 * Resolves when `stream` can take more; rejects with CLIENT_CLOSED when it closed (the client left) or stalled for
 * LIMITS.csvStallMs.
 */
function drained(stream: Readable & { write: (row: unknown) => boolean }): Promise<void> {
  if (stream.destroyed) return Promise.reject(clientLeft('the CSV stream was closed'))
  return new Promise((resolve, reject) => {
    const done = (err?: Error): void => {
      clearTimeout(timer)
      stream.off('drain', onDrain).off('close', onClose)
      if (err) reject(err)
      else resolve()
    }
    const onDrain = (): void => done()
    const onClose = (): void => done(clientLeft('the CSV stream was closed'))
    const timer = setTimeout(
      () => done(clientLeft(`the client took no data for ${LIMITS.csvStallMs} ms`)),
      LIMITS.csvStallMs
    )
    stream.on('drain', onDrain).on('close', onClose)
  })
}

/**
 * Streams the export: `open` gets the CSV stream once the first batch is read (or the export
 * turned out empty), so an error before that is still an ordinary error response. An error after
 * it ends the stream and is logged (at info level when the client left). Returns the number of rows.
 */
export async function writeCsv(
  ctx: DocumentContext,
  model: Model,
  plan: CsvExport,
  open: (csv: Readable) => void
): Promise<number> {
  // csv-stringify quotes a cell holding the record delimiter (CRLF) but not a bare CR or LF, where
  // spreadsheets start a new row whose first cell is the text after it (a forged row): quote those too.
  const csv = stringify({
    header: true,
    columns: plan.columns.map(c => c.header),
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
    escape_formulas: true,
    cast: { boolean: value => String(value) }
  })
  let opened = false
  const start = (): void => {
    if (!opened) {
      opened = true
      open(csv)
    }
  }
  try {
    const rows = await ctx.engine.streamFind(model, plan.query, LIMITS.csvBatchRows, async docs => {
      start()
      for (const text of docs) if (!csv.write(csvRow(JSON.parse(text), plan.columns))) await drained(csv)
    })
    start()
    csv.end()
    return rows
  } catch (err) {
    if (!opened) throw err
    // A client that left (or stopped reading) is not the server's error: anyone could fill the error log with them.
    const byClient = err instanceof QuireError && err.code === 'CLIENT_CLOSED'
    ctx.log[byClient ? 'info' : 'error']({ err }, `CSV export of ${model.name} ended early`)
    csv.destroy()
    return -1
  }
}
