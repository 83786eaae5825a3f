// The service's own secret (it signs login links, seals API keys, keys the
// Basic cache), chosen at start: QUIRE_SECRET when set; otherwise, with the embedded
// server, a file in DATA_DIR (`quire-secret`, mode 0600) created on first
// start; otherwise a random secret stored in the database, shared by every
// process using it. The database records a keyed fingerprint of the secret, so a
// process whose secret differs is refused at start instead of silently breaking
// every API key and link.
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Engine } from '../storage/engine.ts'
import type { Config } from '../config.ts'
import { systemStore, type SystemStore } from '../permissions/system-access.ts'
import type { Model } from '../models/model-definition.ts'
import { resolveModel } from '../models/load-models.ts'
import { QuireError } from '../errors.ts'
import { StartupError } from '../startup-error.ts'
import { deriveKey } from './secrets.ts'
import { SECRET_FILE } from '../embedded/data-dir.ts'

/** Settings of the service kept in its database, one document per name (`_id`). */
const SERVICE_MODEL: Model = {
  ...resolveModel({ name: '_service', fields: { value: { type: 'string' } }, perms: {} }),
  builtIn: true
}

const FINGERPRINT = 'secret-fingerprint'
const STORED_SECRET = 'secret'
const ADOPT_HINT =
  "or run `quire secret adopt` to make this secret the one (API keys are then reissued at each user's " +
  'next login, and login links die)'

/** Where the secret's file is kept: DATA_DIR with the embedded server; none with a database server of one's own. */
export function secretDataDir(config: Pick<Config, 'embedded' | 'dataDir'>): string | undefined {
  return config.embedded ? config.dataDir : undefined
}

export interface SecretOptions {
  /** QUIRE_SECRET, when set. */
  explicit?: string
  /** DATA_DIR of the embedded server: the secret is kept in a file in it. */
  dataDir?: string
  /** Record this process's secret as the database's (a deliberate change) instead of refusing a different one. */
  adopt?: boolean
  log: (msg: string) => void
}

async function readSetting(store: SystemStore, name: string): Promise<string | undefined> {
  const doc = await store.findRaw(SERVICE_MODEL, { _id: name })
  return typeof doc?.value === 'string' ? doc.value : undefined
}

/** Stores a setting; unless `overwrite`, only when it is not set yet. Returns the value now stored. */
async function writeSetting(store: SystemStore, name: string, value: string, overwrite: boolean): Promise<string> {
  const updatedAt = new Date().toISOString()
  if (overwrite && (await store.updateOne(SERVICE_MODEL, { _id: name }, { value, updatedAt })) !== null) return value
  try {
    await store.insert(SERVICE_MODEL, { _id: name, value, createdAt: updatedAt, updatedAt, __v: 0 })
    return value
  } catch (err) {
    if (!(err instanceof QuireError && err.code === 'DUPLICATE_KEY')) throw err
    if (overwrite) return await writeSetting(store, name, value, true)
    return (await readSetting(store, name)) ?? value // another process stored it first
  }
}

/** The secret in the data directory's file, created (mode 0600) unless the database expects an existing one. */
function fileSecret(dataDir: string, expected: boolean, log: (msg: string) => void): string {
  const file = join(dataDir, SECRET_FILE)
  if (!existsSync(file)) {
    if (expected)
      throw new StartupError(
        `QUIRE_SECRET is not set and ${file} is missing, but this database was set up with a secret: set ` +
          `QUIRE_SECRET to it, restore the file from a backup, ${ADOPT_HINT}`
      )
    try {
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' })
      log(`created the service secret in ${file}: keep it with the data, and back it up with it`)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
  }
  if ((statSync(file).mode & 0o077) !== 0) log(`warning: ${file} can be read by other users: chmod 600 it`)
  const secret = readFileSync(file, 'utf8').trim()
  if (secret.length < 32) throw new StartupError(`the secret file ${file} is damaged (fewer than 32 characters)`)
  return secret
}

/** The secret kept in the database (servers without QUIRE_SECRET), created by the first process to start. */
async function storedSecret(
  store: SystemStore,
  fingerprinted: boolean,
  adopt: boolean,
  log: (msg: string) => void
): Promise<string> {
  const stored = adopt ? undefined : await readSetting(store, STORED_SECRET)
  if (stored === undefined && fingerprinted && !adopt) {
    throw new StartupError(
      `QUIRE_SECRET is not set, but this database was set up with one: set the same QUIRE_SECRET on every ` +
        `process, ${ADOPT_HINT}`
    )
  }
  log(
    'QUIRE_SECRET is not set: using the secret stored in the database, shared by every process using it. ' +
      'Whoever can read the database (or a backup) can then open API keys and sign login links: set ' +
      'QUIRE_SECRET in production'
  )
  return stored ?? (await writeSetting(store, STORED_SECRET, randomBytes(32).toString('hex'), adopt))
}

/** Records the secret's fingerprint: when none is recorded, or to adopt it; false when another one is recorded. */
async function recordFingerprint(
  store: SystemStore,
  secret: string,
  recorded: string | undefined,
  adopt: boolean
): Promise<boolean> {
  const fingerprint = deriveKey(secret, 'fingerprint').toString('base64url')
  if (fingerprint === recorded) return true
  if (recorded !== undefined && !adopt) return false
  return (await writeSetting(store, FINGERPRINT, fingerprint, adopt)) === fingerprint
}

/**
 * The secret this process uses; StartupError when it differs from the one the database was set up with (unless
 * adopting).
 */
export async function resolveServiceSecret(engine: Engine, options: SecretOptions): Promise<string> {
  const { explicit, dataDir, adopt = false, log } = options
  await engine.syncModels([SERVICE_MODEL])
  const store = systemStore(engine)
  const recorded = await readSetting(store, FINGERPRINT)
  const expected = recorded !== undefined && !adopt
  const secret =
    explicit ??
    (dataDir ? fileSecret(dataDir, expected, log) : await storedSecret(store, recorded !== undefined, adopt, log))
  if (!(await recordFingerprint(store, secret, recorded, adopt))) {
    const what = explicit
      ? 'QUIRE_SECRET'
      : dataDir
        ? `the secret in ${join(dataDir, SECRET_FILE)}`
        : 'the secret stored in the database'
    throw new StartupError(
      `${what} differs from the secret this database was set up with: use the same secret on every ` +
        `process (set QUIRE_SECRET), ${ADOPT_HINT}`
    )
  }
  // Once QUIRE_SECRET is in use, the database need not (and should not) keep a copy of a secret.
  if (explicit && (await readSetting(store, STORED_SECRET)) !== undefined)
    await store.updateOne(SERVICE_MODEL, { _id: STORED_SECRET }, { value: null })
  return secret
}
