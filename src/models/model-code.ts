// Model code: an optional module beside a model's JSON file (models/test.js next to
// models/test.json) exporting `hooks` around writes and `methods` callable through
// /call. Loaded once at start and checked then: a misspelled hook, a method without
// a permission letter or a module without a model stops the start with its file name.
import { existsSync, readdirSync } from 'node:fs'
import { join, extname, basename } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Caller } from '../auth/caller.ts'
import type { Doc } from '../storage/engine.ts'
import type { ScopedDocuments } from '../documents/scoped-documents.ts'
import type { ModelRegistry } from './model-registry.ts'
import { QuireError } from '../errors.ts'

export type Letter = 'c' | 'r' | 'u' | 'd'

/** What every hook and method receives besides its document. */
export interface ModelCodeContext {
  /** Who is calling: user id (undefined when anonymous), email, admin flag, groups. */
  caller: Readonly<Caller>
  /** The model's name. */
  model: string
  /** Reads and writes of any model with the caller's own permissions (no elevated door). */
  documents: ScopedDocuments
  /** Refuses the request with a 4xx status and a message for the client. */
  refuse: (status: number, message: string) => never
}

export interface ModelHooks {
  /** Gets the validated new document (without system fields); may return a changed one (validated again). */
  beforeCreate?: (doc: Doc, ctx: ModelCodeContext) => Doc | undefined | Promise<Doc | undefined>
  /** Gets the stored document (passwords removed) once it is written. */
  afterCreate?: (doc: Doc, ctx: ModelCodeContext) => unknown
  /** Gets the validated changes of a PUT; may return changed ones (validated again). */
  beforeUpdate?: (changes: Doc, ctx: ModelCodeContext & { id: string }) => Doc | undefined | Promise<Doc | undefined>
  afterUpdate?: (doc: Doc, ctx: ModelCodeContext) => unknown
  /** Gets the id of the document about to be deleted (`permanent`: removed for good). */
  beforeDelete?: (id: string, ctx: ModelCodeContext & { permanent: boolean }) => unknown
  /** Gets the deleted document as it was. */
  afterDelete?: (doc: Doc, ctx: ModelCodeContext & { permanent: boolean }) => unknown
}

interface MethodContext extends ModelCodeContext {
  /** The request body (POST), or {} (GET). */
  body: unknown
  /** The query string's parameters (credentials left out). */
  params: Record<string, unknown>
  /** The document of an item call (/call/{model}/{id}/{method}), passwords removed. */
  document?: Doc
}

export interface ModelMethod {
  /** The permission letter a caller needs on the model to call it. */
  letter: Letter
  run: (ctx: MethodContext) => unknown
  description?: string
}

const HOOK_NAMES = [
  'beforeCreate',
  'afterCreate',
  'beforeUpdate',
  'afterUpdate',
  'beforeDelete',
  'afterDelete'
] as const
const METHOD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/
/** Names of JavaScript's object machinery: never a method, even if a module defines one. */
const RESERVED = new Set([
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'toLocaleString',
  'propertyIsEnumerable'
])
const CODE_EXTENSIONS = ['.js', '.mjs', '.ts', '.mts']

interface ModelCode {
  hooks: ModelHooks
  methods: Map<string, ModelMethod>
}

const NO_CODE: ModelCode = { hooks: {}, methods: new Map() }

/** The loaded code of every model, by model name. */
export class ModelCodeRegistry {
  constructor(private readonly code: Map<string, ModelCode> = new Map()) {}

  hooksOf(model: string): ModelHooks {
    return (this.code.get(model) ?? NO_CODE).hooks
  }

  methodNames(model: string): string[] {
    return [...(this.code.get(model) ?? NO_CODE).methods.keys()]
  }

  /** The methods of `model` as discovery shows them. */
  describeMethods(model: string): Array<{ name: string; letter: Letter; description?: string }> {
    return [...(this.code.get(model) ?? NO_CODE).methods].map(([name, m]) => ({
      name,
      letter: m.letter,
      ...(m.description !== undefined && { description: m.description })
    }))
  }

  /** The method `name` of `model`; UNKNOWN_METHOD (404) when the model exposes none by that name. */
  method(model: string, name: string): ModelMethod {
    const method = (this.code.get(model) ?? NO_CODE).methods.get(name)
    if (!method) throw new QuireError('UNKNOWN_METHOD', `Model ${model} exposes no method ${name.slice(0, 64)}`)
    return method
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function checkHooks(source: string, hooks: unknown): ModelHooks {
  if (hooks === undefined) return {}
  if (!isPlainObject(hooks)) throw new Error(`${source}: \`hooks\` must be an object`)
  for (const [name, hook] of Object.entries(hooks)) {
    if (!(HOOK_NAMES as readonly string[]).includes(name))
      throw new Error(`${source}: unknown hook ${name} (hooks: ${HOOK_NAMES.join(', ')})`)
    if (typeof hook !== 'function') throw new Error(`${source}: hook ${name} must be a function`)
  }
  return hooks as ModelHooks
}

function checkMethod(source: string, name: string, method: unknown): ModelMethod {
  if (!METHOD_NAME.test(name) || RESERVED.has(name))
    throw new Error(`${source}: ${JSON.stringify(name)} cannot be a method name`)
  if (
    !isPlainObject(method) ||
    typeof method.run !== 'function' ||
    !['c', 'r', 'u', 'd'].includes(method.letter as string)
  ) {
    throw new Error(
      `${source}: method ${name} must be { letter: 'c' | 'r' | 'u' | 'd', run (ctx) { ... } } (the letter ` +
        `a caller needs)`
    )
  }
  return method as unknown as ModelMethod
}

/** The module's exports, or (a CommonJS module.exports = { hooks, methods }) its default export. */
function exportsOf(module: Record<string, unknown>): Record<string, unknown> {
  return isPlainObject(module.default) ? { ...module.default } : module
}

function checkModule(source: string, loaded: Record<string, unknown>): ModelCode {
  const module = exportsOf(loaded)
  const unknown = Object.keys(module).filter(name => name !== 'hooks' && name !== 'methods')
  if (unknown.length)
    throw new Error(`${source}: exports ${unknown.join(', ')}; a model module exports only \`hooks\` and \`methods\``)
  const methods = module.methods ?? {}
  if (!isPlainObject(methods)) throw new Error(`${source}: \`methods\` must be an object`)
  return {
    hooks: checkHooks(source, module.hooks),
    methods: new Map(Object.entries(methods).map(([name, method]) => [name, checkMethod(source, name, method)]))
  }
}

/** Loads `<dir>/<model>.js` (or .mjs, .ts, .mts) for the models that have one. */
export async function loadModelCode(dir: string, registry: ModelRegistry): Promise<ModelCodeRegistry> {
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter(f => CODE_EXTENSIONS.includes(extname(f)) && !f.endsWith('.d.ts'))
        .sort()
    : []
  const code = new Map<string, ModelCode>()
  for (const file of files) {
    const name = basename(file, extname(file))
    const source = join(dir, file)
    if (!registry.has(name) || registry.get(name).builtIn)
      throw new Error(`${source}: there is no model ${name} (a model's code is named after it, beside its JSON file)`)
    if (code.has(name)) throw new Error(`${source}: model ${name} already has code in another file`)
    let module: Record<string, unknown>
    try {
      module = (await import(pathToFileURL(source).href)) as Record<string, unknown>
    } catch (err) {
      throw new Error(`${source}: cannot be loaded: ${(err as Error).message}`)
    }
    code.set(name, checkModule(source, module))
  }
  return new ModelCodeRegistry(code)
}
