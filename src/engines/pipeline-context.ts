// The compiler context of an aggregation on `model`, shared by the engines:
// model names resolve through the caller's lookup rules to `table(model)`.
import type { AggregateOptions } from './engine.ts'
import type { Model } from '../models/model-definition.ts'
import type { PipelineContext } from '../sql/compile-pipeline.ts'
import { fieldKindLookup } from '../models/field-kinds.ts'

export function pipelineContextFor (model: Model, options: AggregateOptions, table: (target: Model) => string): PipelineContext {
  return {
    table: name => table(name === model.name ? model : options.lookup(name).model),
    source: model.name,
    baseFilter: options.baseFilter,
    lookupFilter: name => options.lookup(name).filter,
    allowWrites: options.allowWrites,
    hiddenFields: model.passwordFields,
    kindOf: fieldKindLookup(model)
  }
}
