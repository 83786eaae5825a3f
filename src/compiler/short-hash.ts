// A short, stable digest of a definition, for the names of generated columns, indexes and
// statistics: a changed definition gets a new name.
import { createHash } from 'node:crypto'

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 10)
}
