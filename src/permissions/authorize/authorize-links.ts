// Which link targets a write may name: documents its writer can read (live, and owned when the
// writer's read right is owner-only). A link to any other document let a writer pin a document
// they cannot see (ids are sequential, so easy to guess): its owner could then not delete it.
// Admins read everything, so their links are not checked (nor are links to missing documents).
import type { Caller } from '../../auth/caller.ts'
import type { Doc } from '../../storage/engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { ModelRegistry } from '../../models/model-registry.ts'
import type { Filter } from '../../query/types.ts'
import { authorized, type Authorized } from '../authorized.ts'
import { allOf, linkScope } from '../row-scope.ts'

export interface LinkCheck {
  field: string
  target: Model
  /** The distinct ids the field names. */
  ids: string[]
  /** Matches those of them the writer may name: all must match. */
  readable: Authorized<Filter>
}

function idsIn(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value]
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))]
}

/** One check per link field of `fields` that names ids, for a caller who is not an admin. */
export function authorizeLinks(registry: ModelRegistry, model: Model, caller: Caller, fields: Doc): LinkCheck[] {
  if (caller.admin) return []
  return model.links.flatMap(link => {
    const ids = idsIn(fields[link.field])
    if (ids.length === 0) return []
    const target = registry.get(link.target)
    return [
      { field: link.field, target, ids, readable: authorized(allOf({ _id: { $in: ids } }, linkScope(target, caller))) }
    ]
  })
}
