/**
 * A turn's caller whose client died (SIGKILL, a lost machine) takes no more events: the reply stream writes an
 * event and waits for an acknowledgement that never comes, so its request stays open and keeps the entity, and
 * the entity's CLI, from idling out. The turn itself runs on in the entity and is logged. {@link release} lets
 * such a caller go: once the turn has ended, a caller that takes nothing for {@link replyGrace} has its reply
 * ended (interrupted, which the cluster stores as the request's exit: processed), and the entity idles out like
 * any other. A client that comes back asks by turn id and gets the logged turn.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * How long a caller may take nothing of a turn that has ended before it is let go: long enough for a live
 * client's acknowledgement on a loaded machine (it travels through the database), which a shorter grace would
 * cut, its stream ending interrupted.
 */
export const replyGrace: Duration.Duration = Duration.seconds(30)

/**
 * `events` read by the fiber that pulls them (the RPC server's, which also waits for the acknowledgements),
 * that fiber interrupted when it takes nothing for {@link replyGrace} after `ended`. The watch runs in `scope`.
 */
export const release = (ended: Deferred.Deferred<void>, scope: Scope.Scope) =>
<A, E, R>(events: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.unwrap(Effect.withFiber((caller) =>
    Effect.gen(function*() {
      let taken = 0
      const watch = Effect.gen(function*() {
        yield* Deferred.await(ended)
        while (true) {
          const before = taken
          yield* Effect.sleep(replyGrace)
          // Interrupted without waiting: the caller's end interrupts this watch.
          if (taken === before) return caller.interruptUnsafe()
        }
      })
      const watcher = yield* Effect.forkIn(watch, scope)
      return events.pipe(
        // Counted a chunk at a time: `Stream.tap` would split the chunks into single events, and each chunk
        // of a reply stream is a round of storage writes and an acknowledgement (issue 23), so events that
        // queued up while one was acknowledged would each take a round rather than go together.
        Stream.mapArray((chunk) => {
          taken += chunk.length
          return chunk
        }),
        Stream.ensuring(Fiber.interrupt(watcher))
      )
    })
  ))
