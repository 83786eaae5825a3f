// The backup file (`quire backup`): NDJSON. A header line, then for each model a line naming it
// followed by its documents as stored (soft-deleted ones and password hashes included), then an
// end line with the counts, so that a file cut short is told from a whole one. Documents always
// have an `_id`; the other lines never do.
import { StartupError } from '../startup-error.ts'

export const BACKUP_FORMAT = 1

export interface BackupHeader {
  quire_backup: typeof BACKUP_FORMAT
  created: string
  /** The engine it was taken from: "postgres" or "mongodb". */
  engine: string
  /** false: the source server could not read one moment (MongoDB without a replica set). */
  consistent: boolean
  models: string[]
}

export interface BackupEnd {
  end: { documents: number; models: Record<string, number> }
}

export type BackupLine =
  | { kind: 'document'; doc: Record<string, unknown> }
  | { kind: 'model'; name: string }
  | { kind: 'end'; end: BackupEnd['end'] }

/** A problem with the file, named with its line. */
export class BackupFileError extends StartupError {
  constructor(line: number, problem: string) {
    super(`line ${line}: ${problem}`)
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The header of a backup file (its first line), or a BackupFileError saying why it is none. */
export function parseHeader(text: string): BackupHeader {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new BackupFileError(1, 'not a Quire backup (the first line is not JSON)')
  }
  if (!isObject(value) || value.quire_backup === undefined)
    throw new BackupFileError(1, 'not a Quire backup (no quire_backup header)')
  if (value.quire_backup !== BACKUP_FORMAT)
    throw new BackupFileError(
      1,
      `a backup of format ${String(value.quire_backup)}, which this Quire cannot read (it reads ` +
        `format ${BACKUP_FORMAT})`
    )
  if (!Array.isArray(value.models) || !value.models.every(name => typeof name === 'string'))
    throw new BackupFileError(1, 'the header names no models')
  return value as unknown as BackupHeader
}

/** One line after the header. */
export function parseLine(text: string, line: number): BackupLine {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new BackupFileError(line, 'not valid JSON')
  }
  if (!isObject(value)) throw new BackupFileError(line, 'not a JSON object')
  if (value._id !== undefined) {
    if (typeof value._id !== 'string' || value._id === '')
      throw new BackupFileError(line, 'a document whose _id is not a string')
    return { kind: 'document', doc: value }
  }
  if (typeof value.model === 'string') return { kind: 'model', name: value.model }
  if (isObject(value.end) && typeof value.end.documents === 'number')
    return { kind: 'end', end: value.end as BackupEnd['end'] }
  throw new BackupFileError(line, 'neither a document, a model line nor the end line')
}
