// What a backup holds: every model of the deployment (the `user` model with its groups, and the
// models of MODELS_DIR) and the service's own records: credentials (token and API key digests,
// sealed API keys, the setup mark) and provider links. Not the service secret's record
// (`_service`: the target keeps its own secret), nor what Quire derives again (change log,
// search ranks).
import type { Model } from '../models/model-definition.ts'
import type { ModelRegistry } from '../models/model-registry.ts'
import { CREDENTIAL_MODEL } from '../auth/credentials/credential-model.ts'
import { OAUTH_LINK_MODEL } from '../oauth/oauth-link-model.ts'

const INTERNAL_MODELS: Model[] = [CREDENTIAL_MODEL, OAUTH_LINK_MODEL]

export function backupModels(registry: ModelRegistry): Model[] {
  return [...registry.all(), ...INTERNAL_MODELS]
}
