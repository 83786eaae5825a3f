// Prepares a client's aggregation pipeline for MongoDB: checked by the SQL pipeline
// compiler (the same stages, limits and 400s on every engine, and permissions for each
// $lookup), then run natively with the base filter first, $lookup pointed at the right
// collections with their filters, and password fields removed wherever documents enter.
import type { Document } from 'mongodb'
import type { AggregateOptions } from './engine.ts'
import type { Model } from '../models/model-definition.ts'
import { compilePipeline } from '../sql/compile-pipeline.ts'
import { reviveExtendedJson } from '../query/extended-json.ts'
import { pipelineContextFor } from './pipeline-context.ts'
import { collectionName } from './mongo-indexes.ts'

/** Stages that make `model`'s documents enter a pipeline: its filter, then its password fields dropped. */
function entryStages (model: Model, filter: Document): Document[] {
  const stages: Document[] = [{ $match: filter }]
  if (model.passwordFields.length) stages.push({ $unset: model.passwordFields })
  return stages
}

function rewriteStage (stage: Document, options: AggregateOptions): Document {
  if (stage.$lookup) {
    const { model, filter } = options.lookup(stage.$lookup.from as string)
    const pipeline = [...entryStages(model, filter), ...rewriteStages(stage.$lookup.pipeline ?? [], options)]
    return { $lookup: { ...stage.$lookup, from: collectionName(model), pipeline } }
  }
  if (stage.$facet) {
    return { $facet: Object.fromEntries(Object.entries(stage.$facet as Record<string, Document[]>)
      .map(([name, pipeline]) => [name, rewriteStages(pipeline, options)])) }
  }
  return stage
}

function rewriteStages (stages: Document[], options: AggregateOptions): Document[] {
  return stages.map(stage => rewriteStage(stage, options))
}

/** The MongoDB pipeline for a client's `pipeline` on `model`; throws the same QuireErrors as the SQL engines. */
export function preparePipeline (model: Model, pipeline: unknown[], options: AggregateOptions): Document[] {
  compilePipeline(pipeline, pipelineContextFor(model, options, collectionName))
  return [...entryStages(model, options.baseFilter), ...rewriteStages(reviveExtendedJson(pipeline) as Document[], options)]
}
