/**
 * Messages carried as the CLI's own JSON: encoded with `encodeMessage`, decoded on arrival with `decodeMessage`.
 * Where a message crosses a serialization (the cluster's RPCs, an error's data), the class union itself cannot
 * be the schema: the binary serialization tells union members apart only by a literal field in each, and an
 * open union (`UnknownMessage`, a block of several `type`s) has members without one. The CLI's JSON works in
 * every serialization and keeps an unknown type intact.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import * as SchemaIssue from "effect/SchemaIssue"
import * as Message from "../Message.ts"

/**
 * A codec of the messages `is` accepts. A JSON value that does not decode to one is what `otherwise` makes of it,
 * or, where it makes nothing, an `InvalidValue` issue naming what was wrong.
 */
export const make = <A extends Message.Message>(
  identifier: string,
  is: (input: unknown) => input is A,
  otherwise: (json: Schema.Json) => A | undefined = () => undefined
): Schema.Codec<A, Schema.Json> =>
  Schema.Json.pipe(
    Schema.decodeTo(
      Schema.declare(is, { identifier }),
      {
        decode: SchemaGetter.transformEffect((json: Schema.Json, options) => {
          const decoded = Message.decodeMessage(json)
          if (Result.isSuccess(decoded) && is(decoded.success)) return Effect.succeed(decoded.success)
          const kept = otherwise(json)
          if (kept !== undefined) return Effect.succeed(kept)
          const message = Result.isFailure(decoded) ? decoded.failure.message : `expected ${identifier}`
          return Effect.fail(new SchemaIssue.InvalidValue({ message }, json, options))
        }),
        encode: SchemaGetter.transform((message: A) => Message.encodeMessage(message) as Schema.Json)
      }
    )
  )
