import { assert, describe, it } from "@effect/vitest"
import { pipe } from "effect/Function"
import * as Option from "effect/Option"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"

const request = (messages: ReadonlyArray<{ role: string; content: unknown }>) =>
  Option.getOrThrow(MessagesRequest.decode({ model: "m", stream: true, messages }))

const script = Script.make([
  Script.turn([Script.toolUse("Task", { prompt: "Count files" })]),
  Script.turn("main done", { failures: [Script.overloaded(), Script.serverError()] })
], {
  subagents: [Script.conversation("agent", MessagesRequest.firstUserTextIncludes("Count files"), [Script.turn("2")])]
})

describe("Script turn selection", () => {
  it("picks the main turn from the count of assistant messages", () => {
    const first = Script.locate(script, request([{ role: "user", content: "hi" }]))
    assert.deepStrictEqual([first.conversation, first.index], ["main", 0])
    assert.strictEqual(first.turn?.content[0].type, "tool_use")
    const second = Script.locate(script, request([
      { role: "user", content: "hi" },
      { role: "system", content: [{ type: "text", text: "env" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Task", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "launched" }] }
    ]))
    assert.deepStrictEqual([second.conversation, second.index], ["main", 1])
  })

  it("routes a subagent's own conversation by its prompt", () => {
    const p = Script.locate(script, request([{ role: "user", content: [{ type: "text", text: "<reminder/>" }, { type: "text", text: "Count files please" }] }]))
    assert.deepStrictEqual([p.conversation, p.index], ["agent", 0])
  })

  it("serves a turn's failures to its first attempts, then the turn", () => {
    const p = Script.locate(script, request([{ role: "user", content: "hi" }, { role: "assistant", content: "x" }]))
    const outcomes = [0, 1, 2, 3].map((a) => Script.outcome(p, a))
    assert.deepStrictEqual(outcomes.map((o) => o._tag), ["Fail", "Fail", "Answer", "Answer"])
    assert.deepStrictEqual(outcomes.flatMap((o) => o._tag === "Fail" ? [o.error.status] : []), [529, 500])
  })

  it("failFirst appends failures, times repeats one", () => {
    const t = pipe(
      Script.turn("ok"),
      Script.failFirst(Script.times(2, Script.overloaded())),
      Script.failFirst([Script.serverError()])
    )
    assert.deepStrictEqual(t.failures.map((e) => e.status), [529, 529, 500])
  })

  it("past the end of a conversation: a 400 naming the turn", () => {
    const p = Script.locate(script, request([
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "c" },
      { role: "assistant", content: "d" }
    ]))
    const o = Script.outcome(p, 0)
    assert.strictEqual(o._tag, "Exhausted")
    if (o._tag === "Exhausted") {
      assert.strictEqual(o.error.status, 400)
      assert.strictEqual(o.error.type, "invalid_request_error")
      assert.include(o.error.message, `conversation "main" has no turn 2`)
    }
  })

  it("reads tool results and texts from a request", () => {
    const r = request([
      { role: "user", content: "first prompt" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", is_error: true, content: [{ type: "text", text: "denied" }] }] }
    ])
    assert.deepStrictEqual(MessagesRequest.toolResults(r), [{ toolUseId: "t1", isError: true, text: "denied" }])
    assert.strictEqual(MessagesRequest.firstUserText(r), "first prompt")
    assert.isTrue(Option.isNone(MessagesRequest.decode({ messages: "nope" })))
  })
})
