/**
 * Field building blocks shared by the wire schemas.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"

/** A JSON object kept as is (tool inputs, MCP payloads, opaque sub-objects). */
export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/** An object of the named fields that keeps the keys it does not name (newer CLIs add some). */
export const open = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.StructWithRest(Schema.Struct(fields), [JsonObject])

/**
 * An object kept whole, of which only the string discriminator `key` is
 * checked (the payload of unknown variants).
 */
export const rawObject = <const K extends string>(key: K) =>
  Schema.StructWithRest(Schema.Struct({ [key]: Schema.String } as { readonly [P in K]: typeof Schema.String }), [
    JsonObject
  ])

/**
 * A JSON number. JSON has no `NaN` or infinities, so the wire schemas say so:
 * generated values then survive `JSON.stringify` (the fast decoder inlines the
 * check).
 */
export const Num = Schema.Finite

/** Optional `string` field. */
export const optionalString = Schema.optionalKey(Schema.String)

/** Optional `number` field. */
export const optionalNumber = Schema.optionalKey(Num)

/** Optional `boolean` field. */
export const optionalBoolean = Schema.optionalKey(Schema.Boolean)

/** Optional field that the CLI also writes as `null`. */
export const optionalNullableString = Schema.optionalKey(Schema.NullOr(Schema.String))

/** Optional field that the CLI also writes as `null`. */
export const optionalNullableNumber = Schema.optionalKey(Schema.NullOr(Num))

/** Optional `string[]` field. */
export const optionalStrings = Schema.optionalKey(Schema.Array(Schema.String))

/** Optional field that is `true` when present (the CLI omits it otherwise). */
export const optionalTrue = Schema.optionalKey(Schema.Literal(true))

/** Optional opaque value, kept as written. */
export const optionalUnknown = Schema.optionalKey(Schema.Unknown)

/**
 * What the API did to earlier content before sampling (thinking blocks
 * dropped or let through), on a response and on a `message_delta` after a
 * server-side model fallback; each entry kept as written.
 */
export const inputTransformations = Schema.optionalKey(Schema.NullOr(Schema.Array(JsonObject)))

/** A block's prompt-cache breakpoint (`{ type: "ephemeral", ttl? }`), kept as written. */
export const cacheControl = Schema.optionalKey(Schema.NullOr(JsonObject))

/**
 * What binds a reply frame to the sends it answers: the client uuid of the
 * user message, every uuid the turn consumed, and why a turn continues one a
 * worker restart interrupted.
 */
export const replyFields = {
  user_message_uuid: optionalString,
  user_message_uuids: optionalStrings,
  resume_reason: optionalString
} as const

/** Fields every top-level message carries (older CLIs omit `uuid`). */
export const envelope = {
  uuid: optionalString,
  session_id: Schema.String
} as const

/**
 * Decodes any object whose `key` is not in `known` into the unknown variant,
 * keeping the raw object so that encoding gives it back unchanged.
 */
export const unknownFallback = <S extends Schema.Top, const K extends string = "type">(
  target: S,
  known: Iterable<string>,
  make: (raw: typeof JsonObject.Type & { readonly [P in K]: string }) => S["Type"],
  raw: (value: S["Type"]) => { readonly [k: string]: unknown },
  key: K = "type" as K
) => {
  const knownSet = new Set(known)
  return rawObject(key).check(
    Schema.makeFilter((input) => {
      const value = (input as Record<string, string>)[key]
      return !knownSet.has(value) || `"${value}" is a known ${key}; its fields do not match`
    })
  ).pipe(
    Schema.decodeTo(Schema.toType(target), {
      decode: SchemaGetter.transform((input) => make(input as never)),
      encode: SchemaGetter.transform((value) => raw(value) as never)
    })
  )
}
