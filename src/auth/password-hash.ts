// How password fields are stored: bcrypt hashes. bcrypt reads only the first 72
// bytes of a password and ignores the rest (with 2-byte characters, only the
// first 36 characters would count), so a longer one is refused with a 400
// instead of being cut silently. Every path that sets a password comes here. A request's
// hashes run one at a time per client (its address, IPv6 by /64), a few more waiting: each
// costs tens of ms of a password thread (bcrypt-pool.ts) that logins share, and creates of
// documents with a password field, sent at once, made other users' logins 3 to 20 times slower.
import { QuireError } from '../errors.ts'
import { bcryptWork } from './bcrypt-pool.ts'
import { createAddressTurns } from './throttle/address-turns.ts'
import { currentRequestScope } from '../runtime/request-scope.ts'

/** Hashes waiting for their client's turn, beyond the running one; more are a 429. */
const HASHES_WAITING_PER_CLIENT = 20
const turns = createAddressTurns(HASHES_WAITING_PER_CLIENT, 'passwords to hash')

/** The most bytes (UTF-8) of a password bcrypt reads. */
const MAX_PASSWORD_BYTES = 72

/** Throws VALIDATION_FAILED when a password is longer than bcrypt reads. */
export function checkPasswordLength(value: string, field: string): void {
  const bytes = Buffer.byteLength(value, 'utf8')
  if (bytes <= MAX_PASSWORD_BYTES) return
  throw new QuireError(
    'VALIDATION_FAILED',
    `${field.slice(0, 64)} is ${bytes} bytes long in UTF-8: a password is at most ${MAX_PASSWORD_BYTES} ` +
      `bytes (bcrypt ignores the rest)`,
    [{ field: field.slice(0, 64), message: `must be at most ${MAX_PASSWORD_BYTES} bytes (UTF-8)` }]
  )
}

/** bcrypt hash of a password; VALIDATION_FAILED when it is longer than bcrypt reads. */
export async function hashPassword(password: string, rounds: number, field = 'password'): Promise<string> {
  checkPasswordLength(password, field)
  const client = currentRequestScope()?.client
  // Outside a request (the command line, start-up): nobody else to wait for.
  if (client === undefined) return await bcryptWork.hash(password, rounds)
  return await turns.run(client, () => bcryptWork.hash(password, rounds))
}
