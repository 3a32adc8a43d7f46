import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as Session from "../../src/session/Session.ts"
import * as SessionError from "../../src/session/SessionError.ts"
import { collect, isDone, outline, settle } from "./support/Collect.ts"
import * as FakeCli from "./support/FakeCli.ts"

const { helloAnswering, helloLines, requestsOf, success } = FakeCli

const resultOf = (text: string, subtype = "success") => ({ ...JSON.parse(helloLines[2]), subtype, result: text })

describe("Session turns and interrupts (fake CLI)", () => {
  it.effect("interrupt with no turn running returns at once", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (frame, io) => FakeCli.writeAll(io, helloAnswering(`echo: ${frame.message.content}`))
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make()
      // Before the first turn, then between turns: no turn to wait for (the test clock never moves).
      yield* session.interrupt
      assert.deepStrictEqual(outline(yield* collect(session.turn("one"))), ["SystemInit", "AssistantMessage", "echo: one"])
      yield* session.interrupt
      assert.deepStrictEqual(outline(yield* collect(session.turn("two"))), ["SystemInit", "AssistantMessage", "echo: two"])
      assert.strictEqual(requestsOf(fake, "interrupt").length, 2)
      assert.deepStrictEqual(fake.signals, [])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("an unanswered idle interrupt fails with ControlTimeout", () => {
    const fake = FakeCli.make(FakeCli.serve({ onRequest: () => Effect.void }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ controlTimeout: "3 seconds", interruptTimeout: "1 second" })
      const interrupt = yield* Effect.forkChild(Effect.flip(session.interrupt))
      yield* settle
      // Past the interrupt deadline, which only applies to a running turn.
      yield* TestClock.adjust("1 second")
      yield* settle
      assert.isFalse(isDone(interrupt))
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(interrupt)
      assert.instanceOf(error.reason, SessionError.ControlTimeout)
      assert.deepStrictEqual(fake.signals, [])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("interrupt waits for the running turn's end only", () =>
    Effect.gen(function*() {
      const endFirst = yield* Deferred.make<void>()
      const startSecond = yield* Deferred.make<void>()
      let queued: FakeCli.Frame | undefined
      // Like the CLI: the second prompt waits in its queue while the first turn runs, and is replayed when
      // its own turn starts.
      const fake = FakeCli.make(FakeCli.serve({
        replay: "byScript",
        onUser: (frame, io) =>
          frame.message.content === "first"
            ? FakeCli.writeAll(io, [helloLines[0], FakeCli.replayOf(frame), helloLines[1]])
            : frame.message.content === "second"
            ? Effect.sync(() => void (queued = frame))
            : FakeCli.writeAll(io, [FakeCli.replayOf(frame), ...helloAnswering(`echo: ${frame.message.content}`)]),
        onRequest: (frame, io) =>
          Effect.gen(function*() {
            yield* io.write(success(frame))
            yield* Deferred.await(endFirst)
            yield* io.write(resultOf("interrupted", "error_during_execution"))
            yield* Deferred.await(startSecond)
            yield* FakeCli.writeAll(io, [FakeCli.replayOf(queued!), ...helloAnswering("echo: second")])
          }).pipe(Effect.forkChild, Effect.asVoid)
      }))
      yield* Effect.gen(function*() {
        const session = yield* Session.make()
        const all = yield* session.subscribe
        yield* session.send("first")
        yield* session.send("second")
        yield* settle
        const interrupt = yield* Effect.forkChild(session.interrupt)
        yield* settle
        // Answered, but the turn has not ended yet.
        assert.strictEqual(requestsOf(fake, "interrupt").length, 1)
        assert.isFalse(isDone(interrupt))
        yield* Deferred.succeed(endFirst, undefined)
        yield* settle
        // Done while the second turn has not even started.
        assert.isTrue(isDone(interrupt))
        yield* Fiber.join(interrupt)
        yield* Deferred.succeed(startSecond, undefined)
        const results = yield* collect(all.pipe(Stream.filter((m) => m.type === "result"), Stream.take(2)))
        assert.deepStrictEqual(results.map((m) => "subtype" in m ? m.subtype : m._tag), ["error_during_execution", "success"])
        // Nothing is owed any more: the next turn is the third, and its result is its own.
        assert.deepStrictEqual(outline(yield* collect(session.turn("third"))), ["SystemInit", "AssistantMessage", "echo: third"])
      }).pipe(Effect.scoped, Effect.provide(fake.layer))
    }))

  it.effect("a prompt sent mid-turn joins that turn", () => {
    let running = false
    // Like the CLI: a prompt that arrives mid-turn is replayed at once and answered within the running turn.
    const fake = FakeCli.make(FakeCli.serve({
      replay: "byScript",
      onUser: (frame, io) => {
        const content = frame.message.content
        if (!running && content === "start") {
          running = true
          return FakeCli.writeAll(io, [helloLines[0], FakeCli.replayOf(frame), helloLines[1]])
        }
        if (running) {
          running = false
          return FakeCli.writeAll(io, [FakeCli.replayOf(frame), helloLines[1], resultOf(`start + ${content}`)])
        }
        return FakeCli.writeAll(io, [helloLines[0], FakeCli.replayOf(frame), ...helloAnswering(`echo: ${content}`).slice(1)])
      }
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ interruptTimeout: "1 second" })
      // A turn, and a prompt sent beside it.
      const first = yield* Effect.forkChild(collect(session.turn("start")))
      yield* settle
      yield* session.send("aside")
      assert.deepStrictEqual(outline(yield* Fiber.join(first)), ["SystemInit", "AssistantMessage", "AssistantMessage", "start + aside"])
      // A raw send starts a turn, and a turn's prompt joins it: that turn gives what follows its prompt.
      yield* session.send("start")
      yield* settle
      assert.deepStrictEqual(outline(yield* collect(session.turn("joining"))), ["AssistantMessage", "start + joining"])
      // Nothing is owed: an interrupt returns at once, and the next turn gets its own result.
      const interrupt = yield* Effect.forkChild(session.interrupt)
      yield* settle
      assert.isTrue(isDone(interrupt))
      assert.deepStrictEqual(outline(yield* collect(session.turn("next"))), ["SystemInit", "AssistantMessage", "echo: next"])
      assert.deepStrictEqual(fake.signals, [])
    }).pipe(Effect.provide(fake.layer))
  })

  for (const taking of ["its started event, before the turn's init (CLI 2.1.330)", "its replay, after the turn's init"]) {
    it.effect(`a queued prompt gets its own turn, told by ${taking}`, () =>
      Effect.gen(function*() {
        const endFirst = yield* Deferred.make<void>()
        let waiting: FakeCli.Frame | undefined
        const viaReplay = taking.startsWith("its replay")
        // The first prompt starts a turn that runs until `endFirst`; a prompt arriving meanwhile is queued and
        // runs as the next turn, its replay coming late (with the answer), as CLI 2.1.330 writes it.
        const fake = FakeCli.make(FakeCli.serve({
          replay: "byScript",
          onUser: (frame, io) => {
            if (frame.message.content !== "first") {
              waiting = frame
              return io.write(FakeCli.lifecycle(frame, "queued"))
            }
            const next = (queued: FakeCli.Frame) =>
              viaReplay
                ? [helloLines[0], FakeCli.replayOf(queued), ...helloAnswering(`echo: ${queued.message.content}`).slice(1)]
                : [FakeCli.lifecycle(queued, "started"), helloLines[0], FakeCli.replayOf(queued), ...helloAnswering(`echo: ${queued.message.content}`).slice(1)]
            return FakeCli.writeAll(io, [helloLines[0], FakeCli.replayOf(frame), helloLines[1]]).pipe(
              Effect.andThen(Deferred.await(endFirst)),
              Effect.andThen(Effect.suspend(() => FakeCli.writeAll(io, [resultOf("first done"), ...next(waiting!)]))),
              Effect.forkChild,
              Effect.asVoid
            )
          }
        }))
        yield* Effect.gen(function*() {
          const session = yield* Session.make()
          yield* session.send("first")
          yield* settle
          const queued = yield* Effect.forkChild(collect(session.turn("queued")))
          yield* settle
          yield* Deferred.succeed(endFirst, undefined)
          assert.deepStrictEqual(outline(yield* Fiber.join(queued)), ["SystemInit", "AssistantMessage", "echo: queued"])
        }).pipe(Effect.scoped, Effect.provide(fake.layer))
      }))
  }

  it.effect("a turn whose output ends before its result fails with SessionClosed", () => {
    const fake = FakeCli.make(FakeCli.serve({ onUser: (_, io) => FakeCli.writeAll(io, helloLines.slice(0, 2)) }))
    return Effect.gen(function*() {
      const session = yield* Session.make()
      const turn = yield* Effect.forkChild(Effect.flip(collect(session.turn("hello"))))
      yield* settle
      yield* session.close
      const error = yield* Fiber.join(turn)
      assert.instanceOf(error, SessionError.SessionError)
      const reason = (error as SessionError.SessionError).reason
      assert.instanceOf(reason, SessionError.SessionClosed)
      assert.strictEqual((reason as SessionError.SessionClosed).operation, "finish the turn")
      assert.strictEqual((reason as SessionError.SessionClosed).exitCode, 0)
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a prompt withdrawn by the interrupt ends its turn without a result", () => {
    let waiting: FakeCli.Frame | undefined
    // Like the CLI: the second prompt waits behind the first turn; an interrupt with cancel_queued withdraws
    // it (its lifecycle event says so) and ends the first turn.
    const fake = FakeCli.make(FakeCli.serve({
      replay: "byScript",
      onUser: (frame, io) =>
        frame.message.content === "first"
          ? FakeCli.writeAll(io, [helloLines[0], FakeCli.lifecycle(frame, "started"), helloLines[1]])
          : Effect.sync(() => void (waiting = frame)),
      onRequest: (frame, io) =>
        FakeCli.writeAll(io, [
          FakeCli.lifecycle(waiting!, "cancelled"),
          success(frame, { still_queued: [], cancelled: [waiting!.uuid] }),
          resultOf("interrupted", "error_during_execution")
        ])
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ interruptTimeout: "1 second" })
      yield* session.send("first")
      yield* settle
      const second = yield* Effect.forkChild(collect(session.turn("second")))
      yield* settle
      const interrupt = yield* Effect.forkChild(session.interruptAndCancelQueued)
      yield* settle
      // Both end without the interrupt's deadline (the test clock never moves), and the CLI lives on.
      assert.isTrue(isDone(interrupt))
      assert.deepStrictEqual(yield* Fiber.join(interrupt), { still_queued: [], cancelled: [waiting!.uuid] })
      assert.deepStrictEqual(outline(yield* Fiber.join(second)), [])
      assert.deepStrictEqual(requestsOf(fake, "interrupt").map((r) => r.request.cancel_queued), [true])
      assert.deepStrictEqual(fake.signals, [])
    }).pipe(Effect.provide(fake.layer))
  })
})
