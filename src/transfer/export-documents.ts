// `quire export`: writes every document of a model (soft-deleted ones and
// password hashes included, so an import restores them) as NDJSON.
import type { Writable } from 'node:stream'
import type { Engine } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'

const EXPORT_BATCH = 5000

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await new Promise(resolve => out.once('drain', resolve))
}

/** Streams the model's documents to `out`, one JSON document per line; returns how many. */
export async function exportDocuments(
  engine: Engine,
  model: Model,
  out: Writable,
  onProgress: (count: number) => void
): Promise<number> {
  let count = 0
  for await (const batch of engine.exportAll(model, EXPORT_BATCH)) {
    await write(out, batch.join('\n') + '\n')
    count += batch.length
    onProgress(count)
  }
  return count
}
