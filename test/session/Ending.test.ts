import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as CliError from "../../src/ClaudeCliError.ts"
import * as Session from "../../src/session/Session.ts"
import * as SessionError from "../../src/session/SessionError.ts"
import * as Script from "../../src/testing/Script.ts"
import { collect, isDone, reasonOf, settle } from "./support/Collect.ts"
import * as FakeCli from "./support/FakeCli.ts"
import * as Real from "./support/Real.ts"

const { helloLines, success } = FakeCli

// The SessionClosed an error carries.
const closedReason = (error: unknown) => reasonOf(error, SessionError.SessionError, SessionError.SessionClosed)

describe("Session ending (fake CLI, test clock)", () => {
  it.effect("closing the scope fails pending and later calls with SessionClosed", () => {
    // Starts a turn and never ends it (no init either, so the session id stays unknown); answers interrupts, never
    // set_model.
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) => FakeCli.writeAll(io, helloLines.slice(1, 2)),
      onRequest: (frame, io) => frame.request.subtype === "interrupt" ? io.write(success(frame)) : Effect.void,
      onStdinEnd: "hang"
    }))
    return Effect.gen(function*() {
      const scope = yield* Scope.make()
      const session = yield* Scope.provide(Session.make(), scope)
      const turn = yield* Effect.forkDetach(Effect.flip(collect(session.turn("hello"))))
      yield* settle
      const pending = {
        messages: yield* Effect.forkDetach(Effect.flip(collect(session.messages))),
        interrupt: yield* Effect.forkDetach(Effect.flip(session.interrupt)),
        setModel: yield* Effect.forkDetach(Effect.flip(session.setModel("other"))),
        sessionId: yield* Effect.forkDetach(Effect.flip(session.sessionId))
      }
      yield* settle
      for (const fiber of [turn, ...Object.values(pending)]) assert.isFalse(isDone(fiber))
      yield* Scope.close(scope, Exit.void)
      yield* settle
      // No clock time has passed: no deadline (controlTimeout, interruptTimeout) ended them.
      assert.isTrue(isDone(turn))
      for (const fiber of Object.values(pending)) assert.isTrue(isDone(fiber))
      assert.strictEqual(closedReason(yield* Fiber.join(turn)).operation, "read more output")
      assert.strictEqual(closedReason(yield* Fiber.join(pending.messages)).operation, "read more output")
      assert.strictEqual(closedReason(yield* Fiber.join(pending.interrupt)).operation, "finish the interrupted turn")
      assert.strictEqual(closedReason(yield* Fiber.join(pending.setModel)).operation, "complete a control request")
      assert.strictEqual(closedReason(yield* Fiber.join(pending.sessionId)).operation, "learn the session id")
      // And the session used after its scope closed: every call fails at once, none is lost silently.
      closedReason(yield* Effect.flip(session.send("lost?")))
      closedReason(yield* Effect.flip(collect(session.turn("again"))))
      closedReason(yield* Effect.flip(collect(session.messages)))
      closedReason(yield* Effect.flip(Effect.scoped(Effect.flatMap(session.subscribe, collect))))
      closedReason(yield* Effect.flip(session.interrupt))
      closedReason(yield* Effect.flip(session.setPermissionMode("plan")))
      closedReason(yield* Effect.flip(session.sessionId))
      yield* session.close
      assert.isTrue(fake.exited())
      assert.strictEqual(fake.received.filter((f) => f.type === "user").length, 1)
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a send blocked on stdin fails with SessionClosed", () => {
    const fake = FakeCli.make(FakeCli.serve({ onStdinEnd: "hang" }), { stdinLines: 1 })
    return Effect.gen(function*() {
      const scope = yield* Scope.make()
      const session = yield* Scope.provide(Session.make({ bufferSize: 1 }), scope)
      // The first fills stdin's buffer, the second waits for room that never comes.
      yield* session.send("fills the buffer")
      const waiting = yield* Effect.forkDetach(Effect.flip(session.send("waits")))
      yield* settle
      assert.isFalse(isDone(waiting))
      yield* Scope.close(scope, Exit.void)
      yield* settle
      assert.isTrue(isDone(waiting))
      assert.strictEqual(closedReason(yield* Fiber.join(waiting)).operation, "write a user frame")
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("the CLI's death: waiting calls fail, a lagging reader gets all", () => {
    // Writes a turn, takes a set_model request, and dies without answering it.
    const dying = FakeCli.make((io) =>
      Effect.gen(function*() {
        const initialize = yield* io.read
        yield* io.write(success(initialize, { commands: [], models: [] }))
        yield* io.read
        yield* FakeCli.writeAll(io, [helloLines[0], ...Array.from({ length: 20 }, () => helloLines[1])])
        yield* io.read
        yield* io.writeStderr("fatal: out of memory\n")
        return 3
      })
    )
    return Effect.gen(function*() {
      const session = yield* Session.make({ bufferSize: 2 })
      const stalled = yield* Scope.make()
      const held = yield* Scope.provide(session.subscribe, stalled)
      yield* session.send("hello")
      const setModel = yield* Effect.forkChild(Effect.flip(session.setModel("other")))
      yield* settle
      // The deadline setModel would otherwise run into.
      yield* TestClock.adjust("60 seconds")
      const closed = closedReason(yield* Fiber.join(setModel))
      assert.strictEqual(closed.exitCode, 3)
      assert.include(closed.message, "fatal: out of memory")
      closedReason(yield* Effect.flip(session.send("after")))
      const messages: Array<Session.Message> = []
      const end = yield* Effect.flip(Stream.runForEach(held, (m) => Effect.sync(() => messages.push(m))))
      assert.strictEqual(messages.length, 21)
      assert.strictEqual(reasonOf(end, CliError.ClaudeCliError, CliError.ProcessExited).exitCode, 3)
      yield* Scope.close(stalled, Exit.void)
    }).pipe(Effect.provide(dying.layer))
  })
})

describe("Session ending (real CLI)", () => {
  it.live("a CLI killed by a signal: calls fail with SessionClosed naming it", () =>
    Effect.gen(function*() {
      const { base } = yield* Real.setup([Script.turn("one")])
      const session = yield* Session.make(base)
      assert.strictEqual(Real.resultOf(yield* collect(session.turn("one"))).result, "one")
      process.kill(session.pid, "SIGKILL")
      yield* Real.waitUntil(Effect.sync(() => !Real.isAlive(session.pid))).pipe(Effect.timeout("10 seconds"))
      // The session notices the exit in its own time; the send after it fails with what ended the CLI.
      const closed = yield* Effect.flip(session.send("two")).pipe(
        Effect.map(closedReason),
        Effect.filterOrFail((reason) => reason.signal !== undefined, () => "no signal yet"),
        Effect.retry(Schedule.spaced("100 millis")),
        Effect.timeout("10 seconds")
      )
      assert.strictEqual(closed.signal, "SIGKILL")
      assert.strictEqual(closed.exitCode, null)
      assert.include(closed.message, "killed by SIGKILL")
    }).pipe(Effect.provide(NodeServices.layer)), 60_000)
})
