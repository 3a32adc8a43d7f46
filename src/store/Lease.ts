/**
 * Fencing: one writer of a conversation at a time, enforced by the store, not by timing. Whoever runs a
 * conversation's CLI takes its lease from the store ({@link SessionStore.Leases}) before reading the
 * conversation's chain, and every append the CLI's mirror makes carries the lease's fencing token; the store
 * refuses a token that is no longer the lease's (`Fenced`). So a holder that was paused (a long GC pause, a
 * frozen VM) while another took the conversation over writes nothing when it wakes: its first refused append,
 * or its next look at the lease, tells it that it lost the lease, and it ends its CLI and their tools.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type * as SessionStore from "./SessionStore.ts"

// How often a holder looks whether its lease is still its own (besides each append's answer): a paused
// holder that writes nothing after it wakes still ends its CLI within this.
const checkInterval: Duration.Duration = Duration.seconds(1)

// `store` whose appends carry `fence`; `onFenced` runs when one is refused (`Fenced`), before the error goes on.
const fenced = (store: SessionStore.Shape, fence: SessionStore.Fence, onFenced: Effect.Effect<void>): SessionStore.Shape => ({
  ...store,
  append: (key, entries) =>
    Effect.tapError(store.append(key, entries, fence), (error) => error.reason._tag === "Fenced" ? onFenced : Effect.void)
})

/**
 * What {@link hold} gives: the `sessionStore` option to run the CLI with, and the lease's fence, for the
 * holder's other writes (the cluster's turn log); no fence when there is nothing to fence.
 *
 * @since 0.1.0
 * @category models
 */
export interface Held {
  readonly sessionStore: SessionStore.Shape | SessionStore.StoreOptions | undefined
  readonly fence: SessionStore.Fence | undefined
  /**
   * Whether the lease is still the holder's, asked of the store now (a store that cannot be asked is no
   * answer: the lease is the holder's until the store says otherwise). `true` when there is nothing to fence.
   */
  readonly holds: Effect.Effect<boolean>
  /** The lease's token now, asked as `holds` asks (the fence's own when there is no answer, or no fence). */
  readonly current: Effect.Effect<number>
}

// Nothing to fence: the option as it is, a lease always held (token 0).
const unfenced = (option: SessionStore.Shape | SessionStore.StoreOptions | undefined): Held => ({
  sessionStore: option,
  fence: undefined,
  holds: Effect.succeed(true),
  current: Effect.succeed(0)
})

/**
 * Takes the lease `lease` of the `sessionStore` option's store, for the scope: the option with the store
 * fenced (its appends carry the lease's token) and resuming from the stored chain (`onConflict: "store"`),
 * the fence itself, and a watch that runs `onLost` once the lease is another's (an append refused, or the
 * lease's token changed). `onLost` runs in a fiber of the scope: to close that scope, fork it elsewhere. A
 * store without leases (or no store) is given back as it is, without a fence: there is nothing to fence.
 *
 * @since 0.1.0
 * @category constructors
 */
export const hold = (
  option: SessionStore.Shape | SessionStore.StoreOptions | undefined,
  lease: string,
  onLost: Effect.Effect<void>
): Effect.Effect<Held, SessionStore.SessionStoreError, Scope.Scope> => {
  if (option === undefined) return Effect.succeed(unfenced(option))
  const given: SessionStore.StoreOptions = "store" in option ? option : { store: option }
  const leases = given.store.leases
  if (leases === undefined) return Effect.succeed(unfenced(option))
  return Effect.gen(function*() {
    const fence = yield* leases.acquire(lease)
    const refused = yield* Deferred.make<void>()
    // A store that cannot be asked is not an answer: the lease is the holder's until the store says otherwise.
    const token = Effect.orElseSucceed(leases.current(lease), () => fence.token)
    const taken = Effect.repeat(token, {
      until: (token) => token !== fence.token,
      schedule: Schedule.spaced(checkInterval)
    })
    yield* Effect.raceFirst(Deferred.await(refused), Effect.asVoid(taken)).pipe(Effect.andThen(onLost), Effect.forkScoped)
    const store = fenced(given.store, fence, Deferred.succeed(refused, undefined).pipe(Effect.asVoid))
    // What a fenced-out holder left in this machine's transcript is no part of the conversation.
    return {
      sessionStore: { ...given, store, onConflict: "store" } satisfies SessionStore.StoreOptions,
      fence,
      holds: Effect.map(token, (now) => now === fence.token),
      current: token
    }
  })
}
