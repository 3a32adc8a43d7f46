/**
 * The session's CLI process: started with stdin fed from a bounded queue, frames written to it whole, and
 * how it ended (its exit status once seen, the error it was ended by force with) kept for the errors of
 * the calls that wait on it.
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as CliError from "../../ClaudeCliError.ts"
import * as CliErrorRedaction from "../../internal/cliErrorRedaction.ts"
import * as DerivedOptions from "../../internal/queryOptions.ts"
import * as TempDirs from "../../process/internal/tempDirs.ts"
import * as Drain from "../../process/internal/drain.ts"
import * as Spawn from "../../process/internal/spawn.ts"
import type * as QueryOptions from "../../QueryOptions.ts"
import * as DecodeError from "../../stream/DecodeError.ts"
import type * as Ndjson from "../../stream/Ndjson.ts"
import * as SessionError from "../SessionError.ts"
import * as ErrorRedaction from "./errorRedaction.ts"

export interface Options extends QueryOptions.QueryOptions {
  readonly executable?: string | undefined
  readonly executableArgs?: ReadonlyArray<string> | undefined
  readonly killGracePeriod?: Duration.Input | undefined
  readonly bufferSize?: number | undefined
}

/** Why the output failed, when the session ended the CLI itself. */
export type Forced = SessionError.SessionError | CliError.ClaudeCliError

export interface Child {
  readonly cli: Spawn.Running
  readonly executable: string
  /** Notes a line the CLI wrote: its number, the temporary directories it names. */
  readonly see: (line: Ndjson.Line | DecodeError.DecodeError) => Effect.Effect<void>
  /** `IdleTimeout`, naming the last line seen. */
  readonly idleError: (timeout: Duration.Duration) => Effect.Effect<CliError.ClaudeCliError>
  /** Writes one frame whole; fails with `SessionClosed` once the session is closed. */
  readonly write: (frame: Record<string, unknown>) => Effect.Effect<void, SessionError.SessionError>
  /**
   * Runs `effect` with every write held, then writes what was held as one chunk, in order (see
   * `Session.together`). A call inside another joins it.
   */
  readonly together: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SessionError.SessionError, R>
  /** No more input: the CLI reads the end of stdin. */
  readonly endInput: Effect.Effect<void>
  /** SIGTERM, then SIGKILL after the grace period. */
  readonly terminate: Effect.Effect<void>
  /** Ends the CLI by force; the output then fails with the first error given here. */
  readonly forceEnd: <E extends Forced>(error: E) => Effect.Effect<never, E>
  /** The error of the first `forceEnd`, if any. */
  readonly forced: Effect.Effect<Forced | undefined>
  /** Ends stdin, waits for the CLI to exit (up to the grace period), then terminates it. */
  readonly stop: Effect.Effect<void>
  /** Waits for the CLI to exit and keeps its status for `closedError`. */
  readonly awaitExit: Effect.Effect<void>
  /** Whether `stop` has begun: a failure of the output after it is this side's doing. */
  readonly closing: Effect.Effect<boolean>
  /** Done once the session is closed: a write still waiting for room in stdin then fails. */
  readonly closed: Deferred.Deferred<void>
  /** `SessionClosed` for an operation, with the stderr tail and the exit status when known. */
  readonly closedError: (operation: string) => Effect.Effect<SessionError.SessionError>
  /** Removes the CLI's secrets from an error the session gives. */
  readonly redact: <E extends Forced>(error: E) => E
}

const encoder = new TextEncoder()

const encode = (frame: Record<string, unknown>) =>
  Effect.try({
    try: () => encoder.encode(JSON.stringify(frame) + "\n"),
    catch: (error) =>
      SessionError.make(
        new SessionError.Unserializable({
          operation: `write a ${String(frame.type)} frame`,
          detail: error instanceof Error ? error.message : String(error)
        })
      )
  })

const concat = (chunks: ReadonlyArray<Uint8Array>) => {
  if (chunks.length === 1) return chunks[0]
  const all = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0))
  chunks.reduce((at, chunk) => (all.set(chunk, at), at + chunk.length), 0)
  return all
}

export const spawn = Effect.fnUntraced(function*(
  options: Options,
  args: ReadonlyArray<string>
): Effect.fn.Return<Child, CliError.ClaudeCliError, Scope.Scope | ChildProcessSpawner.ChildProcessSpawner> {
  const executable = options.executable ?? Spawn.defaultExecutable
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const killGracePeriod = Duration.fromInputUnsafe(options.killGracePeriod ?? Duration.seconds(3))
  const stdin = yield* Queue.bounded<Uint8Array, Cause.Done>(options.bufferSize ?? 64)
  // Added before the spawn, so run after the CLI and its descendants are gone (they could write it again).
  const temp = TempDirs.track(DerivedOptions.environment(options), options.envMode !== "replace")
  yield* Effect.addFinalizer(() => temp.remove)
  const cli = yield* Spawn.spawn(spawner, {
    executable,
    args: [...(options.executableArgs ?? []), ...args],
    cwd: options.cwd,
    env: DerivedOptions.environment(options),
    envMode: options.envMode,
    onStderr: options.stderr,
    stdin: { stream: Stream.fromQueue(stdin), endOnDone: true },
    killGracePeriod
  })
  const terminate = cli.handle.kill({ killSignal: "SIGTERM", forceKillAfter: killGracePeriod }).pipe(Effect.ignore)
  const exitStatus = yield* Ref.make<Spawn.ExitStatus | undefined>(undefined)
  const forced = yield* Ref.make<Forced | undefined>(undefined)
  const closing = yield* Ref.make(false)
  const closed = yield* Deferred.make<void>()
  const lastLine = yield* Ref.make(0)

  const closedError = (operation: string) =>
    Effect.map(Ref.get(exitStatus), (status) =>
      SessionError.make(
        new SessionError.SessionClosed({
          operation,
          stderrTail: cli.stderrTail(),
          ...(status === undefined
            ? {}
            : { exitCode: status.exitCode, ...(status.signal === null ? {} : { signal: status.signal }) })
        })
      ))

  const offer = (bytes: Uint8Array, what: string) =>
    Effect.raceFirst(Queue.offer(stdin, bytes), Effect.as(Deferred.await(closed), false)).pipe(
      Effect.flatMap((ok) => ok ? Effect.void : Effect.flatMap(closedError(`write ${what}`), Effect.fail))
    )
  // The frames `together` holds, in order; `undefined` when it is not running.
  const held = yield* Ref.make<ReadonlyArray<Uint8Array> | undefined>(undefined)
  const write = (frame: Record<string, unknown>) =>
    encode(frame).pipe(
      Effect.flatMap((bytes) =>
        Ref.modify(held, (frames): readonly [boolean, ReadonlyArray<Uint8Array> | undefined] =>
          frames === undefined ? [false, frames] : [true, [...frames, bytes]]
        ).pipe(Effect.flatMap((kept) => kept ? Effect.void : offer(bytes, `a ${String(frame.type)} frame`)))
      )
    )
  const together = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        Ref.modify(held, (frames): readonly [boolean, ReadonlyArray<Uint8Array>] => [frames === undefined, frames ?? []]),
        (outermost) =>
          !outermost ? restore(effect) : Effect.gen(function*() {
            const exit = yield* Effect.exit(restore(effect))
            // Written whatever the effect's end, an interruption included: other fibers' frames (answers to the
            // CLI) may be among them. Only a wait for room in stdin can be interrupted.
            const frames = (yield* Ref.getAndSet(held, undefined)) ?? []
            if (frames.length > 0) {
              const bytes = concat(frames)
              const queued = yield* Effect.sync(() => Queue.offerUnsafe(stdin, bytes))
              if (!queued) yield* restore(offer(bytes, `${frames.length} frames`))
            }
            return yield* exit
          })
      )
    )

  const exited = (wait: Effect.Effect<Spawn.ExitStatus>) => Effect.flatMap(wait, (status) => Ref.set(exitStatus, status))
  const endInput = Effect.asVoid(Queue.end(stdin))

  return {
    cli,
    executable,
    see: (line) =>
      Effect.andThen(
        Ref.set(lastLine, line.line),
        Effect.sync(() => {
          if (!DecodeError.isDecodeError(line)) temp.see(line)
        })
      ),
    idleError: (timeout) => Effect.map(Ref.get(lastLine), (line) => Drain.idleTimeoutError(timeout, line, cli.stderrTail())),
    write,
    together,
    endInput,
    terminate,
    forceEnd: (error) => Effect.andThen(Ref.update(forced, (first) => first ?? error), Effect.andThen(terminate, Effect.fail(error))),
    forced: Ref.get(forced),
    stop: Effect.andThen(
      Effect.andThen(Ref.set(closing, true), endInput),
      exited(cli.exitStatus.pipe(
        Effect.timeoutOrElse({ duration: killGracePeriod, orElse: () => Effect.andThen(terminate, cli.exitStatus) })
      ))
    ),
    awaitExit: exited(cli.exitStatus),
    closing: Ref.get(closing),
    closed,
    closedError,
    // The CLI's text may quote the secrets of its environment and options.
    redact: (error) =>
      (CliError.isClaudeCliError(error) ? CliErrorRedaction.redact(error, cli.redact) : ErrorRedaction.redact(error, cli.redact)) as typeof error
  }
})
