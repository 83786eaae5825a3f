// TypeBox schemas shared by the routes: path parameters and response envelopes.
import { Type } from '@sinclair/typebox'

export const ModelParams = Type.Object({
  model: Type.String({ maxLength: 64 })
})

export const DocumentParams = Type.Object({
  model: Type.String({ maxLength: 64 }),
  id: Type.String({ maxLength: 64 })
})

/** List parameters are open-ended (filter[...], search[...]): checked by the query parser. */
export const ListQuery = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]))

export const ErrorResponse = Type.Object({
  status: Type.Union([Type.Literal('fail'), Type.Literal('error')]),
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Unknown()),
  err: Type.Optional(Type.String())
})

export const CountResponse = Type.Object({ count: Type.Integer() })

export const OkMessage = Type.Object({ status: Type.Literal('ok'), message: Type.String() })
