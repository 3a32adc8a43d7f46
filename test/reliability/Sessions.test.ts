/**
 * The defined behaviour of a session when its own side goes wrong: closed under a turn, callbacks that answer
 * with what cannot be written or with the wrong kind of value, values that cannot be sent. Titles read
 * "<case>: <defined behaviour>"; a script turns them into the README's reliability table.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"
import * as Session from "../../src/session/Session.ts"
import * as SessionError from "../../src/session/SessionError.ts"
import { collect, reasonOf, settle } from "../session/support/Collect.ts"
import * as FakeCli from "../session/support/FakeCli.ts"

describe("Sessions", () => {
  it.effect("close during a streaming turn, the CLI terminated after the grace period: the turn's reader gets what was written, then SessionClosed (not ProcessExited 143)", () => {
    // Starts the turn and never finishes it; reads on after stdin ends, so close has to terminate it.
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) => FakeCli.writeAll(io, FakeCli.helloLines.slice(0, 2)),
      onStdinEnd: "hang"
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ killGracePeriod: "2 seconds" })
      const turn = yield* Effect.forkChild(Effect.flip(collect(session.turn("hello"))))
      yield* settle
      const close = yield* Effect.forkChild(session.close)
      yield* settle
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(close)
      assert.deepStrictEqual(fake.signals, ["SIGTERM"])
      const closed = reasonOf(yield* Fiber.join(turn), SessionError.SessionError, SessionError.SessionClosed)
      assert.strictEqual(closed.exitCode, 143)
    }).pipe(Effect.scoped, Effect.provide(fake.layer))
  })
})
