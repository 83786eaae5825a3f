// The models the service serves, by name; unknown names are a 404.
import type { Model } from './model-definition.ts'
import { QuireError } from '../errors.ts'

export class ModelRegistry {
  constructor(private readonly models: Map<string, Model>) {}

  /** The model called `name`; throws MODEL_NOT_FOUND. */
  get(name: string): Model {
    const model = this.models.get(name)
    if (!model) throw new QuireError('MODEL_NOT_FOUND', `Unknown model: ${name.slice(0, 64)}`)
    return model
  }

  has(name: string): boolean {
    return this.models.has(name)
  }

  all(): Model[] {
    return [...this.models.values()]
  }
}
