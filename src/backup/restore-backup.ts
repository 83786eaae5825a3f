// `quire restore`: loads a backup file (backup-format.ts) into an empty deployment on any engine.
// Before writing anything it checks the file (its header, and its end line: a file cut short is
// refused), that this deployment defines every model the backup holds, and that every model is
// empty here. Documents are stored as they were (ids, owners, dates, password hashes, credential
// digests), in batches, with progress by bytes read.
import { createReadStream, statSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import type { Doc, Engine } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import { systemStore } from '../permissions/system-access.ts'
import { StartupError } from '../startup-error.ts'
import { BackupFileError, parseHeader, parseLine, type BackupEnd, type BackupHeader } from './backup-format.ts'

const BATCH = 2000
const EDGE_BYTES = 65_536

export interface RestoreProgress {
  bytes: number
  totalBytes: number
  documents: number
}

/** The first line (the header) and the last line (where a whole backup has its end line) of the file. */
async function edgeLines(path: string, size: number): Promise<{ first: string; last: string }> {
  const length = Math.min(size, EDGE_BYTES)
  const handle = await open(path, 'r')
  try {
    const head = (await handle.read(Buffer.alloc(length), 0, length, 0)).buffer.toString('utf8')
    const tail = (await handle.read(Buffer.alloc(length), 0, length, size - length)).buffer.toString('utf8')
    return { first: head.split('\n')[0], last: tail.trimEnd().split('\n').pop() ?? '' }
  } finally {
    await handle.close()
  }
}

/** The file's size; a file that cannot be read is one line saying why. */
function sizeOf(path: string): number {
  try {
    return statSync(path).size
  } catch (err) {
    throw new StartupError(
      `cannot read ${path}: ` +
        ((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message)
    )
  }
}

/** The line parsed, or undefined when it is not a whole line (a file cut inside one). */
function endLine(text: string): ReturnType<typeof parseLine> | undefined {
  try {
    return parseLine(text, 0)
  } catch {
    return undefined
  }
}

/** What the file promises: its header and its end line's counts. */
async function checkFile(path: string, size: number): Promise<{ header: BackupHeader; end: BackupEnd['end'] }> {
  if (size === 0) throw new StartupError(`${path} is empty: not a Quire backup`)
  const { first, last } = await edgeLines(path, size)
  const header = parseHeader(first)
  const end = last === first ? undefined : endLine(last)
  if (end?.kind !== 'end')
    throw new StartupError(
      `${path} is incomplete: it has no end line (was the backup cut short?); nothing was restored`
    )
  return { header, end: end.end }
}

/** Refuses a backup holding models this deployment does not define, or a deployment that holds documents. */
async function checkTarget(engine: Engine, header: BackupHeader, models: Map<string, Model>): Promise<void> {
  const unknown = header.models.filter(name => !models.has(name))
  if (unknown.length > 0)
    throw new StartupError(
      `the backup holds models this deployment does not define: ${unknown.join(', ')} (give MODELS_DIR ` +
        `the model files of the backed-up deployment); nothing was restored`
    )
  const store = systemStore(engine)
  const held: string[] = []
  for (const model of models.values()) {
    const count = await store.count(model, {})
    if (count > 0) held.push(`${model.name} (${count})`)
  }
  if (held.length > 0)
    throw new StartupError(
      `restore needs an empty deployment, and this one holds documents: ${held.join(', ')}. Restore into ` +
        `a new DATA_DIR or an empty database; nothing was restored`
    )
}

/** Stores the documents of the file, model by model, in batches; counts them in `restored`. */
async function loadDocuments(
  engine: Engine,
  models: Map<string, Model>,
  header: BackupHeader,
  path: string,
  restored: BackupEnd['end'],
  progress: RestoreProgress,
  onProgress: (progress: RestoreProgress) => void
): Promise<void> {
  let model: Model | undefined
  let batch: Doc[] = []
  const flush = async (): Promise<void> => {
    if (model === undefined || batch.length === 0) return
    restored.documents += await engine.insertMany(model, batch)
    restored.models[model.name] = (restored.models[model.name] ?? 0) + batch.length
    batch = []
    progress.documents = restored.documents
    onProgress(progress)
  }
  const stream = createReadStream(path, { encoding: 'utf8' })
  const lines = createInterface({ input: stream, crlfDelay: Infinity })
  let number = 0
  for await (const text of lines) {
    if (++number === 1 || text.trim() === '') continue
    progress.bytes = stream.bytesRead
    const line = parseLine(text, number)
    if (line.kind === 'end') break
    if (line.kind === 'model') {
      await flush()
      model = models.get(line.name)
      if (model === undefined || !header.models.includes(line.name))
        throw new BackupFileError(number, `model ${line.name} is not in the header`)
      restored.models[line.name] = 0
      continue
    }
    if (model === undefined) throw new BackupFileError(number, 'a document before any model line')
    batch.push(line.doc)
    if (batch.length >= BATCH) await flush()
  }
  await flush()
}

/** Restores the backup at `path` into `engine`, whose models (by name) are `models`; returns the counts restored. */
export async function restoreBackup(
  engine: Engine,
  models: Map<string, Model>,
  path: string,
  onProgress: (progress: RestoreProgress) => void
): Promise<BackupEnd['end']> {
  const progress: RestoreProgress = { bytes: 0, totalBytes: sizeOf(path), documents: 0 }
  const { header, end } = await checkFile(path, progress.totalBytes)
  await checkTarget(engine, header, models)
  const restored: BackupEnd['end'] = { documents: 0, models: {} }
  try {
    await loadDocuments(engine, models, header, path, restored, progress, onProgress)
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err)
    throw new StartupError(
      `restore stopped after ${restored.documents} documents: ${reason}. This deployment now holds part ` +
        `of the backup: empty it (a new DATA_DIR or database) before restoring again`
    )
  }
  for (const name of Object.keys(restored.models)) await engine.refreshStatistics(models.get(name)!)
  if (restored.documents !== end.documents)
    throw new StartupError(
      `restored ${restored.documents} documents where the backup's end line counts ${end.documents}: the ` +
        `file was changed after it was written`
    )
  return restored
}
