// Authorizes an aggregation: the pipeline checked by the validation step (no
// stage names a password field of any model), the source model narrowed to the
// rows the caller may read, and every model a $lookup reads (the source model
// itself included) narrowed the same way: 403 for a model the caller may not read.
import type { Caller } from '../../auth/caller.ts'
import type { PipelinePlan, PipelineSource } from '../../storage/engine.ts'
import { QuireError } from '../../errors.ts'
import type { Model } from '../../models/model-definition.ts'
import type { ModelRegistry } from '../../models/model-registry.ts'
import { checkPipeline } from '../../validation/check-pipeline.ts'
import { accessTo } from '../access.ts'
import { authorized, type Authorized } from '../authorized.ts'
import { hiddenNames } from '../field-policy.ts'
import { linkScope, readScope } from '../row-scope.ts'

export function authorizePipeline(
  caller: Caller,
  registry: ModelRegistry,
  model: Model,
  pipeline: unknown,
  showDeleted: boolean
): Authorized<PipelinePlan> {
  const filter = readScope(model, caller, showDeleted)
  const lookups = new Map<string, PipelineSource>()
  const lookup = (name: string): void => {
    if (lookups.has(name)) return
    const target = registry.get(name)
    if (accessTo(target, caller, 'r') === 'none')
      throw new QuireError('FORBIDDEN', `$lookup into ${name} is not allowed: no read access`)
    lookups.set(name, { model: target, filter: linkScope(target, caller) })
  }
  const stages = checkPipeline(pipeline, { hidden: hiddenNames(registry), lookup })
  return authorized({ stages, filter, lookups })
}
