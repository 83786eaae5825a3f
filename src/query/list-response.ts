// Writes a list read's response body as JSON text around the engine's page
// (passed through unparsed): count, paging keys, next/prev links, data.

export interface ListPage {
  /** JSON text of the documents array. */
  data: string
  /** Number of documents in `data`. */
  returned: number
  /** Exact count, or -1 when the collection is too large to count on every read, or the planner's estimate. */
  count: number
  /** `count` is the planner's estimate (count=planned or estimated): paging follows the page, not the count. */
  countEstimated?: boolean
  limit: number
  page: number
  limitCapped: boolean
  /** The request's path and query string, e.g. "/api/test?limit=10&filter[foo]=x". */
  url: string
}

/** The same URL with `page` set to `page` (every other parameter kept, credentials left out). */
function pageUrl(url: string, page: number): string {
  const [path, query = ''] = url.split(/\?(.*)/s)
  const params = new URLSearchParams(query)
  params.delete('apikey')
  params.delete('jwt')
  params.set('page', String(page))
  return `${path}?${params.toString()}`
}

export function writeListResponse(page: ListPage): string {
  const pageCount = page.count < 0 ? -1 : Math.ceil(page.count / page.limit)
  const hasNext = page.count < 0 || page.countEstimated === true ? page.returned === page.limit : page.page < pageCount
  const head: Record<string, unknown> = {
    count: page.count,
    ...(page.countEstimated && { count_estimated: true }),
    limit: page.limit,
    page: page.page,
    page_count: pageCount,
    ...(page.limitCapped && { limit_capped: true }),
    ...(hasNext && { next: pageUrl(page.url, page.page + 1) }),
    ...(page.page > 1 && { prev: pageUrl(page.url, page.page - 1) })
  }
  return `${JSON.stringify(head).slice(0, -1)},"data":${page.data}}`
}
