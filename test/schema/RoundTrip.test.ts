import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as ContentBlock from "../../src/schema/ContentBlock.ts"
import * as Control from "../../src/schema/Control.ts"
import { decodeMessage, encodeMessage, Message, variants } from "../../src/schema/Message.ts"
import * as StreamEvent from "../../src/schema/StreamEvent.ts"

const options = { arbitrary: { runs: 60 } }

describe("round trip of values generated from the schemas", () => {
  for (const variant of variants) {
    const name = variant.identifier.replace("effect-claude-code/", "")
    it.prop(`decodeMessage(encodeMessage(x)) = x for ${name}`, [variant], ([value]) => {
      const message = value as Message
      assert.strictEqual(message._tag, name)
      const decoded = decodeMessage(encodeMessage(message))
      if (Result.isFailure(decoded)) assert.fail(decoded.failure.message)
      assert.deepStrictEqual(decoded.success, message)
    }, options)
  }

  it.prop("the Message union schema agrees with decodeMessage", [variants[0], variants[4]], ([a, b]) => {
    for (const message of [a, b] as ReadonlyArray<Message>) {
      const encoded = Schema.encodeSync(Message)(message)
      assert.deepStrictEqual(encoded, encodeMessage(message))
      assert.deepStrictEqual(Schema.decodeUnknownSync(Message)(encoded), message)
    }
  }, options)

  const nested = [
    ["ContentBlock", ContentBlock.ContentBlock],
    ["ToolResultContentBlock", ContentBlock.ToolResultContentBlock],
    ["StreamEvent", StreamEvent.StreamEvent],
    ["Delta", StreamEvent.Delta],
    ["Control.RequestBody", Control.RequestBody]
  ] as const
  for (const [name, schema] of nested) {
    it.prop(`decode(encode(x)) = x for ${name}`, [schema], ([value]) => {
      const codec = schema as unknown as Schema.Codec<unknown, unknown>
      const encoded = Schema.encodeSync(codec)(value)
      assert.deepStrictEqual(Schema.decodeUnknownSync(codec)(encoded), value)
    }, options)
  }
})
