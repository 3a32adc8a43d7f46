/**
 * The session's output for many readers: a bounded PubSub with backpressure, one message per pull, and a
 * final Exit that every reader (even one that subscribes later) ends with.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Take from "effect/Take"

export interface Hub<A, E> {
  /** Waits while any subscriber's buffer is full; drops the value when nobody is subscribed. */
  readonly publish: (value: A) => Effect.Effect<void>
  /** Ends every stream, now and later, after what each subscriber has buffered. */
  readonly end: (exit: Exit.Exit<void, E>) => Effect.Effect<void>
  /** Subscribes now: the stream gives everything published from here on, then the end. */
  readonly subscribe: Effect.Effect<Stream.Stream<A, E>, never, Scope.Scope>
}

export const make = <A, E>(capacity: number): Effect.Effect<Hub<A, E>> =>
  Effect.map(PubSub.bounded<Take.Take<A, E>>(capacity), (pubsub) => ({
    publish: (value) => Effect.asVoid(PubSub.publish(pubsub, [value])),
    end: (exit) => Effect.asVoid(PubSub.end(pubsub, exit)),
    subscribe: Effect.map(
      PubSub.subscribe(pubsub),
      (subscription) => Stream.fromPull(Effect.succeed(Effect.flatMap(PubSub.take(subscription), Take.toPull)))
    )
  }))
