import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"
import { decodeMessage } from "../../src/schema/Message.ts"
import * as Protocol from "../../src/session/Protocol.ts"
import * as SessionError from "../../src/session/SessionError.ts"
import { settle } from "./support/Collect.ts"

// Frames as the session gets them: decoded from the wire JSON by the library's message decoder.
const frame = (json: Record<string, unknown>): Protocol.ControlFrame => {
  const message = Result.getOrThrow(decodeMessage(json))
  assert.isTrue(Protocol.isControlFrame(message))
  return message as Protocol.ControlFrame
}

const fake = (handler?: Protocol.Handler) =>
  Effect.gen(function*() {
    const written: Array<Record<string, any>> = []
    const protocol = yield* Protocol.make({
      write: (frame) => Effect.sync(() => void written.push(frame)),
      handler: handler ?? ((request) =>
        request._tag === "McpMessageRequest"
          ? Effect.succeed({ echoed: request.message })
          : request._tag === "SetModelRequest"
          ? Effect.die(new Error("the handler broke"))
          : Effect.fail(new Protocol.UnsupportedRequest({ subtype: request.subtype }))),
      defaultTimeout: "5 seconds"
    })
    const answerTo = (id: string) => written.find((f) => f.type === "control_response" && f.response.request_id === id)
    return { protocol, written, answerTo }
  })

describe("Protocol (fake transport)", () => {
  it.effect("correlates a response with its request", () =>
    Effect.gen(function*() {
      const { protocol, written } = yield* fake()
      const first = yield* Effect.forkChild(protocol.request({ subtype: "set_model", model: "x" }))
      const second = yield* Effect.forkChild(protocol.request({ subtype: "set_model", model: "y" }))
      yield* settle
      assert.notStrictEqual(written[0].request_id, written[1].request_id)
      // Answered out of order: each answer reaches its own request.
      yield* protocol.receive(frame({
        type: "control_response",
        response: { subtype: "success", request_id: written[1].request_id, response: { model: "y" } }
      }))
      yield* protocol.receive(frame({
        type: "control_response",
        response: { subtype: "success", request_id: written[0].request_id, response: { model: "x" } }
      }))
      assert.deepStrictEqual(yield* Fiber.join(first), { model: "x" })
      assert.deepStrictEqual(yield* Fiber.join(second), { model: "y" })
    }))

  it.effect("an error response is a typed ControlRequestFailed", () =>
    Effect.gen(function*() {
      const { protocol, written } = yield* fake()
      const fiber = yield* Effect.forkChild(Effect.flip(protocol.request({ subtype: "set_model" })))
      yield* settle
      yield* protocol.receive(frame({
        type: "control_response",
        response: { subtype: "error", request_id: written[0].request_id, error: "bad model" }
      }))
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error.reason, SessionError.ControlRequestFailed)
      assert.strictEqual(error.reason.error, "bad model")
      assert.include(error.message, "\"set_model\"")
    }))

  it.effect("a timed-out request is cancelled and fails with ControlTimeout", () =>
    Effect.gen(function*() {
      const { protocol, written } = yield* fake()
      const fiber = yield* Effect.forkChild(Effect.flip(protocol.request({ subtype: "interrupt" })))
      yield* settle
      yield* TestClock.adjust("6 seconds")
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error.reason, SessionError.ControlTimeout)
      assert.strictEqual(error.reason.timeoutMillis, 5000)
      assert.deepStrictEqual(written[1], { type: "control_cancel_request", request_id: written[0].request_id })
    }))

  it.effect("a request the transport cannot take is under the deadline", () =>
    Effect.gen(function*() {
      const written: Array<Record<string, any>> = []
      // A CLI that stopped reading stdin: no write goes through.
      const protocol = yield* Protocol.make({
        write: (frame) => Effect.andThen(Effect.sync(() => void written.push(frame)), Effect.never),
        handler: () => Effect.void,
        defaultTimeout: "5 seconds"
      })
      const fiber = yield* Effect.forkChild(Effect.flip(protocol.request({ subtype: "set_model" })))
      yield* settle
      yield* TestClock.adjust("5 seconds")
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error.reason, SessionError.ControlTimeout)
      yield* settle
      // The CLI never saw the request, so there is nothing to cancel.
      assert.deepStrictEqual(written.map((f) => f.type), ["control_request"])
    }))

  it.effect("a timed-out request fails on time though its cancel cannot be written", () =>
    Effect.gen(function*() {
      const written: Array<Record<string, any>> = []
      const protocol = yield* Protocol.make({
        write: (frame) =>
          Effect.andThen(
            Effect.sync(() => void written.push(frame)),
            frame.type === "control_cancel_request" ? Effect.never : Effect.void
          ),
        handler: () => Effect.void,
        defaultTimeout: "5 seconds"
      })
      const fiber = yield* Effect.forkChild(Effect.flip(protocol.request({ subtype: "set_model" })))
      yield* settle
      yield* TestClock.adjust("5 seconds")
      assert.instanceOf((yield* Fiber.join(fiber)).reason, SessionError.ControlTimeout)
      assert.deepStrictEqual(written.map((f) => f.type), ["control_request", "control_cancel_request"])
    }))

  it.effect("incoming requests are answered, unknown ones with an error", () =>
    Effect.gen(function*() {
      const { protocol, answerTo } = yield* fake()
      yield* protocol.receive(frame({
        type: "control_request",
        request_id: "a",
        request: { subtype: "mcp_message", server_name: "s", message: { id: 3 } }
      }))
      yield* protocol.receive(frame({ type: "control_request", request_id: "b", request: { subtype: "mystery" } }))
      yield* protocol.receive(frame({ type: "control_request", request_id: "c", request: { subtype: "set_model" } }))
      yield* settle
      assert.deepStrictEqual(answerTo("a")?.response, {
        request_id: "a",
        subtype: "success",
        response: { echoed: { id: 3 } }
      })
      assert.deepStrictEqual(answerTo("b")?.response, {
        request_id: "b",
        subtype: "error",
        error: "Unsupported control request subtype: mystery"
      })
      assert.deepStrictEqual(answerTo("c")?.response, { request_id: "c", subtype: "error", error: "the handler broke" })
    }))

  it.effect("control_cancel_request interrupts the handler", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const { protocol, written } = yield* fake(() =>
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
        )
      )
      yield* protocol.receive(frame({
        type: "control_request",
        request_id: "slow",
        request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" } }
      }))
      yield* Deferred.await(started)
      yield* protocol.receive(frame({ type: "control_cancel_request", request_id: "slow" }))
      yield* Deferred.await(interrupted)
      yield* settle
      assert.deepStrictEqual(written, [])
    }))

  it.effect("a handler that interrupts itself is answered with an error, not taken for a cancel", () =>
    Effect.gen(function*() {
      const { protocol, answerTo } = yield* fake(() => Effect.interrupt)
      yield* protocol.receive(frame({
        type: "control_request",
        request_id: "own",
        request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" } }
      }))
      yield* settle
      assert.deepStrictEqual(answerTo("own")?.response, {
        request_id: "own",
        subtype: "error",
        error: "the handler of \"can_use_tool\" was interrupted before it answered"
      })
    }))

  it.effect("reject answers an unreadable request with an error", () =>
    Effect.gen(function*() {
      const { protocol, answerTo } = yield* fake()
      yield* protocol.reject("r", "invalid control request: input is missing")
      assert.deepStrictEqual(answerTo("r")?.response, {
        request_id: "r",
        subtype: "error",
        error: "invalid control request: input is missing"
      })
    }))

  it.effect("closeWith fails pending requests and every later one", () =>
    Effect.gen(function*() {
      const { protocol, written } = yield* fake()
      const pending = yield* Effect.forkChild(Effect.flip(protocol.request({ subtype: "set_model" })))
      yield* settle
      const closed = SessionError.make(new SessionError.SessionClosed({ operation: "continue", exitCode: 1 }))
      yield* protocol.closeWith(closed)
      assert.strictEqual(yield* Fiber.join(pending), closed)
      assert.strictEqual(yield* Effect.flip(protocol.request({ subtype: "interrupt" })), closed)
      assert.strictEqual(written.length, 1)
    }))
})
