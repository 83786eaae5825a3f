// The bound on an aggregation's result, the same on every engine: its documents as JSON may
// take LIMITS.aggregateResultBytes; a larger result is refused before it is all read.
import { QuireError } from '../errors.ts'
import { LIMITS } from '../validation/limits.ts'

export const MAX_RESULT_BYTES = LIMITS.aggregateResultBytes

function resultTooLarge(): QuireError {
  return new QuireError(
    'QUERY_TOO_COMPLEX',
    `The aggregation's result is larger than ${MAX_RESULT_BYTES / 1024 / 1024} MB: narrow it with $match, ` +
      `$project or $limit`
  )
}

/** The documents (JSON texts) as one JSON array, refused as soon as they go past the bound. */
export async function resultArray(docs: Iterable<string> | AsyncIterable<string>): Promise<string> {
  const parts: string[] = []
  let bytes = 0
  for await (const doc of docs) {
    bytes += Buffer.byteLength(doc)
    if (bytes > MAX_RESULT_BYTES) throw resultTooLarge()
    parts.push(doc)
  }
  return `[${parts.join(',')}]`
}
