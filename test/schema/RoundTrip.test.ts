/**
 * Wire round trips of values generated from the schemas: every variant is
 * encoded, written as JSON text, parsed and decoded again, by `decodeMessage`
 * and by the composable `Message` union schema alike.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as ContentBlock from "../../src/schema/ContentBlock.ts"
import * as Control from "../../src/schema/Control.ts"
import {
  decodeMessage,
  encodeMessage,
  isKnownType,
  Message,
  UnknownMessage,
  variants
} from "../../src/schema/Message.ts"
import * as Origin from "../../src/schema/Origin.ts"
import * as StreamEvent from "../../src/schema/StreamEvent.ts"

const options = { arbitrary: { runs: 60 } }

/** What the other end of a pipe reads: the value written as JSON text and parsed. */
const throughJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

const decoded = (input: unknown): Message => {
  const result = decodeMessage(input)
  if (Result.isFailure(result)) assert.fail(result.failure.message)
  return result.success
}

const nameOf = (variant: { readonly identifier: string }) => variant.identifier.replace("effect-claude-code/", "")

// Lines of a type this version does not know, as the union's fallback decodes them.
const unknownMessages = Arbitrary.schema(UnknownMessage).pipe(
  Arbitrary.filter((message) => !isKnownType(message.type, message.subtype))
)
const generated = [
  ...variants.map((variant) => [nameOf(variant), variant] as const),
  ["UnknownMessage", unknownMessages] as const
]

describe("round trip of values generated from the schemas", () => {
  for (const [name, arbitrary] of generated) {
    it.prop(`${name}: decodeMessage round-trips it, as a value and as JSON`, [
      arbitrary
    ], ([value]) => {
      const message = value as Message
      assert.strictEqual(message._tag, name)
      assert.deepStrictEqual(decoded(encodeMessage(message)), message)
      // JSON text cannot tell -0 from 0: compare on the wire.
      const wire = throughJson(encodeMessage(message))
      const back = decoded(wire)
      assert.strictEqual(back._tag, name)
      assert.deepStrictEqual(encodeMessage(back), wire)
    }, options)

    it.prop(`${name}: the Message union schema agrees with decodeMessage`, [arbitrary], ([value]) => {
      const message = value as Message
      assert.deepStrictEqual(Schema.encodeSync(Message)(message), encodeMessage(message))
      const wire = throughJson(encodeMessage(message))
      assert.deepStrictEqual(Schema.decodeUnknownSync(Message)(wire), decoded(wire))
    }, options)
  }

  const nested = [
    ["ContentBlock", ContentBlock.ContentBlock],
    ["ToolResultContentBlock", ContentBlock.ToolResultContentBlock],
    ["StreamEvent", StreamEvent.StreamEvent],
    ["Delta", StreamEvent.Delta],
    ["Control.RequestBody", Control.RequestBody],
    ["Origin", Origin.Origin]
  ] as const
  for (const [name, schema] of nested) {
    it.prop(`${name}: decode round-trips it, as a value and as JSON`, [schema], ([value]) => {
      const codec = schema as unknown as Schema.Codec<unknown, unknown>
      const encoded = Schema.encodeSync(codec)(value)
      assert.deepStrictEqual(Schema.decodeUnknownSync(codec)(encoded), value)
      const wire = throughJson(encoded)
      assert.deepStrictEqual(Schema.encodeSync(codec)(Schema.decodeUnknownSync(codec)(wire)), wire)
    }, options)
  }
})
