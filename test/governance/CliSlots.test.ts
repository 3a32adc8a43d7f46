import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as ClaudeCliError from "../../src/ClaudeCliError.ts"
import * as CliSlots from "../../src/governance/CliSlots.ts"
import * as Process from "../../src/process/Process.ts"
import * as Session from "../../src/session/Session.ts"
import * as Script from "../../src/testing/Script.ts"
import { childPids } from "../reliability/support/leaks.ts"
import { setup } from "../session/support/Real.ts"

// The CLIs alive now, from the process table: this process's children that are not a guard's `/bin/sh` watcher.
const liveClis = (): number =>
  childPids().filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] !== "/bin/sh"
    } catch {
      return false
    }
  }).length

const capped = (options: CliSlots.Options) =>
  Layer.provideMerge(CliSlots.layer(options), Process.nodeSpawner)

describe("CliSlots (real CLI)", () => {
  it.live("a cap of 2: five sessions at once, never more than two CLIs, all answered in order", () =>
    Effect.gen(function*() {
      const { base } = yield* setup(Array.from({ length: 5 }, () => Script.turn("ok", { eventDelay: "100 millis", chunkSize: 1 })))
      let most = 0
      const sampler = yield* Effect.forkChild(Effect.forever(Effect.andThen(
        Effect.sync(() => {
          most = Math.max(most, liveClis())
        }),
        Effect.sleep("20 millis")
      )))
      const started: Array<number> = []
      const one = (i: number) =>
        Effect.gen(function*() {
          const session = yield* Session.make(base)
          started.push(i)
          const out = yield* Stream.runCollect(session.turn(`prompt ${i}`))
          return out.at(-1)?._tag
        }).pipe(Effect.scoped)
      // Asked in order 0..4, 250 ms apart (more than a session takes to reach the spawner on a busy machine); 0 and
      // 1 get slots at once, the rest wait.
      const fibers = []
      for (let i = 0; i < 5; i++) {
        fibers.push(yield* Effect.forkChild(one(i)))
        yield* Effect.sleep("250 millis")
      }
      const results = yield* Fiber.joinAll(fibers)
      yield* Fiber.interrupt(sampler)
      assert.deepStrictEqual(results, Array(5).fill("ResultSuccess"))
      assert.strictEqual(most, 2)
      assert.deepStrictEqual(started.slice(2), [2, 3, 4])
      assert.strictEqual(yield* Effect.flatMap(CliSlots.CliSlots, (slots) => slots.inUse), 0)
    }).pipe(Effect.provide(capped({ max: 2, maxWait: "60 seconds" })), Effect.provide(NodeServices.layer)), 180_000)

  it.live("a queued session past its wait fails with NoCliSlot", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("held")])
      // The one slot, held by a session that stays open.
      yield* Session.make(base)
      const exit = yield* Effect.exit(Effect.scoped(Session.make(base)))
      assert.isTrue(Exit.isFailure(exit))
      const failure = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      const error = failure?._tag === "Fail" ? failure.error : undefined
      assert.instanceOf(error, ClaudeCliError.ClaudeCliError)
      const reason = (error as ClaudeCliError.ClaudeCliError).reason
      assert.instanceOf(reason, ClaudeCliError.NoCliSlot)
      assert.strictEqual((reason as ClaudeCliError.NoCliSlot).max, 1)
      assert.isAtLeast((reason as ClaudeCliError.NoCliSlot).waitedMillis, 900)
      assert.strictEqual(liveClis(), 1)
    }).pipe(Effect.provide(capped({ max: 1, maxWait: "1 second" })), Effect.provide(NodeServices.layer)), 120_000)

  it.effect("evicts the oldest idle offer when one must wait", () =>
    Effect.gen(function*() {
      const slots = yield* CliSlots.make({ max: 1, maxWait: "1 second" })
      const closed: Array<string> = []
      const holder = yield* Effect.forkChild(Effect.scoped(Effect.gen(function*() {
        yield* slots.take
        yield* slots.evictable(Effect.sync(() => closed.push("first")))
        yield* slots.evictable(Effect.sync(() => closed.push("second")))
        yield* Effect.never
      })))
      yield* Effect.yieldNow
      const waiter = yield* Effect.forkChild(Effect.exit(Effect.scoped(slots.take)))
      yield* Effect.yieldNow
      yield* Effect.yieldNow
      assert.deepStrictEqual(closed, ["first"])
      yield* Fiber.interrupt(holder)
      assert.isTrue(Exit.isSuccess(yield* Fiber.join(waiter)))
    }))
})
