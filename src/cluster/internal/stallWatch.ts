/**
 * A runner stopped (SIGSTOP, a frozen VM) or starved of CPU for a while may have lost its shards, and its
 * entities' leases, to another runner without knowing yet: the sharding finds out at its next lock refresh,
 * the lease watch at its next look, but what a CLI wrote meanwhile is read at once when the process runs
 * again. Passed on, those messages become reply chunks of a request another runner now serves, numbered as
 * that runner numbers its own, and the request's reply loses them (a chaos run's client got a turn's stream
 * ending without its answer: the stopped runner's last events, then the other runner's end, issue 23). The
 * watch counts such stalls, so that a turn asks the store whether its lease is still its own before it passes
 * anything more on after one.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** How often the watch looks at the clock. */
export const tick: Duration.Duration = Duration.millis(250)

/** A look that comes this much later than the one before is a stall (four ticks missed). */
export const stallAfter: Duration.Duration = Duration.seconds(1)

export interface StallWatch {
  /** The stalls seen so far, one still under way (its late look not yet taken) counted. */
  readonly count: Effect.Effect<number>
}

/** A watch for the scope's lifetime. */
export const make: Effect.Effect<StallWatch, never, Scope.Scope> = Effect.gen(function*() {
  const limit = Duration.toMillis(stallAfter)
  let last = yield* Clock.currentTimeMillis
  let stalls = 0
  yield* Effect.sleep(tick).pipe(
    Effect.andThen(Clock.currentTimeMillis),
    Effect.map((now) => {
      if (now - last > limit) stalls++
      last = now
    }),
    Effect.forever,
    Effect.forkScoped
  )
  return {
    count: Effect.map(Clock.currentTimeMillis, (now) => now - last > limit ? stalls + 1 : stalls)
  }
})
