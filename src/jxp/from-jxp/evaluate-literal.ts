// Evaluates a schema's object literal from a JXP model file, in a context of its own where every
// name it uses resolves to a marker: Mongoose's types (String, Number, ObjectId, Mixed ...) to
// type markers, anything else (setters, validators, imported constants) to an "unknown" marker
// the converter reports. Runs the literal only (the model file's own code, on the operator's
// machine, as `node` would): no module is loaded, no global of this process is reachable.
import vm from 'node:vm'

const TYPE = Symbol('mongoose type')
const UNKNOWN = Symbol('unknown name')

type Marker = { [TYPE]: string } | { [UNKNOWN]: string }

const TYPES: Record<string, string> = {
  String: 'string',
  Number: 'number',
  Boolean: 'boolean',
  Date: 'date',
  ObjectId: 'id',
  ObjectID: 'id',
  Mixed: 'mixed',
  Buffer: 'mixed',
  Map: 'mixed',
  Decimal128: 'number',
  Array: 'array',
  Object: 'mixed'
}

/** A name's marker; member access (`global.ObjectId`, `Schema.Types.Mixed`) ends at the last name. */
function marker(name: string): unknown {
  const base: Marker = name in TYPES ? { [TYPE]: TYPES[name] } : { [UNKNOWN]: name }
  return new Proxy(base, {
    get: (target, key) => (typeof key === 'symbol' ? (target as Record<symbol, unknown>)[key] : marker(key)),
    has: (target, key) => key in target
  })
}

export function evaluateLiteral(source: string): unknown {
  const scope = new Proxy(
    {},
    { has: () => true, get: (_t, key) => (typeof key === 'symbol' ? undefined : marker(key)) }
  )
  return vm.runInNewContext(`with (scope) { (${source}) }`, { scope }, { timeout: 1000 })
}

export function typeOf(value: unknown): string | undefined {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && TYPE in (value as object)
    ? (value as Record<symbol, string>)[TYPE]
    : undefined
}

export function unknownName(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' && UNKNOWN in (value as object)
    ? (value as Record<symbol, string>)[UNKNOWN]
    : undefined
}
