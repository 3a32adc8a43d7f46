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
import * as Signal from "./signal.ts"

export interface Watchdog {
  /** Call when what `busy` reads may have changed. */
  readonly changed: () => void
  /** Marks the time a pull of this stream waits: the only time the deadline runs. */
  readonly reading: <A, E>(stream: Stream.Stream<A, E>) => Stream.Stream<A, E>
  /** Marks the time a callback runs: the CLI waits for it, so the deadline does not run. */
  readonly holding: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>
  /** Runs until the deadline passes, then runs `onIdle` with the timeout. */
  readonly run: Effect.Effect<void>
}

const disabled: Watchdog = {
  changed: () => {},
  reading: (stream) => stream,
  holding: (effect) => effect,
  run: Effect.void
}

export const make = (options: {
  readonly timeout: Duration.Input | undefined
  readonly busy: () => boolean
  readonly onIdle: (timeout: Duration.Duration) => Effect.Effect<void>
}): Watchdog => {
  if (options.timeout === undefined) return disabled
  const duration = Duration.fromInputUnsafe(options.timeout)
  let waiting = false
  let holds = 0
  const signal = Signal.make()
  const changed = signal.notify
  const track = (update: () => void) =>
    Effect.sync(() => {
      update()
      changed()
    })
  // Succeeds with `true` on a change, `false` when the deadline passed while armed.
  const step: Effect.Effect<boolean> = Effect.suspend(() => {
    const next = Effect.as(signal.wait, true)
    return waiting && holds === 0 && options.busy()
      ? next.pipe(Effect.timeoutOrElse({ duration, orElse: () => Effect.succeed(false) }))
      : next
  })
  const run: Effect.Effect<void> = Effect.flatMap(step, (change) => change ? run : options.onIdle(duration))
  return {
    changed,
    reading: (stream) =>
      Stream.transformPull(stream, (pull) =>
        Effect.succeed(
          track(() => (waiting = true)).pipe(Effect.andThen(pull), Effect.ensuring(track(() => (waiting = false))))
        )),
    holding: (effect) => Effect.acquireUseRelease(track(() => holds++), () => effect, () => track(() => holds--)),
    run
  }
}
