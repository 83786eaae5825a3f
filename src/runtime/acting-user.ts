// The acting user of the statement about to run, as the change capture records it: the
// caller of the request being served (none outside requests: start-up, the CLI, the feed).
import { currentRequestScope } from './request-scope.ts'

export function actingUserId(): string | undefined {
  return currentRequestScope()?.caller?.userId
}
