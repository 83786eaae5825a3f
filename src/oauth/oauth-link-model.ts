// The internal `_oauth_link` model: which user a provider's account signs in as (provider and
// subject, unique), and that user's pending one-time sign-in token (a digest and its expiry)
// between the provider's callback and POST /login/oauth/token. Like `_credential`, it is not in
// the model registry, so no route reaches it.
import type { Model } from '../models/model-definition.ts'
import { resolveModel } from '../models/load-models.ts'

export const OAUTH_LINK_MODEL: Model = {
  ...resolveModel({
    name: '_oauth_link',
    fields: {
      provider: { type: 'string' },
      subject: { type: 'string' },
      user_id: { type: 'string' },
      handoff: { type: 'string' },
      handoff_expires: { type: 'date' }
    },
    indexes: [{ fields: ['provider', 'subject'], unique: true }, { fields: ['user_id'] }, { fields: ['handoff'] }],
    perms: {}
  }),
  builtIn: true
}
