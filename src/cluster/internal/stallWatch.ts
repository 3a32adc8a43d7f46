/**
 * A runner stopped (SIGSTOP, a frozen VM) or starved of CPU for a while may have lost its shards, and its
 * entities' leases, to another runner without knowing yet: the sharding finds out at its next lock refresh,
 * but what a CLI wrote meanwhile is read at once when the process runs again. Passed on, those messages become
 * reply chunks of a request another runner now serves, numbered as that runner numbers its own, and the
 * request's reply loses that runner's (a chaos run's client got a turn's stream ending without its answer: the
 * stopped runner's last events, then the other runner's end, issue 23). The watch counts stalls longer than
 * the sharding's lock refresh interval (a refresh was missed: the shards may be gone), so that a turn, after
 * one, waits for the refresh that follows (which closes the entities of lost shards, cutting their turns) and
 * asks the store whether its lease is still its own, before it passes anything more on.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"

/** How often the watch looks at the clock. */
export const tick: Duration.Duration = Duration.millis(250)

export interface StallWatch {
  /** The stalls seen so far, one still under way (its late look not yet taken) counted. */
  readonly count: Effect.Effect<number>
  /** How long a turn waits after a stall for the sharding's next lock refresh: its interval and a second. */
  readonly settle: Duration.Duration
}

// The interval at which the sharding refreshes its shard locks, as Effect's Sharding sets it (its refresh
// interval, or a third of the locks' expiration when that is shorter).
const refreshInterval = (config: ShardingConfig.ShardingConfig["Service"]): Duration.Duration =>
  Duration.min(
    Duration.fromInputUnsafe(config.shardLockRefreshInterval),
    Duration.divideUnsafe(Duration.fromInputUnsafe(config.shardLockExpiration), 3)
  )

/** A watch for the scope's lifetime: a stall is a look that came more than `stallAfter` after the one before. */
export const make = (stallAfter: Duration.Duration, settle: Duration.Duration): Effect.Effect<StallWatch, never, Scope.Scope> =>
  Effect.gen(function*() {
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
      count: Effect.map(Clock.currentTimeMillis, (now) => now - last > limit ? stalls + 1 : stalls),
      settle
    }
  })

/**
 * A watch of stalls longer than the sharding's lock refresh interval (Effect's defaults without a
 * `ShardingConfig` in the context it runs in), for the scope.
 */
export const forSharding: Effect.Effect<StallWatch, never, Scope.Scope> = Effect.gen(function*() {
  const config = Option.getOrElse(yield* Effect.serviceOption(ShardingConfig.ShardingConfig), () => ShardingConfig.defaults)
  const interval = refreshInterval(config)
  return yield* make(interval, Duration.sum(interval, Duration.seconds(1)))
})

/**
 * One watch for a runner's entities, ticking for `scope` (the layer's): made by the first entity that asks,
 * with the sharding's config of its context (the entities have it, their layer does not), and the same watch
 * for every entity after it. A watch an entity (4 looks at the clock a second each) added up on a runner of
 * many entities; the process stalls for all of them at once.
 *
 * The watch ticks in a scope of its own, made now and closed with `scope`: a scope's finalizers run last added
 * first, so the watch goes after whatever `scope` is given later (the drain, whose turns still look at it),
 * not before, as a watch forked into `scope` at the first entity's start would.
 */
export const shared = (scope: Scope.Scope): Effect.Effect<Effect.Effect<StallWatch>> =>
  Effect.flatMap(Scope.fork(scope), (own) => Effect.cached(Scope.provide(forSharding, own)))
