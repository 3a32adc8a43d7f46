/**
 * The session's idle deadline: armed while the reader waits for output the CLI owes (`busy`) and no callback
 * holds the CLI, restarted by every change of those, and never counting time the reader spends elsewhere
 * (a slow consumer, a full buffer).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"

export interface Watchdog {
  /** Run when what `busy` reads may have changed. */
  readonly changed: Effect.Effect<void>
  /** Marks the time a pull of this stream waits: the only time the deadline runs. */
  readonly reading: <A, E>(stream: Stream.Stream<A, E>) => Stream.Stream<A, E>
  /** Marks the time a callback runs: the CLI waits for it, so the deadline does not run. */
  readonly holding: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
  /** Runs until the deadline passes, then runs `onIdle` with the timeout. */
  readonly run: Effect.Effect<void>
}

const disabled: Watchdog = {
  changed: Effect.void,
  reading: (stream) => stream,
  holding: (effect) => effect,
  run: Effect.void
}

interface State {
  /** The reader waits for a line. */
  readonly waiting: boolean
  /** Callbacks running. */
  readonly holds: number
}

export const make = (options: {
  readonly timeout: Duration.Input | undefined
  readonly busy: Effect.Effect<boolean>
  readonly onIdle: (timeout: Duration.Duration) => Effect.Effect<void>
}): Effect.Effect<Watchdog> => {
  if (options.timeout === undefined) return Effect.succeed(disabled)
  const duration = Duration.fromInputUnsafe(options.timeout)
  return Effect.map(SubscriptionRef.make<State>({ waiting: false, holds: 0 }), (state) => {
    // Every update is a change, even one that leaves the state as it was: `busy` is read again.
    const track = (update: (state: State) => State) => SubscriptionRef.update(state, update)
    const armed = (state: State) => state.waiting && state.holds === 0 ? options.busy : Effect.succeed(false)
    return {
      changed: track((state) => ({ ...state })),
      reading: (stream) =>
        Stream.transformPull(stream, (pull) =>
          Effect.succeed(
            track((s) => ({ ...s, waiting: true })).pipe(
              Effect.andThen(pull),
              Effect.ensuring(track((s) => ({ ...s, waiting: false })))
            )
          )),
      holding: (effect) =>
        Effect.acquireUseRelease(
          track((s) => ({ ...s, holds: s.holds + 1 })),
          () => effect,
          () => track((s) => ({ ...s, holds: s.holds - 1 }))
        ),
      // Whether the deadline runs is read at each change; idle is a state that stayed armed that long.
      run: SubscriptionRef.changes(state).pipe(
        Stream.mapEffect(armed),
        Stream.debounce(duration),
        Stream.filter((idle) => idle),
        Stream.runHead,
        Effect.andThen(options.onIdle(duration))
      )
    }
  })
}
