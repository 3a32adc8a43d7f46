/**
 * The runner's stall watch (src/cluster/internal/stallWatch.ts) on the live clock: an event loop held up for
 * longer than its `stallAfter` (a second here) is a stall, counted as soon as it is over, before the watch's own late look runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
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
})
