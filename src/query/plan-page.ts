// The page of a list read: the page size (the default when none is asked, capped at the
// maximum) and where the page starts.
import type { Page } from '../permissions/authorize/authorize-read.ts'
import type { ListParams } from './parse-list-params.ts'

export interface PageSettings {
  defaultPageSize: number
  maxPageSize: number
}

export interface ListPage extends Page {
  page: number
  /** The client asked for more than the maximum (the reply says `limit_capped`). */
  limitCapped: boolean
}

/** The page a list read's parameters ask for, within the settings; no count (the caller decides). */
export function planPage(params: ListParams, settings: PageSettings): ListPage {
  const limitCapped = params.limit !== undefined && params.limit > settings.maxPageSize
  const limit = Math.min(params.limit ?? settings.defaultPageSize, settings.maxPageSize)
  return { limit, skip: (params.page - 1) * limit + params.skip, count: false, page: params.page, limitCapped }
}
