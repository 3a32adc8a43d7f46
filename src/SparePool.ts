/**
 * Warm starts: CLI processes started ahead of the sessions they will serve, parked with `--await-claim` (the
 * protocol of the Agent SDK's `prewarm()`), and claimed by a new session (`claim_session`: its folder,
 * permission mode and model) so that its first message does not wait for the CLI's start-up. A session begun
 * with its first prompt (`begin`, `query`) sends the prompt with the claim, as the SDK's `claim()` does, in
 * the same write (`Session.together`): the CLI has it before it answers the claim and takes it up as soon as
 * it is claimed, without a round trip in between.
 *
 * A pool holds spares of one set of host-level options (executable, environment, tools, hooks, callbacks,
 * MCP servers: everything fixed at start-up); keep one pool per set. Once a claimed spare is under way (its
 * claim answered; with a prompt, its first assistant message), another starts in the background; a session
 * asked for while a spare is still starting waits for that spare (it started first, so it is usually ready
 * before a cold start would be). A claim the CLI refuses (a missing folder, a folder
 * whose settings a spare cannot take, a permission mode it cannot take), or a spare that died, falls back to
 * a cold start, so `session` always gives a session: then later than a cold start alone, by the wait.
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { SparePool } from "effect-claude-code"
 *
 * const program = Effect.gen(function*() {
 *   const pool = yield* SparePool.make({ size: 2, host: { allowedTools: ["Read"] } })
 *   const { session, warm } = yield* pool.session({ cwd: "/srv/repo", model: "sonnet" })
 *   yield* Stream.runCollect(session.turn("Summarize the README"))
 * })
 * ```
 */
import type * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "./ClaudeCli.ts"
import type * as CliError from "./ClaudeCliError.ts"
import * as CliSlots from "./governance/CliSlots.ts"
import type * as QueryOptions from "./QueryOptions.ts"
import type * as Message from "./schema/Message.ts"
import type * as Session from "./session/Session.ts"
import type * as SessionError from "./session/SessionError.ts"
import type * as UserContent from "./session/UserContent.ts"

/**
 * What a claim sets: the per-session half of the options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Claim {
  /** The session's working directory. */
  readonly cwd: string
  readonly model?: string | undefined
  readonly permissionMode?: QueryOptions.PermissionMode | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<R = never> {
  /** Spares kept parked. Default 1. */
  readonly size?: number | undefined
  /**
   * The host-level session options every spare (and every cold start) starts with, callbacks included; their
   * `cwd` is the pool's parking folder until a claim sets it.
   */
  readonly host?: Host<R> | undefined
}

/**
 * The session options fixed when a CLI starts: all but the claim's and a conversation's own.
 *
 * @since 0.1.0
 * @category models
 */
export type Host<R = never> = Omit<Session.Options<R>, "cwd" | "model" | "permissionMode" | "resume" | "sessionId" | "continue">

/**
 * @since 0.1.0
 * @category models
 */
export interface Pool {
  /**
   * A session for `claim`, in the caller's Scope: a parked spare when one claims it (`warm: true`), otherwise
   * a cold start with the host options and the claim's.
   */
  readonly session: (claim: Claim) => Effect.Effect<
    { readonly session: Session.Session; readonly warm: boolean },
    CliError.ClaudeCliError | SessionError.SessionError,
    Scope.Scope
  >
  /**
   * A session for `claim` with its first turn under way: a spare gets the prompt with the claim (no round
   * trip between them), a cold start right after its start-up. `turn` gives the turn's messages up to its
   * result, once; the turn runs to its end whether it is read or not.
   */
  readonly begin: (claim: Claim, prompt: UserContent.UserContent) => Effect.Effect<
    {
      readonly session: Session.Session
      readonly warm: boolean
      readonly turn: Stream.Stream<Session.Message, Session.StreamError>
    },
    CliError.ClaudeCliError | SessionError.SessionError,
    Scope.Scope
  >
  /**
   * A one-turn query on a session from the pool (begun as `begin` does): the messages of the prompt's turn
   * up to its result; the session ends with the stream.
   */
  readonly query: (prompt: string, claim: Claim) => Stream.Stream<
    Message.Message,
    CliError.ClaudeCliError | SessionError.SessionError
  >
  /** Claims spares answered since the pool started (warm starts). */
  readonly claimed: Effect.Effect<number>
  /** Claims refused since the pool started (each answered by a cold start). */
  readonly refused: Effect.Effect<number>
  /** Spares parked now. */
  readonly parked: Effect.Effect<number>
}

/**
 * @since 0.1.0
 * @category services
 */
export class SparePool extends Context.Service<SparePool, Pool>()("effect-claude-code/SparePool") {}

type SpareState = "parked" | "claimed" | "evicted"

// What a replacement lets go first: turns of the scheduler, each behind whatever else was due in it. Its spawn
// blocks the process for a while (from a few to a few hundred milliseconds on a loaded 2-core machine), and the
// claimed spare's first message may still be on its way to its reader, from fiber to fiber: through an entity,
// its turn, then the cluster's reply stream, where it reached the client 20 to 90 ms later (medians of two runs
// of 6 rounds, issue 25) when the spawn went first. A turn with nothing else due takes microseconds.
const pendingWorkFirst = Effect.forEach(
  Array.from({ length: 100 }),
  () => Effect.yieldNowWith(Number.MAX_SAFE_INTEGER),
  { discard: true }
)

interface Spare {
  readonly session: Session.Session
  readonly scope: Scope.Closeable
  /** Whether it was claimed, or closed to give its CLI slot to one waiting for it (see `CliSlots`) first. */
  readonly state: Ref.Ref<SpareState>
  /** Withdraws its offer of its slot. */
  readonly withdraw: Effect.Effect<void>
}

/**
 * Starts the pool's spares; they end with the Scope. The callbacks of the host options run with the services
 * of the Scope's owner.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*<R = never>(options: Options<R> = {}) {
  const cli = yield* ClaudeCli.ClaudeCli
  const fs = yield* FileSystem.FileSystem
  // The callers' services, not their Scope: each spare's CLI lives in a scope of its own.
  const context = Context.omit(Scope.Scope)(yield* Effect.context<R>())
  const poolScope = yield* Effect.scope
  const parking = yield* fs.makeTempDirectoryScoped({ prefix: "claude-spare-" })
  const size = Math.max(1, options.size ?? 1)
  // One entry per spare started, settled with the spare once it is parked, or `undefined` if it failed.
  const spares = yield* Queue.unbounded<Deferred.Deferred<Spare | undefined>>()
  yield* Effect.addFinalizer(() =>
    Effect.flatMap(Queue.clear(spares), (left) =>
      Effect.forEach(left, (entry) =>
        Effect.flatMap(Deferred.poll(entry), (done) =>
          done._tag === "None"
            ? Effect.void
            : Effect.flatMap(done.value, (spare) => spare === undefined ? Effect.void : Scope.close(spare.scope, Exit.void)))))
  )
  const refused = yield* Ref.make(0)
  const warmStarts = yield* Ref.make(0)
  const parked = yield* Ref.make(0)
  const slots = yield* Effect.serviceOption(CliSlots.CliSlots)
  const start = (sessionOptions: Session.Options<R>) =>
    cli.session(sessionOptions as Session.Options<never>).pipe(Effect.provide(context))

  // A spare taken meanwhile waits for its start, which begins once `first` is done.
  const parkAfter = (first: Effect.Effect<void>) => Effect.gen(function*() {
    const entry = yield* Deferred.make<Spare | undefined>()
    yield* Queue.offer(spares, entry)
    yield* Effect.gen(function*() {
      yield* first
      const scope = yield* Scope.fork(poolScope)
      const session = yield* start({ ...options.host, cwd: parking, extraArgs: [...(options.host?.extraArgs ?? []), "--await-claim"] })
        .pipe(Scope.provide(scope), Effect.onError(() => Scope.close(scope, Exit.void)))
      yield* Ref.update(parked, (n) => n + 1)
      const state = yield* Ref.make<SpareState>("parked")
      // A parked spare is idle: under a CLI cap it gives its slot to one waiting, unless claimed first.
      if (Option.isNone(slots)) return yield* Deferred.succeed(entry, { session, scope, state, withdraw: Effect.void })
      const offer = yield* Scope.fork(scope)
      const evict = Effect.flatMap(
        Ref.modify(state, (now): [boolean, SpareState] => now === "parked" ? [true, "evicted"] : [false, now]),
        (evicted) => evicted ? Effect.andThen(Ref.update(parked, (n) => n - 1), Scope.close(scope, Exit.void)) : Effect.void
      )
      yield* slots.value.evictable(evict).pipe(Scope.provide(offer))
      yield* Deferred.succeed(entry, { session, scope, state, withdraw: Scope.close(offer, Exit.void) })
    }).pipe(
      // A spare that cannot start answers its taker with a cold start.
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Deferred.succeed(entry, undefined)),
      Effect.ignore,
      Effect.forkIn(poolScope)
    )
  })
  const park = parkAfter(Effect.void)
  for (let i = 0; i < size; i++) yield* park

  const cold = (claim: Claim) =>
    Effect.map(start({ ...options.host, ...claim }), (session) => ({ session, warm: false, turn: undefined }))

  // Sends a control request and returns once it is written (or has failed): what is written next, the CLI
  // reads after it. The answer is the fiber's.
  const pipelined = (session: Session.Session, body: { readonly subtype: string; readonly [key: string]: unknown }) =>
    Effect.gen(function*() {
      const written = yield* Deferred.make<void>()
      const answer = yield* Effect.forkScoped(session.request(body, { written }))
      yield* Effect.raceFirst(Deferred.await(written), Effect.asVoid(Fiber.await(answer)))
      return answer
    })

  // Runs the prompt's turn now, into a buffer read later, and returns once the prompt is written (or the turn
  // has failed). `underWay` runs once the reader has taken the turn's first assistant message (or at the
  // turn's end, whichever comes first): the start of a replacement (a spawn, blocking for a while) must not
  // hold up the message on its way to the reader.
  const started = (session: Session.Session, prompt: UserContent.UserContent, underWay: Effect.Effect<void>) =>
    Effect.gen(function*() {
      const buffer = yield* Queue.unbounded<Session.Message, Session.StreamError | Cause.Done>()
      const written = yield* Deferred.make<void>()
      const running = yield* Stream.runForEach(session.turn(prompt, { written }), (message) => Queue.offer(buffer, message)).pipe(
        Effect.onExit((exit) => Exit.isSuccess(exit) ? Queue.end(buffer) : Queue.failCause(buffer, exit.cause)),
        Effect.ensuring(underWay),
        Effect.forkScoped
      )
      yield* Effect.raceFirst(Deferred.await(written), Effect.asVoid(Fiber.await(running)))
      return Stream.tap(Stream.fromQueue(buffer), (message) => message._tag === "AssistantMessage" ? underWay : Effect.void)
    })

  // A spare claimed for `claim` (with `prompt` sent with the claim and the model), or a cold start.
  const take = (claim: Claim, prompt: UserContent.UserContent | undefined) =>
    Effect.gen(function*() {
      const entry = yield* Queue.poll(spares)
      if (entry._tag === "None") return yield* cold(claim)
      const spare = yield* Deferred.await(entry.value)
      if (spare === undefined) return yield* Effect.andThen(park, cold(claim))
      // Claimed, unless it gave its slot away first: then it is gone, and this is a cold start.
      const claimed = yield* Ref.modify(spare.state, (now): [boolean, SpareState] => now === "parked" ? [true, "claimed"] : [false, now])
      yield* spare.withdraw
      if (!claimed) return yield* Effect.andThen(park, cold(claim))
      yield* Ref.update(parked, (n) => n - 1)
      const { scope, session } = spare
      const callerScope = yield* Effect.scope
      yield* Scope.addFinalizer(callerScope, Scope.close(scope, Exit.void))
      // The replacement starts once the claimed spare is under way (its claim answered; with a prompt, its first
      // assistant message): a CLI's start-up, the spawn included, must not hold up the claim and the prompt on a
      // busy machine, nor the first message on its way to its reader.
      const replace = yield* Effect.cached(parkAfter(pendingWorkFirst))
      // The claim, the model and the prompt go in one write, as the SDK's `claim()` writes them in one go: the
      // CLI has the prompt before it answers the claim, and takes it up at once.
      const answered = yield* Effect.gen(function*() {
        const sent = yield* Effect.exit(session.together(Effect.gen(function*() {
          const claiming = yield* pipelined(session, {
            subtype: "claim_session",
            cwd: claim.cwd,
            ...(claim.permissionMode === undefined ? {} : { permission_mode: claim.permissionMode }),
            sdk_mcp_servers: (options.host?.mcpServers ?? []).map((server) => server.name)
          })
          // A spare takes no model before its claim; right after it, the prompt's turn runs on it.
          const modelSet = claim.model === undefined
            ? undefined
            : yield* pipelined(session, { subtype: "set_model", model: claim.model })
          const turn = prompt === undefined ? undefined : yield* started(session, prompt, replace)
          return { claiming, modelSet, turn }
        })))
        // A spare whose stdin is gone counts as one that refused its claim.
        if (Exit.isFailure(sent)) return { claimed: sent, modelSet: undefined, turn: undefined }
        return { ...sent.value, claimed: yield* Fiber.await(sent.value.claiming) }
      }).pipe(
        Scope.provide(scope),
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) && Exit.isSuccess(exit.value.claimed) && exit.value.turn !== undefined ? Effect.void : replace
        )
      )
      // A refused claim leaves the prompt unrun (the CLI answers it with a `not_claimed` error result).
      if (Exit.isFailure(answered.claimed)) {
        yield* Ref.update(refused, (n) => n + 1)
        yield* Scope.close(scope, Exit.void)
        return yield* cold(claim)
      }
      yield* Ref.update(warmStarts, (n) => n + 1)
      if (answered.modelSet !== undefined) yield* Fiber.join(answered.modelSet)
      return { session, warm: true, turn: answered.turn }
    })

  const session = (claim: Claim) =>
    Effect.map(take(claim, undefined), ({ session, warm }) => ({ session, warm }))

  const begin = (claim: Claim, prompt: UserContent.UserContent) =>
    Effect.gen(function*() {
      const taken = yield* take(claim, prompt)
      const turn = taken.turn ?? (yield* started(taken.session, prompt, Effect.void))
      return { session: taken.session, warm: taken.warm, turn }
    })

  const query = (prompt: string, claim: Claim) =>
    Stream.unwrap(Effect.map(begin(claim, prompt), ({ turn }) => turn))

  return SparePool.of({
    session,
    begin,
    query,
    claimed: Ref.get(warmStarts),
    refused: Ref.get(refused),
    parked: Ref.get(parked)
  })
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = <R = never>(
  options: Options<R> = {}
): Layer.Layer<SparePool, never, ClaudeCli.ClaudeCli | FileSystem.FileSystem | R> =>
  Layer.effect(SparePool, Effect.orDie(make(options)))
