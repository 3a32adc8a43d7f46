/**
 * The runner's stall watch (src/cluster/internal/stallWatch.ts) on the live clock: an event loop held up for
 * longer than its `stallAfter` (a second here) is a stall, counted as soon as it is over, before the watch's own late look runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Scope } from "effect"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as StallWatch from "../../src/cluster/internal/stallWatch.ts"

// Holds the event loop (and so every fiber) for `millis`, as a stopped or starved process is held.
const holdLoop = (millis: number) =>
  Effect.sync(() => {
    const until = Date.now() + millis
    while (Date.now() < until) {
      // nothing runs meanwhile
    }
  })

describe("StallWatch", () => {
  // Only what load cannot change: a loaded machine may add stalls of its own, never take one away.
  it.live("a held event loop is a stall, counted before the watch's own late look", () =>
    Effect.gen(function*() {
      const watch = yield* StallWatch.make(Duration.seconds(1), Duration.seconds(2))
      yield* Effect.sleep("300 millis")
      const before = yield* watch.count
      yield* holdLoop(1500)
      assert.isAtLeast(yield* watch.count, before + 1)
    }).pipe(Effect.scoped))

  it.live("a runner's entities share one watch, made with the first one's sharding config", () =>
    Effect.gen(function*() {
      const watch = yield* StallWatch.shared(yield* Effect.scope)
      const config = ShardingConfig.layer({ shardLockRefreshInterval: "2 seconds", shardLockExpiration: "30 seconds" })
      const first = yield* Effect.provide(watch, config)
      // Asked again, with other config or none: the same watch.
      const again = yield* watch
      assert.strictEqual(again, first)
      // The refresh interval of the first one's config, and a second.
      assert.strictEqual(Duration.toMillis(first.settle), 3_000)
    }).pipe(Effect.scoped))

  it.live("the shared watch ticks until the finalizers added after it have run", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const watch = yield* StallWatch.shared(scope)
      // A finalizer added after the watch, as the drain's is: it runs first, the watch still ticking.
      let during = -1
      yield* Scope.addFinalizer(scope, Effect.gen(function*() {
        const before = yield* (yield* watch).count
        yield* Effect.sleep("6 seconds")
        during = (yield* (yield* watch).count) - before
      }))
      // The first entity starts the watch after that finalizer was added.
      yield* Effect.provide(watch, ShardingConfig.layer({ shardLockRefreshInterval: "5 seconds", shardLockExpiration: "60 seconds" }))
      yield* Scope.close(scope, Exit.void)
      // A stopped watch would count a stall once its last look is older than the 5 seconds; a ticking one only
      // for an event loop held that long.
      assert.strictEqual(during, 0)
    }))
})
