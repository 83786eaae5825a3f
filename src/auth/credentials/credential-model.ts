// The internal `_credential` model: one document per user holding the digests
// of the current access and refresh tokens (and whether that session was opened
// with a login link) and of the permanent API key (plus the sealed key). It is
// not in the model registry, so no route can reach it, and its name cannot
// clash with a model file (those start with a letter).
import type { Model } from '../../models/model-definition.ts'
import { resolveModel } from '../../models/load-models.ts'

export const CREDENTIAL_MODEL: Model = {
  ...resolveModel({
    name: '_credential',
    fields: {
      user_id: { type: 'string' },
      token: { type: 'string' },
      token_expires: { type: 'date' },
      refresh: { type: 'string' },
      refresh_expires: { type: 'date' },
      link_session: { type: 'boolean' },
      apikey: { type: 'string' },
      apikey_sealed: { type: 'string' }
    },
    indexes: [
      { fields: ['user_id'], unique: true },
      { fields: ['token'] },
      { fields: ['refresh'] },
      { fields: ['apikey'], unique: true }
    ],
    perms: {}
  }),
  builtIn: true
}

/** The fields of a credential document that hold no session. */
export const NO_SESSION = { token: null, token_expires: null, refresh: null, refresh_expires: null, link_session: null }
