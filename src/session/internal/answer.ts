/**
 * A control request's answer read with a Schema: one that does not fit fails with `InvalidResponse`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SessionError from "../SessionError.ts"

export const decode = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, subtype: string) =>
(answer: unknown): Effect.Effect<S["Type"], SessionError.SessionError> =>
  Schema.decodeUnknownEffect(schema)(answer).pipe(
    Effect.mapError((error) => SessionError.make(new SessionError.InvalidResponse({ subtype, detail: error.message })))
  )
