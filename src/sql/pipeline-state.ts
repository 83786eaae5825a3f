// Shared shapes of the aggregation compiler: the caller's context, the relation a
// stage produces, the per-statement compile state and the expression scope.
import type { FieldKindLookup, Filter } from '../query/types.ts'
import type { SqlParams } from './sql-params.ts'

export interface PipelineContext {
  /** SQL table reference for a model; throws a QuireError (MODEL_NOT_FOUND) for an unknown one. */
  table: (model: string) => string
  /** Model the pipeline runs on. */
  source: string
  /** Filter applied before the first stage (soft delete, owner). */
  baseFilter?: Filter
  /** Filter applied to every $lookup target; throws FORBIDDEN when the model is not readable. */
  lookupFilter?: (model: string) => Filter
  /** $out and $merge: false (default) gives FORBIDDEN, true gives UNSUPPORTED_STAGE. */
  allowWrites?: boolean
  /** Fields of the source documents no stage may see (password hashes): removed after the leading $match stages. */
  hiddenFields?: string[]
  /** Declared field kinds of the source model. */
  kindOf?: FieldKindLookup
}

/**
 * A stage's output: a SELECT with a jsonb column `doc` and, when `ordered`, a bigint
 * column `ord` giving the document order that later stages and the statement keep.
 */
export interface Rel {
  sql: string
  ordered: boolean
}

/** Everything one statement's compilation shares; sub-pipelines get a copy with their own vars and depth. */
export interface CompileState {
  readonly params: SqlParams
  readonly ctx: PipelineContext
  /** Counters shared by the whole statement: generated names and stages compiled. */
  readonly counters: { names: number, stages: number }
  /** $$name -> SQL of the value, for $lookup `let` variables in scope. */
  readonly vars: ReadonlyMap<string, string>
  /** $lookup / $facet nesting depth of the pipeline being compiled. */
  readonly depth: number
  /** Field kinds, only while documents still have the stored shape. */
  readonly kindOf?: FieldKindLookup
  /** Compiles a (sub-)pipeline over `rel`; injected to keep stage modules free of import cycles. */
  readonly compileStages: (stages: unknown[], rel: Rel, st: CompileState) => Rel
}

/** Where an expression is evaluated: `doc` is the SQL of the current document ($$ROOT). */
export interface Scope {
  readonly st: CompileState
  readonly doc: string
}

/** Compiles sub-expressions for operator implementations (keeps depth accounting in one place). */
export interface ExprCompiler {
  readonly scope: Scope
  /** jsonb SQL of the value; SQL NULL stands for "missing". */
  value: (expr: unknown) => string
  /** boolean SQL (never NULL) of the expression's truthiness. */
  condition: (expr: unknown) => string
}

/** An operator implementation: the operator's argument -> SQL (jsonb or boolean by table). */
export type OperatorCompiler = (args: unknown, c: ExprCompiler) => string

/** A fresh SQL identifier, unique within the statement (aliases never shadow an outer one). */
export function freshName (st: CompileState, prefix: string): string {
  st.counters.names += 1
  return `${prefix}${st.counters.names}`
}
