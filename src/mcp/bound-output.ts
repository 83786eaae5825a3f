// Keeps what an MCP tool returns to a model's context small: at most MCP_LIMITS.rows rows,
// strings cut at MCP_LIMITS.stringChars, the whole text under MCP_LIMITS.bytes. Whatever was
// cut is said in a `truncated` entry of the result (rows omitted, strings shortened, why).

export const MCP_LIMITS = { rows: 100, stringChars: 2000, bytes: 100_000 }

/** The marker ending a shortened string. */
export const STRING_MARK = '…[truncated]'

interface Cuts {
  strings: number
}

/** `value` with every string longer than the limit shortened (and marked), counted in `cuts`. */
function shortenStrings(value: unknown, cuts: Cuts): unknown {
  if (typeof value === 'string') {
    if (value.length <= MCP_LIMITS.stringChars) return value
    cuts.strings++
    return value.slice(0, MCP_LIMITS.stringChars) + STRING_MARK
  }
  if (Array.isArray(value)) return value.map(item => shortenStrings(item, cuts))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shortenStrings(item, cuts)]))
  }
  return value
}

/**
 * `{...head, data: rows, truncated?}` as JSON text within the limits: rows past the row limit
 * or the byte budget are left out, and `truncated` says how many and why.
 */
export function boundRows(head: Record<string, unknown>, rows: unknown[], note?: string): string {
  const cuts: Cuts = { strings: 0 }
  const headText = JSON.stringify(shortenStrings(head, cuts))
  let budget = MCP_LIMITS.bytes - headText.length - 200
  const kept: unknown[] = []
  for (const row of rows.slice(0, MCP_LIMITS.rows)) {
    const shortened = shortenStrings(row, cuts)
    const size = JSON.stringify(shortened).length + 1
    if (size > budget) break
    budget -= size
    kept.push(shortened)
  }
  const omitted = rows.length - kept.length
  const reasons = [
    note,
    omitted > 0
      ? `${omitted} of ${rows.length} rows omitted (at most ${MCP_LIMITS.rows} rows and ${MCP_LIMITS.bytes} ` +
        `bytes per result)`
      : undefined,
    cuts.strings > 0
      ? `${cuts.strings} strings shortened to ${MCP_LIMITS.stringChars} characters (ending ${STRING_MARK})`
      : undefined
  ].filter(reason => reason !== undefined)
  const truncated =
    reasons.length === 0
      ? undefined
      : { rowsOmitted: omitted, stringsShortened: cuts.strings, reason: reasons.join('; ') }
  return JSON.stringify({
    ...(JSON.parse(headText) as Record<string, unknown>),
    data: kept,
    ...(truncated && { truncated })
  })
}

/** One value (a document, a description) within the limits: `{data, truncated?}` as JSON text. */
export function boundValue(value: unknown): string {
  const cuts: Cuts = { strings: 0 }
  const text = JSON.stringify({ data: shortenStrings(value, cuts) })
  if (text.length > MCP_LIMITS.bytes)
    return JSON.stringify({
      data: null,
      truncated: { reason: `the result (${text.length} bytes) is over ${MCP_LIMITS.bytes} bytes: ask for fewer fields` }
    })
  if (cuts.strings === 0) return text
  return JSON.stringify({
    ...(JSON.parse(text) as object),
    truncated: {
      stringsShortened: cuts.strings,
      reason: `${cuts.strings} strings shortened to ${MCP_LIMITS.stringChars} characters (ending ${STRING_MARK})`
    }
  })
}
