import { assert, describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as CliError from "../../src/ClaudeCliError.ts"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Session from "../../src/session/Session.ts"
import * as Script from "../../src/testing/Script.ts"
import { collect, isDone, outline, reasonOf, settle } from "./support/Collect.ts"
import * as FakeCli from "./support/FakeCli.ts"
import { isAlive, resultOf, setup, waitUntil } from "./support/Real.ts"

const { helloAnswering, helloLines } = FakeCli

const idleReason = (error: unknown) => reasonOf(error, CliError.ClaudeCliError, CliError.IdleTimeout)

describe("Session idle timeout (fake CLI, test clock)", () => {
  it.effect("a CLI hanging mid-turn fails with IdleTimeout and is ended", () => {
    // Starts the turn, then writes nothing more.
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) => Effect.andThen(FakeCli.writeAll(io, helloLines.slice(0, 2)), Effect.never)
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ idleTimeout: "30 seconds" })
      const output = yield* Effect.forkChild(Effect.flip(collect(yield* session.subscribe)))
      const turn = yield* Effect.forkChild(Effect.flip(collect(session.turn("hello"))))
      yield* settle
      yield* TestClock.adjust("29 seconds")
      yield* settle
      assert.isFalse(isDone(turn))
      yield* TestClock.adjust("1 second")
      const reason = idleReason(yield* Fiber.join(turn))
      assert.strictEqual(reason.timeoutMillis, 30000)
      // 1: the initialize answer, 2: the prompt's replay, 3: system/init, 4: the assistant message.
      assert.strictEqual(reason.lastLine, 4)
      assert.include(reason.message, "30000 ms after line 4")
      idleReason(yield* Fiber.join(output))
      assert.deepStrictEqual(fake.signals, ["SIGTERM"])
      assert.isTrue(fake.exited())
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("silence between turns, a slow callback and a slow reader never count", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (frame, io) =>
        Effect.gen(function*() {
          if (frame.message.content === "ask") {
            yield* io.write({
              type: "control_request",
              request_id: "perm",
              request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" } }
            })
            yield* io.read
          }
          yield* FakeCli.writeAll(io, helloAnswering(`echo: ${frame.message.content}`))
        })
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({
        idleTimeout: "30 seconds",
        bufferSize: 1,
        // The CLI waits for this answer: two minutes of silence that are ours, not the CLI's.
        canUseTool: () => Effect.as(Effect.sleep("2 minutes"), CanUseTool.allow())
      })
      assert.deepStrictEqual(outline(yield* collect(session.turn("one"))), ["SystemInit", "AssistantMessage", "echo: one"])
      yield* TestClock.adjust("1 hour")
      yield* settle
      const asking = yield* Effect.forkChild(collect(session.turn("ask")))
      yield* settle
      yield* TestClock.adjust("2 minutes")
      assert.deepStrictEqual(outline(yield* Fiber.join(asking)), ["SystemInit", "AssistantMessage", "echo: ask"])
      // A reader an hour behind holds the CLI's output in the pipe: the CLI has written, it is not idle.
      const stalled = yield* Scope.make()
      yield* Scope.provide(session.subscribe, stalled)
      const held = yield* Effect.forkChild(collect(session.turn("held")))
      yield* settle
      yield* TestClock.adjust("1 hour")
      yield* settle
      assert.isFalse(isDone(held))
      yield* Scope.close(stalled, Exit.void)
      assert.deepStrictEqual(outline(yield* Fiber.join(held)), ["SystemInit", "AssistantMessage", "echo: held"])
      assert.deepStrictEqual(fake.signals, [])
      assert.isFalse(fake.exited())
    }).pipe(Effect.provide(fake.layer))
  })
})

describe("Session idle timeout (real CLI)", () => {
  it.live("only the model stalling trips idleTimeout", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([
        Script.turn("one"),
        Script.turn(Script.toolUse("Write", { file_path: "a.txt", content: "x" })),
        Script.turn("two"),
        Script.turn("stalls", { eventDelay: "4 seconds" })
      ])
      const session = yield* Session.make({
        ...base,
        idleTimeout: "1500 millis",
        bufferSize: 2,
        canUseTool: () => Effect.as(Effect.sleep("3 seconds"), CanUseTool.allow())
      })
      assert.strictEqual(resultOf(yield* collect(session.turn("one"))).result, "one")
      yield* Effect.sleep("3 seconds")
      assert.isTrue(isAlive(session.pid))
      // The CLI waits 3 s for the callback, and each message then waits 0.7 s for this reader.
      const written = yield* collect(session.turn("write").pipe(Stream.tap(() => Effect.sleep("700 millis"))))
      assert.strictEqual(resultOf(written).result, "two")
      const reason = idleReason(yield* Effect.flip(collect(session.turn("stall"))))
      assert.strictEqual(reason.timeoutMillis, 1500)
      yield* waitUntil(Effect.sync(() => !isAlive(session.pid)))
    }).pipe(Effect.provide(NodeServices.layer)))
})
