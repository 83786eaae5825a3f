// TypeBox schemas of the authentication routes: login, refresh, logout,
// recovery, login links, setup, API keys and group administration. Response
// schemas also keep anything unlisted out of the replies.
import { Type } from '@sinclair/typebox'

const Email = Type.String({ minLength: 1, maxLength: 254 })
const Password = Type.String({ minLength: 1, maxLength: 1024 })

export const EmailBody = Type.Object({ email: Email })

export const SetupBody = Type.Object({
  email: Email,
  password: Password,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 }))
})

/** POST /login's body, the same pair: may be left out when a Basic header carries it (routes/login.ts reads it). */
export const LoginBody = Type.Object({ email: Email, password: Password })

export const ResetBody = Type.Object({ jwt: Type.String({ minLength: 1, maxLength: 4096 }), password: Password })

export const JwtQuery = Type.Object({ jwt: Type.String({ minLength: 1, maxLength: 4096 }) })

const sessionFields = {
  status: Type.Literal('ok'),
  user_id: Type.String(),
  token: Type.String(),
  token_expires: Type.String(),
  refresh_token: Type.String(),
  refresh_token_expires: Type.String(),
  /** JXP's name for the server that issued the session: its URL, as the client reached it. */
  provider: Type.String()
}

export const RefreshResponse = Type.Object(sessionFields)

export const LoginResponse = Type.Object({ ...sessionFields, apikey: Type.String() })

/** `email` and `token` (the same JWT) are JXP's names, which its clients read. */
export const JwtResponse = Type.Object({
  status: Type.Literal('ok'),
  jwt: Type.String(),
  email: Type.String(),
  token: Type.String()
})

/**
 * Quire's answer, or JXP's under JXP_COMPAT (`status: "success"`, the admin's name and email; never the password JXP
 * echoes).
 */
export const SetupResponse = Type.Union([
  Type.Object({
    status: Type.Literal('ok'),
    message: Type.String(),
    data: Type.Object({
      _id: Type.String(),
      email: Type.String(),
      admin: Type.Boolean(),
      name: Type.Optional(Type.String())
    })
  }),
  Type.Object({
    status: Type.Literal('success'),
    name: Type.Optional(Type.String()),
    email: Type.String(),
    _id: Type.String()
  })
])

export const SetupDataResponse = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('success')]),
  results: Type.Record(Type.String(), Type.Object({ insertedCount: Type.Integer() }))
})

export const UserParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

export const GroupParams = Type.Object({ id: Type.String({ maxLength: 64 }), group: Type.String({ maxLength: 64 }) })

export const GroupBody = Type.Object({ group: Type.String({ maxLength: 64 }) })

export const GroupsResponse = Type.Object({
  status: Type.Literal('ok'),
  message: Type.Optional(Type.String()),
  groups: Type.Array(Type.String())
})

export const ApiKeyResponse = Type.Object({ status: Type.Literal('ok'), message: Type.String(), apikey: Type.String() })
