// Shared shapes of the aggregation compiler: the caller's context, the relation a
// stage produces, the per-statement compile state and the expression scope.
import type { FieldKindLookup, Filter } from '../../query/types.ts'
import type { SqlParams } from '../sql-text.ts'
import type { CoveredField } from '../ddl/covering-columns.ts'

export interface PipelineContext {
  /** SQL table of the source model: its stored rows, which the leading $match stages filter. */
  sourceTable: string
  /** Filter applied before the first stage (soft delete, owner). */
  baseFilter: Filter
  /** Fields of the source documents no stage may see (password hashes): removed after the leading $match stages. */
  hiddenFields: string[]
  /** A model a $lookup names: its rows as stages see them (hidden fields removed) and the filter they must match. */
  lookup: (model: string) => { table: string; filter: Filter }
  /** Declared field kinds of the source model. */
  kindOf?: FieldKindLookup
  /** Fields of the source model its covering indexes hold (src/compiler/ddl/covering-columns.ts). */
  coveredFields?: ReadonlyMap<string, CoveredField>
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
  /** Counters shared by the whole statement: generated names. */
  readonly counters: { names: number }
  /** $$name -> SQL of the value, for $lookup `let` variables in scope. */
  readonly vars: ReadonlyMap<string, string>
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
export function freshName(st: CompileState, prefix: string): string {
  st.counters.names += 1
  return `${prefix}${st.counters.names}`
}
