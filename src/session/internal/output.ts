/**
 * The session's output: one fiber reads the CLI's lines and routes them (control frames to the protocol,
 * messages to the turn tracking, then to the readers or the session store); another publishes them to the
 * readers. When the CLI's output ends the session shuts, and the readers end with why.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ProcessLines from "../../process/internal/lines.ts"
import * as SessionMirror from "../../store/SessionMirror.ts"
import type * as SessionStore from "../../store/SessionStore.ts"
import type * as Protocol from "../Protocol.ts"
import type * as Child from "./child.ts"
import * as Handover from "./handover.ts"
import * as Hub from "./hub.ts"
import type * as Idle from "./idle.ts"
import type { Message } from "./message.ts"
import * as Route from "./route.ts"
import type * as Turns from "./turns.ts"

/** Why the output failed: the session's errors and the CLI's. */
export type Failure = Child.Forced

export interface Output {
  /** Subscribes now to every item from here on, then the output's end. */
  readonly subscribe: Effect.Effect<Stream.Stream<Route.Item, Failure>, never, Scope.Scope>
  /** Runs an effect while the output is read ahead of slow readers. */
  readonly readingAhead: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Waits until the transcript frames read so far are in the session store (or reported); at once without one. */
  readonly stored: Effect.Effect<void, SessionStore.SessionStoreError>
}

export const start = Effect.fnUntraced(function*(options: {
  readonly child: Child.Child
  readonly protocol: Protocol.Protocol
  readonly turns: Turns.Turns
  readonly idle: Idle.Watchdog
  readonly bufferSize: number
  readonly maxLineBytes: number | undefined
  /** Whether readers see the replays of the session's own messages. */
  readonly showReplays: boolean
  /** The `sessionStore` option's target, restored. */
  readonly mirror: SessionMirror.Target | undefined
  readonly observe: (message: Message) => Effect.Effect<void>
  /** Fails what waits on the CLI, once. */
  readonly shut: Effect.Effect<void>
  /** Ends the CLI as `close` does. */
  readonly close: Effect.Effect<void>
}): Effect.fn.Return<Output, never, Scope.Scope> {
  const { child, shut } = options
  const output = yield* Hub.make<Route.Item, Failure>(options.bufferSize)
  const handover = yield* Handover.make<Route.Item, Failure>()

  // The `sessionStore` option: frames go to the store, not to readers; a failed append is a message of the
  // turn that was last seen, queued without waiting for a reader (that turn may have no reader left).
  const lastTurn = yield* Ref.make(0)
  const mirroring = options.mirror === undefined ? undefined : yield* SessionMirror.start(options.mirror, (error) =>
    Effect.flatMap(Ref.get(lastTurn), (turn) =>
      handover.readingAhead(handover.offer({
        turn,
        replayOf: undefined,
        takes: undefined,
        acknowledgement: false,
        ends: false,
        message: error,
        visible: true
      }))))

  const route = Route.make({
    protocol: options.protocol,
    turns: options.turns,
    showReplays: options.showReplays,
    redact: child.cli.redact,
    onMessage: options.observe,
    publish: (item) => {
      const frame = mirroring === undefined ? undefined : SessionMirror.frameOf(item.message)
      return Effect.andThen(Ref.set(lastTurn, item.turn), frame === undefined ? handover.offer(item) : mirroring!.offer(frame))
    }
  })

  const read = ProcessLines.output(child.cli, { executable: child.executable, maxLineBytes: options.maxLineBytes }).pipe(
    options.idle.reading,
    Stream.runForEach((line) => Effect.andThen(child.see(line), route(line))),
    Effect.exit
  )
  // Why the output ended, as readers see it.
  const ending = (read: Exit.Exit<void, Failure>) =>
    Effect.gen(function*() {
      const forced = yield* child.forced
      if (forced !== undefined) return Exit.fail(forced)
      // A CLI that `close` ended (or that failed once closing began) was closed by this side, not failing.
      if (Exit.isFailure(read) && (yield* child.closing)) {
        return Exit.fail(yield* child.closedError("read more output"))
      }
      return read
    })
  yield* Effect.forkScoped(Effect.gen(function*() {
    const exit = yield* read
    // Output that cannot be read (a bad line) leaves nothing to drive the CLI with.
    if (Exit.isFailure(exit) && (yield* child.forced) === undefined) yield* child.terminate
    yield* child.awaitExit
    if (mirroring !== undefined) yield* mirroring.end
    yield* shut
    // The output ends once the last frames are stored or reported: their mirror_errors are messages too.
    if (mirroring !== undefined) yield* mirroring.done
    yield* handover.end(Exit.mapError(yield* ending(exit), child.redact))
  }))
  yield* Effect.forkScoped(Effect.flatMap(Effect.exit(handover.drain(output.publish)), output.end))
  // Runs first when the scope closes (of the session's finalizers, only the store's runs before it): readers
  // end with what they have buffered, then SessionClosed, and every call fails with it.
  yield* Effect.addFinalizer(() =>
    Effect.andThen(shut, Effect.flatMap(child.closedError("read more output"), (error) => output.end(Exit.fail(error))))
  )
  // Runs before the session's other finalizers: the CLI ends, its last frames are stored or reported.
  if (mirroring !== undefined) yield* Effect.addFinalizer(() => Effect.andThen(options.close, mirroring.finish))

  return { subscribe: output.subscribe, readingAhead: handover.readingAhead, stored: mirroring?.stored ?? Effect.void }
})
