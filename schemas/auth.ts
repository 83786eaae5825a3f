// TypeBox schemas of the authentication routes: login, refresh, logout,
// recovery, login links, setup, API keys and group administration. Response
// schemas also keep anything unlisted out of the replies.
import { Type } from '@sinclair/typebox'

const Email = Type.String({ minLength: 1, maxLength: 254 })
const Password = Type.String({ minLength: 1, maxLength: 1024 })

export const EmailBody = Type.Object({ email: Email })

export const SetupBody = Type.Object({ email: Email, password: Password })

export const ResetBody = Type.Object({ jwt: Type.String({ minLength: 1, maxLength: 4096 }), password: Password })

export const JwtQuery = Type.Object({ jwt: Type.String({ minLength: 1, maxLength: 4096 }) })

const sessionFields = {
  status: Type.Literal('ok'),
  user_id: Type.String(),
  token: Type.String(),
  token_expires: Type.String(),
  refresh_token: Type.String(),
  refresh_token_expires: Type.String()
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

export const SetupResponse = Type.Object({
  status: Type.Literal('ok'),
  message: Type.String(),
  data: Type.Object({ _id: Type.String(), email: Type.String(), admin: Type.Boolean() })
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
