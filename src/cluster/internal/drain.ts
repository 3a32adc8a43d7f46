/**
 * A runner that is stopping drains its agent sessions before the cluster hands their entities over: it starts
 * no new turn, lets the running ones finish and answer (up to a deadline), and only then lets the sharding shut
 * down. Effect's own entity termination runs once the sharding is shutting down, when the runner has already
 * released its shards for the others to take: the acknowledgements a streaming reply waits for no longer reach
 * it, so a turn that ends then cannot answer, and is re-delivered elsewhere. Draining first avoids that.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"

/**
 * How long a stopping runner waits for its running turns: set by the runner layers that have other runners to
 * hand over to (`Cluster.layerPostgres`, 60 s by default). Zero otherwise: a single runner's callers are in its
 * own process, which is ending, and its unfinished turns resume at its next start.
 */
export const Deadline = Context.Reference<Duration.Input>("effect-claude-code/cluster/DrainDeadline", {
  defaultValue: () => Duration.zero
})

/** The deadline of `Cluster.layerPostgres` unless its options say otherwise. */
export const defaultDeadline: Duration.Duration = Duration.seconds(60)

export interface Drain {
  /** Counts a turn about to start; false once the drain began (the turn must not start). */
  readonly admit: Effect.Effect<boolean>
  /** An admitted turn has ended and its caller is answered (or gone). */
  readonly leave: Effect.Effect<void>
  /** Ends once the drain began: never while the runner runs on. */
  readonly begun: Effect.Effect<void>
  /** Whether the drain began. */
  readonly draining: Effect.Effect<boolean>
  /** Starts no more turns and waits for the admitted ones, at most `deadline`; gives how many still run. */
  readonly run: (deadline: Duration.Input) => Effect.Effect<number>
}

export const make: Effect.Effect<Drain> = Effect.gen(function*() {
  let running = 0
  let draining = false
  const idle = yield* Latch.make(false)
  const started = yield* Latch.make(false)
  const settle = Effect.suspend(() => draining && running === 0 ? Effect.asVoid(idle.open) : Effect.void)
  return {
    admit: Effect.sync(() => {
      if (draining) return false
      running++
      return true
    }),
    leave: Effect.andThen(Effect.sync(() => running--), settle),
    begun: started.await,
    draining: Effect.sync(() => draining),
    run: (deadline) =>
      Effect.andThen(
        Effect.andThen(Effect.sync(() => (draining = true)), Effect.andThen(started.open, settle)),
        Effect.timeoutOption(idle.await, deadline)
      ).pipe(Effect.andThen(Effect.sync(() => running)))
  }
})

/** How long past its drain deadline a stopping runner may take to hand its entities over and close. */
export const margin: Duration.Duration = Duration.seconds(15)

export interface Watchdog {
  /** Starts the watch, when a runner begins to stop (once: later calls change nothing). */
  readonly arm: (deadline: Duration.Input) => Effect.Effect<void>
  /** What the stopping runner does now (said on stderr, and again if the watchdog has to end the process). */
  readonly stage: (what: string) => Effect.Effect<void>
}

/**
 * Ends the process of a runner whose stop outlasts its drain deadline and {@link margin}, after saying on
 * stderr what it still did: whatever it waits on (a connection, a process, a request that does not end), a
 * runner told to stop must stop, so that its entities are not held and whoever stops it need not SIGKILL it.
 * None (the default) outside `Cluster.layerPostgres`'s runners.
 */
export const Watch = Context.Reference<Watchdog | undefined>("effect-claude-code/cluster/DrainWatchdog", {
  defaultValue: () => undefined
})

/** The watchdog of a runner process: disarmed when its layer closes (built first, it closes last). */
export const layerWatchdog = Layer.effect(Watch, Effect.gen(function*() {
  let timer: ReturnType<typeof setTimeout> | undefined
  let now = "draining its turns"
  yield* Effect.addFinalizer(() => Effect.sync(() => clearTimeout(timer)))
  return {
    arm: (deadline) =>
      Effect.sync(() => {
        if (timer !== undefined) return
        const limit = Duration.sum(Duration.fromInputUnsafe(deadline), margin)
        timer = setTimeout(() => {
          process.stderr.write(
            `effect-claude-code: the runner still stops ${Duration.format(limit)} after it began (drain deadline ` +
              `${Duration.format(Duration.fromInputUnsafe(deadline))}), ${now}: ending its process\n`
          )
          process.exit(1)
        }, Duration.toMillis(limit))
        // The watch alone does not keep the process up.
        timer.unref()
      }),
    stage: (what) => Effect.sync(() => {
      now = what
      process.stderr.write(`effect-claude-code: the runner stops, ${what}\n`)
    })
  } satisfies Watchdog
}))
