import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Sse from "../../src/testing/internal/Sse.ts"

const script = Script.make([
  Script.turn([Script.text("Reading."), Script.toolUse("Read", { file_path: "/x" })], {
    failures: [Script.rateLimited(3)]
  }),
  Script.turn("Done.")
])

const post = (url: string, body: unknown) =>
  Effect.promise(async () => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "sk-ant-test" },
      body: JSON.stringify(body)
    })
    return { status: res.status, headers: res.headers, text: await res.text() }
  })

const conversation = (assistantTurns: number) =>
  Array.from({ length: assistantTurns * 2 + 1 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `m${i}` }))

describe("ScriptedServer", () => {
  it.live("answers turns, fails first attempts, serves side requests", () =>
    Effect.gen(function*() {
      const server = yield* ScriptedServer.make(script)
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/)
      const messages = `${server.url}/v1/messages?beta=true`

      const limited = yield* post(messages, { model: "m", stream: true, messages: conversation(0) })
      assert.strictEqual(limited.status, 429)
      assert.strictEqual(limited.headers.get("retry-after"), "3")
      assert.deepInclude(JSON.parse(limited.text), { type: "error" })
      assert.strictEqual(JSON.parse(limited.text).error.type, "rate_limit_error")

      const side = yield* post(messages, { model: "m", max_tokens: 50, messages: conversation(0) })
      assert.strictEqual(side.status, 200)
      assert.strictEqual(JSON.parse(side.text).content[0].text, "Scripted session")

      const first = yield* post(messages, { model: "m", stream: true, messages: conversation(0) })
      assert.strictEqual(first.status, 200)
      assert.strictEqual(first.headers.get("content-type"), "text/event-stream")
      const turn0 = Sse.assemble(Sse.parse(first.text))
      assert.deepStrictEqual(turn0.content.map((b) => b.type), ["text", "tool_use"])
      assert.deepStrictEqual(turn0.content[1].input, { file_path: "/x" })
      assert.strictEqual(turn0.stopReason, "tool_use")

      const second = yield* post(messages, { model: "m", stream: true, messages: conversation(1) })
      assert.deepStrictEqual(Sse.assemble(Sse.parse(second.text)).content, [{ type: "text", text: "Done." }])

      const beyond = yield* post(messages, { model: "m", stream: true, messages: conversation(2) })
      assert.strictEqual(beyond.status, 400)
      assert.include(JSON.parse(beyond.text).error.message, "no turn 2")

      const tokens = yield* post(`${server.url}/v1/messages/count_tokens`, { model: "m", messages: conversation(0) })
      assert.isAbove(JSON.parse(tokens.text).input_tokens, 0)
      const probe = yield* Effect.promise(() => fetch(server.url, { method: "HEAD" }))
      assert.strictEqual(probe.status, 200)

      const requests = yield* server.requests
      assert.deepStrictEqual(
        requests.map((r) => [r.kind, r.turn, r.attempt]),
        [
          ["failure", 0, 0],
          ["side", undefined, undefined],
          ["turn", 0, 1],
          ["turn", 1, 0],
          ["exhausted", 2, 0],
          ["count_tokens", undefined, undefined],
          ["other", undefined, undefined]
        ]
      )
      assert.strictEqual(requests[0].headers["x-api-key"], "sk-ant-test")
      assert.deepStrictEqual((requests[0].body as { messages: unknown }).messages, conversation(0))
    }))

  it.live("stops listening when its scope closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const server = yield* ScriptedServer.make(script).pipe(Scope.provide(scope))
      const before = yield* Effect.promise(() => fetch(server.url).then((r) => r.status))
      assert.strictEqual(before, 200)
      yield* Scope.close(scope, Exit.void)
      const after = yield* Effect.promise(() => fetch(server.url).then(() => "answered", () => "refused"))
      assert.strictEqual(after, "refused")
    }))
})
