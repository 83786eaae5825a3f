// The acting user of the statement about to run, as the change capture records it.
// TEMPORARY: reads nothing until the request scope (branch cost) is on main.
export function actingUserId (): string | undefined {
  return undefined
}
