// Prepares an authorized pipeline for MongoDB (checked by src/validation, so only
// supported stages and operators reach the server): the source's row filter first,
// every $lookup pointed at its collection through its own row filter, and password
// fields removed wherever documents enter (the source, every $lookup, self-lookups too).
import type { Document } from 'mongodb'
import type { Authorized, PipelinePlan } from '../engine.ts'
import type { Model } from '../../models/model-definition.ts'
import type { Filter } from '../../query/types.ts'
import { hiddenFields } from '../../permissions/field-policy.ts'
import { collectionName } from './mongo-indexes.ts'
import { bothForms } from './mongo-stored-forms.ts'

/** Stages that make `model`'s documents enter a pipeline: its filter, then its password fields dropped. */
function entryStages(model: Model, filter: Filter): Document[] {
  const stages: Document[] = [{ $match: bothForms(model, filter) }]
  if (hiddenFields(model).length) stages.push({ $unset: hiddenFields(model) })
  return stages
}

function rewriteStage(stage: Document, plan: PipelinePlan): Document {
  if (stage.$lookup) {
    const source = plan.lookups.get(stage.$lookup.from as string)
    if (!source) throw new Error(`$lookup into ${String(stage.$lookup.from)} was not authorized`)
    const pipeline = [...entryStages(source.model, source.filter), ...rewriteStages(stage.$lookup.pipeline ?? [], plan)]
    return { $lookup: { ...stage.$lookup, from: collectionName(source.model), pipeline } }
  }
  if (stage.$facet) {
    return {
      $facet: Object.fromEntries(
        Object.entries(stage.$facet as Record<string, Document[]>).map(([name, pipeline]) => [
          name,
          rewriteStages(pipeline, plan)
        ])
      )
    }
  }
  return stage
}

function rewriteStages(stages: Document[], plan: PipelinePlan): Document[] {
  return stages.map(stage => rewriteStage(stage, plan))
}

/** The MongoDB pipeline for an authorized plan on `model`. */
export function preparePipeline(model: Model, plan: Authorized<PipelinePlan>): Document[] {
  return [...entryStages(model, plan.filter), ...rewriteStages(plan.stages as Document[], plan)]
}

/** The names of the stages of `pipeline`, those inside $lookup and $facet sub-pipelines too. */
export function stagesOf(pipeline: Document[]): string[] {
  return pipeline.flatMap(stage =>
    Object.keys(stage).flatMap(name => {
      const inner =
        name === '$lookup'
          ? [stage.$lookup.pipeline ?? []]
          : name === '$facet'
            ? Object.values(stage.$facet as Record<string, Document[]>)
            : []
      return [name, ...inner.flatMap(stagesOf)]
    })
  )
}
