import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { decodeMessage, encodeMessage, type InvalidFields, Message, type MessageDecodeError } from "../../src/schema/Message.ts"

const failure = (input: unknown): MessageDecodeError => {
  const decoded = decodeMessage(input)
  if (Result.isSuccess(decoded)) assert.fail(`expected a failure, got ${decoded.success._tag}`)
  return decoded.failure
}

describe("decode failures", () => {
  it("rejects values that are not objects with a string type", () => {
    assert.strictEqual(failure(42).reason._tag, "NotAnObject")
    assert.strictEqual(failure([]).reason._tag, "NotAnObject")
    assert.strictEqual(failure(null).reason._tag, "NotAnObject")
    assert.strictEqual(failure({ subtype: "init" }).reason._tag, "MissingType")
    assert.strictEqual(failure({ type: 3 }).reason._tag, "MissingType")
  })

  it("names the broken field of a known type", () => {
    const error = failure({
      type: "assistant",
      session_id: "s",
      parent_tool_use_id: null,
      message: { id: "m", role: "assistant", model: "x", usage: { input_tokens: 1, output_tokens: 1 }, content: [{ type: "text", text: 5 }] }
    })
    assert.strictEqual(error._tag, "MessageDecodeError")
    assert.strictEqual(error.reason._tag, "InvalidFields")
    assert.strictEqual(error.messageType, "assistant")
    assert.include(error.message, `["message"]["content"][0]["text"]`)
    assert.include(error.message, "Expected string")
    assert.isDefined((error.reason as InvalidFields).issue)
  })

  it("a replay that does not fit is no message", () => {
    const replay = { type: "user", isReplay: true, parent_tool_use_id: null, message: { role: "user", content: "hi" } }
    const error = failure(replay)
    assert.strictEqual(error.reason._tag, "InvalidFields")
    assert.include(error.message, `["session_id"]`)
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(Message)(replay)))
    // With its session it is a replay, and a line marked `isReplay: false` an ordinary turn that keeps the mark.
    const complete = { ...replay, session_id: "s" }
    assert.strictEqual(Result.getOrThrow(decodeMessage(complete))._tag, "UserMessageReplay")
    assert.strictEqual(Schema.decodeUnknownSync(Message)(complete)._tag, "UserMessageReplay")
    const turn = Result.getOrThrow(decodeMessage({ ...complete, isReplay: false }))
    assert.strictEqual(turn._tag, "UserMessage")
    assert.deepStrictEqual(Schema.decodeUnknownSync(Message)({ ...complete, isReplay: false }), turn)
    assert.deepStrictEqual(encodeMessage(turn), { ...complete, isReplay: false })
  })

  it("reports the subtype of a broken line", () => {
    const error = failure({ type: "result", subtype: "success", session_id: "s" })
    assert.strictEqual(error.subtype, "success")
    assert.include(error.message, "result/success")
    assert.strictEqual(failure({ type: "system", session_id: "s" }).reason._tag, "MissingSubtype")
  })
})

describe("forward compatibility", () => {
  it("keeps unknown types and subtypes as UnknownMessage", () => {
    for (const raw of [
      { type: "brand_new", payload: [1, 2] },
      { type: "system", subtype: "brand_new_subtype", session_id: "s", x: 1 },
      { type: "result", subtype: "error_new_kind", session_id: "s" }
    ]) {
      const decoded = Result.getOrThrow(decodeMessage(raw))
      assert.strictEqual(decoded._tag, "UnknownMessage")
      if (decoded._tag !== "UnknownMessage") return
      assert.strictEqual(decoded.type, raw.type)
      assert.strictEqual(decoded.subtype, "subtype" in raw ? raw.subtype : undefined)
      assert.deepStrictEqual(encodeMessage(decoded), raw)
    }
  })

  it("ignores extra fields, keeps unknown blocks, events and requests", () => {
    const decoded = Result.getOrThrow(decodeMessage({
      type: "assistant",
      brand_new_field: true,
      session_id: "s",
      parent_tool_use_id: null,
      message: {
        id: "m",
        role: "assistant",
        model: "x",
        usage: { input_tokens: 1, output_tokens: 1 },
        content: [{ type: "hologram", data: 1 }, { type: "text", text: "hi", extra: 1 }]
      }
    }))
    assert.strictEqual(decoded._tag, "AssistantMessage")
    if (decoded._tag !== "AssistantMessage") return
    assert.deepStrictEqual(decoded.content.map((block) => block._tag), ["UnknownBlock", "TextBlock"])
    assert.strictEqual(decoded.text, "hi")
    assert.isFalse("brand_new_field" in encodeMessage(decoded))
    const request = Result.getOrThrow(decodeMessage({ type: "control_request", request_id: "r", request: { subtype: "new_thing", a: 1 } }))
    assert.strictEqual(request._tag, "ControlRequest")
    if (request._tag === "ControlRequest") assert.strictEqual(request.request._tag, "UnknownRequest")
  })
})
