// Admin operations on a user's groups: list, add, remove. Only an admin who logged in with a
// credential changes groups (not with a login link). Changes are compare-and-swap on the
// record's version, so concurrent changes do not lose each other's groups. A changed group list
// applies from the user's next request.
import type { Doc } from '../../storage/engine.ts'
import type { SystemStore } from '../../permissions/system-access.ts'
import { QuireError } from '../../errors.ts'
import { requireAdmin } from '../../permissions/access.ts'
import { refuseLoginLinks, type Caller } from '../caller.ts'
import { checkGroupNames } from './user-rules.ts'
import { findLiveUser } from './user-records.ts'
import { USER_MODEL } from './user-model.ts'

const GROUP_NAME = /^[A-Za-z0-9_-]{1,64}$/
const ATTEMPTS = 5

function groupsOf(user: Doc): string[] {
  return Array.isArray(user.groups) ? (user.groups as string[]) : []
}

export function checkGroupName(group: string): void {
  if (!GROUP_NAME.test(group)) {
    throw new QuireError('VALIDATION_FAILED', 'A group name is 1 to 64 letters, digits, _ or -', [
      { field: 'group', message: 'must match ^[A-Za-z0-9_-]{1,64}$' }
    ])
  }
  checkGroupNames([group])
}

export async function listGroups(engine: SystemStore, userId: string): Promise<string[]> {
  return groupsOf(await findLiveUser(engine, userId))
}

/** Throws unless `caller` may change groups: an admin, not come with a login link (it logs in, nothing more). */
export function requireGroupAdmin(caller: Caller): void {
  requireAdmin(caller, 'change the groups of users')
  refuseLoginLinks(caller, 'change the groups of users')
}

/** Applies `change` to the user's groups for `caller` and stores the result; returns the new list. */
export async function changeGroups(
  engine: SystemStore,
  caller: Caller,
  userId: string,
  change: (groups: string[]) => string[]
): Promise<string[]> {
  requireGroupAdmin(caller)
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const user = await findLiveUser(engine, userId)
    const groups = change(groupsOf(user))
    const set = { groups, updatedAt: new Date().toISOString() }
    if ((await engine.updateOne(USER_MODEL, { _id: userId, _deleted: false, __v: user.__v }, set)) !== null)
      return groups
  }
  throw new QuireError('CONFLICT', 'The user record is changing concurrently: try again')
}
