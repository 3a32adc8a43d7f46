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
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Latch from "effect/Latch"
import * as Pull from "effect/Pull"
import * as Queue from "effect/Queue"
import * as SynchronizedRef from "effect/SynchronizedRef"

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

// A value and what its offer waits for.
interface Entry<A> {
  readonly value: A
  readonly published: Deferred.Deferred<void>
}

export const make = Effect.fnUntraced(function*<A, E>() {
  const queue = yield* Queue.unbounded<Entry<A>, E | Cause.Done>()
  // Open while anyone reads ahead. The count and the latch change together, so that the last one to stop
  // closes it and no other can reopen it in between.
  const ahead = yield* Latch.make(false)
  const readers = yield* SynchronizedRef.make(0)
  const track = (delta: number) =>
    SynchronizedRef.updateEffect(readers, (n) => Effect.as(n + delta > 0 ? ahead.open : ahead.close, n + delta))
  const offer = (value: A) =>
    Effect.suspend(() => {
      const published = Deferred.makeUnsafe<void>()
      Queue.offerUnsafe(queue, { value, published })
      return ahead.isOpen() ? Effect.void : Effect.raceFirst(Deferred.await(published), ahead.await)
    })
  const loop = (publish: (value: A) => Effect.Effect<void>): Effect.Effect<void, E | Cause.Done> =>
    Queue.take(queue).pipe(
      Effect.flatMap((entry) => Effect.andThen(publish(entry.value), Deferred.succeed(entry.published, undefined))),
      Effect.andThen(Effect.suspend(() => loop(publish)))
    )
  const handover: Handover<A, E> = {
    offer,
    end: (exit) => Effect.asVoid(Exit.isSuccess(exit) ? Queue.end(queue) : Queue.failCause(queue, exit.cause)),
    readingAhead: (effect) => Effect.acquireUseRelease(track(1), () => effect, () => track(-1)),
    drain: (publish) => Pull.catchDone(loop(publish), () => Effect.void)
  }
  return handover
})
