// Reads documents from an import file: a JSON array, NDJSON, or mongoexport
// output (NDJSON or --jsonArray, with extended JSON such as {"$oid"} and
// {"$date"}), yielding each document with its line (or array index) number.
import { createReadStream, readFileSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { reviveExtendedJson } from '../query/extended-json.ts'

export interface SourceDocument {
  position: number
  doc: unknown
}

async function firstCharacter(path: string): Promise<string> {
  const handle = await open(path, 'r')
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0)
    return buffer.subarray(0, bytesRead).toString('utf8').trimStart().charAt(0)
  } finally {
    await handle.close()
  }
}

/** Documents of the file at `path`; `onBytes` reports progress in bytes read. */
export async function* readDocumentStream(
  path: string,
  onBytes: (bytes: number) => void = () => {}
): AsyncGenerator<SourceDocument> {
  if ((await firstCharacter(path)) === '[') {
    const text = readFileSync(path, 'utf8')
    const list = JSON.parse(text) as unknown
    if (!Array.isArray(list)) throw new Error('The file starts with [ but is not a JSON array')
    onBytes(Buffer.byteLength(text))
    for (const [i, doc] of list.entries()) yield { position: i + 1, doc: reviveExtendedJson(doc) }
    return
  }
  const stream = createReadStream(path, { encoding: 'utf8' })
  const lines = createInterface({ input: stream, crlfDelay: Infinity })
  let line = 0
  for await (const text of lines) {
    line++
    onBytes(stream.bytesRead)
    if (text.trim() === '') continue
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch {
      throw new Error(`line ${line}: not valid JSON`)
    }
    yield { position: line, doc: reviveExtendedJson(doc) }
  }
}
