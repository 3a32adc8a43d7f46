import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Script from "../../src/testing/Script.ts"
import * as Sse from "../../src/testing/internal/Sse.ts"

// Values as JSON carries them: fast-check's JSON values include -0, which JSON writes as 0.
const json: fc.Arbitrary<unknown> = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)))
const block: fc.Arbitrary<Script.Block> = fc.oneof(
  fc.string({ unit: "grapheme" }).map(Script.text),
  fc.tuple(fc.string(), fc.base64String({ minLength: 4 })).map(([t, s]) => Script.thinking(t, s)),
  fc.tuple(fc.constantFrom("Read", "Bash", "Write", "Task"), fc.dictionary(fc.string(), json)).map(([n, i]) =>
    Script.toolUse(n, i)
  )
)
const turn = fc.tuple(fc.array(block, { minLength: 1, maxLength: 5 }), fc.option(fc.integer({ min: 1, max: 40 })))
  .map(([blocks, size]) => Script.turn(blocks, { chunkSize: size ?? undefined, usage: { output_tokens: 7 } }))

const options: Sse.EncodeOptions = { messageId: "msg_1", model: "claude-test", toolUseIdPrefix: "toolu_t" }

describe("Sse", () => {
  it("round-trips any turn through the wire format", () =>
    fc.assert(fc.property(turn, (t) => {
      const wire = Sse.encodeTurn(t, options).map(Sse.format).join("")
      const events = Sse.parse(wire)
      const message = Sse.assemble(events)
      assert.strictEqual(message.id, "msg_1")
      assert.strictEqual(message.stopReason, t.stopReason)
      assert.strictEqual(message.outputTokens, 7)
      assert.deepStrictEqual(
        message.content as ReadonlyArray<unknown>,
        t.content.map((b, i) => b.type === "tool_use" ? { type: "tool_use", id: `toolu_t_${i}`, name: b.name, input: b.input } : b)
      )
      // Every event names its own type, as the Messages API does.
      for (const e of events) assert.strictEqual(e.event, e.data.type)
    })))

  it("frames a turn like the Messages API, in several deltas", () => {
    const t = Script.turn([Script.text("Hello there, world"), Script.toolUse("Read", { file_path: "/tmp/a.txt" })])
    const events = Sse.encodeTurn(t, options)
    assert.deepStrictEqual(events.map((e) => e.event), [
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop"
    ])
    assert.strictEqual(t.stopReason, "tool_use")
    assert.strictEqual(Script.turn("done").stopReason, "end_turn")
    assert.match(Sse.format(events[0]), /^event: message_start\ndata: \{"type":"message_start",.*\}\n\n$/)
  })

  it("sends the thinking signature as a signature_delta", () => {
    const events = Sse.encodeTurn(Script.turn([Script.thinking("hmm", "sig==")]), options)
    const deltas = events.flatMap((e) => e.event === "content_block_delta" ? [e.data.delta] : [])
    assert.deepStrictEqual(deltas.at(-1), { type: "signature_delta", signature: "sig==" })
  })

  it("chunks never drop or reorder characters", () =>
    fc.assert(fc.property(fc.string({ unit: fc.oneof(fc.constantFrom("a", "é", "😀", "\n"), fc.string({ minLength: 1, maxLength: 1 })) }), fc.option(fc.integer({ min: 1, max: 10 })), (s, size) => {
      const parts = Sse.chunks(s, size ?? undefined)
      assert.strictEqual(parts.join(""), s)
      assert.isTrue(parts.length >= 1)
      if (Array.from(s).length >= 3 && size === null) assert.strictEqual(parts.length, 3)
      if (size !== null) for (const p of parts) assert.isAtMost(Array.from(p).length, size)
    }), { numRuns: 300 }))
})
