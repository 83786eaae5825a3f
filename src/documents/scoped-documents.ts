// The documents API model code receives (hooks and methods, src/models/model-code.ts):
// the operations of the HTTP routes, for the same caller with the same permissions,
// on parsed values. There is no door that skips the permissions.
import type { Doc } from '../storage/engine.ts'
import type { QueryParams } from '../query/parse-list-params.ts'
import type { DeleteOptions } from '../permissions/authorize/authorize-delete.ts'
import { countDocuments, listDocuments, readDocument } from './read-documents.ts'
import { createDocument, updateDocument } from './write-documents.ts'
import { deleteDocument } from './delete-document.ts'
import type { DocumentContext } from './document-context.ts'

interface ListPageResult {
  count: number
  data: Doc[]
  [key: string]: unknown
}

export interface ScopedDocuments {
  /** A list page, as GET /api/{model}?params answers it. */
  list: (model: string, params?: QueryParams) => Promise<ListPageResult>
  /** One document (404 when the caller cannot read it), as GET /api/{model}/{id}?params answers it. */
  get: (model: string, id: string, params?: QueryParams) => Promise<Doc>
  count: (model: string, params?: QueryParams) => Promise<number>
  create: (model: string, body: Doc) => Promise<Doc>
  update: (model: string, id: string, body: Doc) => Promise<Doc>
  remove: (model: string, id: string, options?: Partial<DeleteOptions>) => Promise<void>
}

export function scopedDocuments(ctx: DocumentContext): ScopedDocuments {
  const modelOf = (name: string) => ctx.registry.get(name)
  const written = (result: { data?: string }): Doc => JSON.parse(result.data ?? 'null') as Doc
  return {
    list: async (model, params = {}) =>
      JSON.parse(await listDocuments(ctx, modelOf(model), params, `/api/${model}`)) as ListPageResult,
    get: async (model, id, params = {}) =>
      (JSON.parse(await readDocument(ctx, modelOf(model), id, params)) as { data: Doc }).data,
    count: async (model, params = {}) => await countDocuments(ctx, modelOf(model), params),
    create: async (model, body) => written(await createDocument(ctx, modelOf(model), body, false)),
    update: async (model, id, body) => written(await updateDocument(ctx, modelOf(model), id, body, false)),
    remove: async (model, id, options = {}) => {
      await deleteDocument(ctx, modelOf(model), id, {
        permanent: options.permanent === true,
        cascade: options.cascade === true
      })
    }
  }
}
