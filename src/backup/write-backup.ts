// `quire backup`: every model's documents, as stored, read from one snapshot of the database
// (Engine.readSnapshot) and streamed to `out` in the backup format (backup-format.ts), with
// progress reported per batch.
import type { Writable } from 'node:stream'
import type { Engine } from '../storage/engine.ts'
import type { Model } from '../models/model-definition.ts'
import { BACKUP_FORMAT, type BackupEnd, type BackupHeader } from './backup-format.ts'

const BATCH = 5000

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await new Promise(resolve => out.once('drain', resolve))
}

export interface BackupSummary {
  consistent: boolean
  documents: number
  models: Record<string, number>
}

/** Writes the backup of `models` to `out`; `onProgress` gets the documents written so far. */
export async function writeBackup(
  engine: Engine,
  models: Model[],
  out: Writable,
  onProgress: (documents: number) => void
): Promise<BackupSummary> {
  return await engine.readSnapshot(async snapshot => {
    const header: BackupHeader = {
      quire_backup: BACKUP_FORMAT,
      created: new Date().toISOString(),
      engine: engine.kind,
      consistent: snapshot.consistent,
      models: models.map(m => m.name)
    }
    await write(out, JSON.stringify(header) + '\n')
    const end: BackupEnd['end'] = { documents: 0, models: {} }
    for (const model of models) {
      await write(out, JSON.stringify({ model: model.name }) + '\n')
      end.models[model.name] = 0
      for await (const batch of snapshot.exportAll(model, BATCH)) {
        await write(out, batch.join('\n') + '\n')
        end.models[model.name] += batch.length
        end.documents += batch.length
        onProgress(end.documents)
      }
    }
    await write(out, JSON.stringify({ end } satisfies BackupEnd) + '\n')
    return { consistent: snapshot.consistent, ...end }
  })
}
