// The built-in `user` model: email (unique, stored lower-case), bcrypt password (optional: a user
// without one, e.g. invited, signs in by login link or sets one through password recovery),
// name, admin flag and groups. Users may read and update their own record.
import type { Model } from '../../models/model-definition.ts'
import { resolveModel } from '../../models/load-models.ts'

export const USER_MODEL: Model = {
  ...resolveModel({
    name: 'user',
    fields: {
      email: { type: 'string', minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' },
      password: { type: 'password' },
      name: { type: 'string', maxLength: 200 },
      admin: { type: 'boolean', default: false },
      groups: { type: 'array', items: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' }, default: [] }
    },
    required: ['email'],
    indexes: [{ fields: ['email'], unique: true }],
    perms: { admin: 'crud', owner: 'ru' }
  }),
  builtIn: true
}
