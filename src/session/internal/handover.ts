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
import * as Pull from "effect/Pull"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Immutable from "./immutable.ts"

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

interface State {
  /** How many read ahead now. */
  readonly ahead: number
  /** What the offers that wait wait for: done when their value is published, or when reading ahead begins. */
  readonly waiting: ReadonlySet<Deferred.Deferred<void>>
}

export const make = Effect.fnUntraced(function*<A, E>() {
  const queue = yield* Queue.unbounded<Entry<A>, E | Cause.Done>()
  const state = yield* Ref.make<State>({ ahead: 0, waiting: new Set() })
  const offer = (value: A) =>
    Effect.suspend(() => {
      const published = Deferred.makeUnsafe<void>()
      Queue.offerUnsafe(queue, { value, published })
      return Effect.flatMap(
        Ref.modify(state, (s) => s.ahead > 0 ? [false, s] : [true, { ...s, waiting: new Set(s.waiting).add(published) }]),
        (wait) =>
          wait
            ? Effect.ensuring(
              Deferred.await(published),
              Ref.update(state, (s) => ({ ...s, waiting: Immutable.without(s.waiting, published) }))
            )
            : Effect.void
      )
    })
  // Reading ahead begins: no offer waits any more, those that wait now included.
  const begin = Effect.flatMap(
    Ref.modify(state, (s) => [s.waiting, { ahead: s.ahead + 1, waiting: new Set<Deferred.Deferred<void>>() }]),
    (waiting) => Effect.forEach(waiting, (deferred) => Deferred.succeed(deferred, undefined), { discard: true })
  )
  const loop = (publish: (value: A) => Effect.Effect<void>): Effect.Effect<void, E | Cause.Done> =>
    Queue.take(queue).pipe(
      Effect.flatMap((entry) => Effect.andThen(publish(entry.value), Deferred.succeed(entry.published, undefined))),
      Effect.andThen(Effect.suspend(() => loop(publish)))
    )
  const handover: Handover<A, E> = {
    offer,
    end: (exit) => Effect.asVoid(Exit.isSuccess(exit) ? Queue.end(queue) : Queue.failCause(queue, exit.cause)),
    readingAhead: (effect) =>
      Effect.acquireUseRelease(begin, () => effect, () => Ref.update(state, (s) => ({ ...s, ahead: s.ahead - 1 }))),
    drain: (publish) => Pull.catchDone(loop(publish), () => Effect.void)
  }
  return handover
})
