import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"
import * as Protocol from "../../src/session/Protocol.ts"

const fake = Effect.gen(function*() {
  const written: Array<Record<string, any>> = []
  const protocol = yield* Protocol.make({
    write: (frame) => Effect.sync(() => void written.push(frame)),
    handler: (request) =>
      request.subtype === "echo"
        ? Effect.succeed({ echoed: request.value })
        : Effect.fail(new Protocol.UnsupportedRequest({ subtype: String(request.subtype) })),
    defaultTimeout: "5 seconds"
  })
  return { protocol, written }
})

describe("Protocol (fake transport)", () => {
  it.effect("correlates a response with its request", () =>
    Effect.gen(function*() {
      const { protocol, written } = yield* fake
      const fiber = yield* Effect.forkChild(protocol.request({ subtype: "set_model", model: "x" }))
      yield* Effect.yieldNow
      const id = written[0].request_id
      yield* protocol.receive({
        type: "control_response",
        response: { subtype: "success", request_id: id, response: { ok: 1 } }
      })
      assert.deepStrictEqual(yield* Fiber.join(fiber), { ok: 1 })
    }).pipe(Effect.scoped))

  it.effect("an error response is a typed ControlRequestFailed", () =>
    Effect.gen(function*() {
      const { protocol, written } = yield* fake
      const fiber = yield* Effect.forkChild(Effect.flip(protocol.request({ subtype: "set_model" })))
      yield* Effect.yieldNow
      yield* protocol.receive({
        type: "control_response",
        response: { subtype: "error", request_id: written[0].request_id, error: "bad model" }
      })
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason._tag, "ControlRequestFailed")
      assert.include(error.message, "bad model")
    }).pipe(Effect.scoped))

  it.effect("a timed-out request is cancelled and fails with ControlTimeout", () =>
    Effect.gen(function*() {
      const { protocol, written } = yield* fake
      const fiber = yield* Effect.forkChild(Effect.flip(protocol.request({ subtype: "interrupt" })))
      yield* TestClock.adjust("6 seconds")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason._tag, "ControlTimeout")
      assert.deepStrictEqual(written[1], { type: "control_cancel_request", request_id: written[0].request_id })
    }).pipe(Effect.scoped))

  it.effect("incoming requests are answered; unknown ones with an error", () =>
    Effect.gen(function*() {
      const { protocol, written } = yield* fake
      yield* protocol.receive({ type: "control_request", request_id: "a", request: { subtype: "echo", value: 3 } })
      yield* protocol.receive({ type: "control_request", request_id: "b", request: { subtype: "mystery" } })
      yield* Effect.yieldNow
      yield* Effect.yieldNow
      assert.deepStrictEqual(written.find((f) => f.response.request_id === "a")?.response, {
        subtype: "success",
        request_id: "a",
        response: { echoed: 3 }
      })
      const b = written.find((f) => f.response.request_id === "b")?.response
      assert.strictEqual(b.subtype, "error")
      assert.include(b.error, "Unsupported control request subtype: mystery")
    }).pipe(Effect.scoped))
})
