import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as Session from "../../src/session/Session.ts"
import { collect, outline, settle } from "./support/Collect.ts"
import * as FakeCli from "./support/FakeCli.ts"

const { helloAnswering, helloLines, lifecycle, replayOf, requestsOf, success } = FakeCli

const interrupted = { ...JSON.parse(helloLines[2]), subtype: "error_during_execution", is_error: true, result: "interrupted" }

// Answers a prompt with `count` assistant messages and no result; an interrupt ends the turn with the CLI's
// interrupted result. What it writes waits in its pipe until the session reads it.
const flooding = (count: number) =>
  FakeCli.make(FakeCli.serve({
    onUser: (_, io) => FakeCli.writeAll(io, [helloLines[0], ...Array.from({ length: count }, () => helloLines[1])]),
    onRequest: (frame, io) => FakeCli.writeAll(io, [success(frame), interrupted])
  }))

// Like CLI 2.1.330: a prompt is queued (and said to be), then taken up a moment later; a turn takes a minute.
// An interrupt that finds the prompt still queued answers `still_queued` and leaves it to run; one that finds
// the turn running ends it.
const queueing = () => {
  let turn: { readonly frame: FakeCli.Frame; readonly fiber: Fiber.Fiber<void, unknown>; started: boolean } | undefined
  const run = (frame: FakeCli.Frame, io: FakeCli.Io) =>
    Effect.gen(function*() {
      yield* Effect.sleep("1 milli")
      turn!.started = true
      yield* FakeCli.writeAll(io, [lifecycle(frame, "started"), helloLines[0]])
      yield* Effect.sleep("1 minute")
      turn = undefined
      yield* FakeCli.writeAll(io, [replayOf(frame), ...helloAnswering(`echo: ${frame.message.content}`).slice(1)])
    })
  return FakeCli.make(FakeCli.serve({
    replay: "byScript",
    onUser: (frame, io) =>
      Effect.gen(function*() {
        yield* io.write(lifecycle(frame, "queued"))
        turn = { frame, fiber: yield* Effect.forkChild(run(frame, io)), started: false }
      }),
    onRequest: (frame, io) =>
      Effect.gen(function*() {
        const running = turn
        if (running === undefined || !running.started) {
          return yield* io.write(success(frame, { still_queued: running ? [running.frame.uuid] : [] }))
        }
        turn = undefined
        yield* Fiber.interrupt(running.fiber)
        yield* FakeCli.writeAll(io, [success(frame, { still_queued: [] }), replayOf(running.frame), interrupted])
      })
  }))
}

describe("Session interrupts (fake CLI, test clock)", () => {
  it.effect("a reader interrupting from its own stream gets the end on time", () => {
    const fake = flooding(200)
    return Effect.gen(function*() {
      const session = yield* Session.make({ bufferSize: 4, interruptTimeout: "10 seconds" })
      let read = 0
      const turn = yield* Effect.forkChild(
        collect(session.turn("flood").pipe(Stream.tap(() => ++read === 10 ? Effect.asVoid(session.interrupt) : Effect.void)))
      )
      yield* settle
      // The deadline: had the session waited for this reader to pull the turn's end, the CLI would be killed here.
      yield* TestClock.adjust("10 seconds")
      const messages = yield* Fiber.join(turn)
      assert.strictEqual(messages.length, 202)
      const result = messages.at(-1)
      assert.strictEqual(result?._tag === "ResultError" ? result.subtype : result?._tag, "error_during_execution")
      assert.deepStrictEqual(fake.signals, [])
      assert.isFalse(fake.exited())
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("an interrupt while an unread subscription holds the output", () => {
    const fake = flooding(200)
    return Effect.gen(function*() {
      const session = yield* Session.make({ bufferSize: 4, interruptTimeout: "10 seconds" })
      const stalled = yield* Scope.make()
      const held = yield* Scope.provide(session.subscribe, stalled)
      yield* session.send("flood")
      yield* settle
      // Paced: most of the turn is still in the CLI's pipe.
      assert.isAbove(fake.unread(), 150)
      const interrupt = yield* Effect.forkChild(session.interrupt)
      yield* settle
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(interrupt)
      assert.deepStrictEqual(fake.signals, [])
      // What the session read ahead waits for the reader, whole and in order.
      const all = yield* collect(held.pipe(Stream.takeUntil((m) => m.type === "result")))
      assert.deepStrictEqual(all.map((m) => m._tag), ["SystemInit", ...Array.from({ length: 200 }, () => "AssistantMessage"), "ResultError"])
      yield* Scope.close(stalled, Exit.void)
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("an interrupt before the prompt is taken up is sent again", () => {
    const fake = queueing()
    return Effect.gen(function*() {
      const session = yield* Session.make({ interruptTimeout: "10 seconds" })
      const all = yield* session.subscribe
      yield* session.send("stop me")
      const interrupt = yield* Effect.forkChild(session.interrupt)
      yield* settle
      // The prompt is taken up 1 ms after it is queued; left to run, the turn would end a minute later.
      yield* TestClock.adjust("1 milli")
      yield* settle
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(interrupt)
      assert.strictEqual(requestsOf(fake, "interrupt").length, 2)
      assert.deepStrictEqual(fake.signals, [])
      const results = yield* collect(all.pipe(Stream.filter((m) => m.type === "result"), Stream.take(1)))
      assert.deepStrictEqual(results.map((m) => m._tag === "ResultError" ? m.subtype : m._tag), ["error_during_execution"])
      // The session goes on: the next turn runs to its own result.
      const next = yield* Effect.forkChild(collect(session.turn("next")))
      yield* settle
      yield* TestClock.adjust("2 minutes")
      assert.deepStrictEqual(outline(yield* Fiber.join(next)), ["SystemInit", "AssistantMessage", "echo: next"])
    }).pipe(Effect.provide(fake.layer))
  })
})
