/**
 * A notice that something changed, for fibers that wait on state kept in plain variables: they check the
 * state, and wait for the next notice when it is not what they need.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

export interface Signal {
  /** Wakes every waiter. */
  readonly notify: () => void
  /** Completes at the next notice. */
  readonly wait: Effect.Effect<void>
  /** Completes once `ready` holds, checked now and at each notice. */
  readonly until: (ready: () => boolean) => Effect.Effect<void>
}

export const make = (): Signal => {
  let current = Deferred.makeUnsafe<void>()
  const wait = Effect.suspend(() => Deferred.await(current))
  const until = (ready: () => boolean): Effect.Effect<void> =>
    Effect.suspend(() => ready() ? Effect.void : Effect.andThen(wait, until(ready)))
  return {
    notify: () => {
      const previous = current
      current = Deferred.makeUnsafe<void>()
      Deferred.doneUnsafe(previous, Exit.void)
    },
    wait,
    until
  }
}
