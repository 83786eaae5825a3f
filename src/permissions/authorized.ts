// The mark on everything an engine accepts: a filter, query or pipeline that the
// permissions module built for a caller (validated, narrowed to the rows the caller
// may touch, hidden fields refused). Engines take only Authorized values, so a new
// path cannot reach the database without going through src/permissions.
// test/architecture.test.ts checks that only src/permissions imports `authorized`.

declare const AUTHORIZED: unique symbol

export type Authorized<T> = T & { readonly [AUTHORIZED]: true }

/** Marks a value as authorized. Only the modules of src/permissions call this. */
export function authorized<T>(value: T): Authorized<T> {
  return value as Authorized<T>
}
