/**
 * Between the session's reader of the CLI and the readers of its output. The reader hands each message over
 * and reads the next line once it is published, so that a slow reader paces the CLI through its pipe;
 * except while the session waits for the CLI (an interrupt, a control request's answer): then the reader
 * reads ahead and messages wait here, so that what the session waits for is seen as soon as the CLI writes
 * it, and a reader that calls the session from inside its own stream cannot hold its own answer back.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Pull from "effect/Pull"
import * as Queue from "effect/Queue"
import * as Signal from "./signal.ts"

export interface Handover<A, E> {
  /** Hands a value over; waits until it is published, unless reading ahead. */
  readonly offer: (value: A) => Effect.Effect<void>
  /** No more values: `drain` ends with this exit after the values before it. */
  readonly end: (exit: Exit.Exit<void, E>) => Effect.Effect<void>
  /** Runs an effect during which `offer` never waits. */
  readonly readingAhead: <X, E2, R>(effect: Effect.Effect<X, E2, R>) => Effect.Effect<X, E2, R>
  /** Publishes every value in order, then ends as `end` was told to. */
  readonly drain: (publish: (value: A) => Effect.Effect<void>) => Effect.Effect<void, E>
}

export const make = <A, E>(): Effect.Effect<Handover<A, E>> =>
  Effect.map(Queue.unbounded<A, E | Cause.Done>(), (queue) => {
    let offered = 0
    let published = 0
    let ahead = 0
    const signal = Signal.make()
    const track = (delta: number) =>
      Effect.sync(() => {
        ahead += delta
        signal.notify()
      })
    const loop = (publish: (value: A) => Effect.Effect<void>): Effect.Effect<void, E | Cause.Done> =>
      Queue.take(queue).pipe(
        Effect.flatMap(publish),
        Effect.andThen(Effect.sync(() => {
          published++
          signal.notify()
        })),
        Effect.andThen(Effect.suspend(() => loop(publish)))
      )
    return {
      offer: (value) =>
        Effect.suspend(() => {
          const n = ++offered
          Queue.offerUnsafe(queue, value)
          return signal.until(() => published >= n || ahead > 0)
        }),
      end: (exit) => Effect.asVoid(Exit.isSuccess(exit) ? Queue.end(queue) : Queue.failCause(queue, exit.cause)),
      readingAhead: (effect) => Effect.acquireUseRelease(track(1), () => effect, () => track(-1)),
      drain: (publish) => Pull.catchDone(loop(publish), () => Effect.void)
    }
  })
