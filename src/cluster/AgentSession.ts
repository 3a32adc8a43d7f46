/**
 * An agent session as a cluster entity: one CLI session per entity id, living as long as the entity is active
 * on its runner, closed when the entity idles out (`maxIdleTime`) or is closed, and resumed (`--resume` with the
 * session id kept in the {@link TurnLog.TurnLog}) by the next request.
 *
 * Requests run concurrently, so `Interrupt`, `Info` and the setters reach a session while a `Turn` streams;
 * turns themselves run one at a time. A `Turn` carries an id: one whose messages are in the log is answered
 * from there (a `TurnReplayed` event, then the stored messages) without reaching the model; one that was
 * started and never finished (a re-delivery after a crash) runs once more, after {@link takeoverDelay}, its
 * `TurnStarted` event saying `attempt: 2` and its prompt going with a note on what the cut attempt did (its
 * tool calls and results, kept in the log as they came); with `enableFileCheckpointing`, the files that attempt
 * changed with Write or Edit are rewound first (`rewind_files` to its prompt, whose uuid the log kept) and the
 * note says what came of it. A turn whose attempts failed, or ended unknown, too often is refused with
 * `TurnRetriesExhausted` (see `Options.retryLimit`); one cut from outside is always started again. A
 * turn runs to its end in the entity even when its caller stops reading, so it is logged and never sent to the
 * model twice; a caller that takes nothing of an ended turn for 30 seconds (its client died) is let go, so the
 * entity idles out. A stopping runner drains first: no new turn starts, running ones finish (see `Cluster`).
 * A turn's `result` goes to its caller once the conversation's store and the log hold the turn, under the
 * runner's lease; once the lease is another's, the CLI's tools are denied (see `Lease`).
 *
 * With `spares` and a `cwd` in the options, the runner keeps CLIs parked with the entity type's own options
 * (callbacks included) and a new conversation claims one instead of starting a CLI, its first prompt sent
 * with the claim; a refused claim starts cold with the same options.
 *
 * A turn's steps on its runner are spans (see {@link spanNames}), inside the cluster's own span of the request,
 * beside the CLI's `ClaudeCli.turn`: with a tracer installed (e.g. `@effect/opentelemetry`), a slow turn shows
 * where its time went.
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { AgentSession, TurnLog } from "effect-claude-code/cluster"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* AgentSession.client
 *   const events = yield* client("user-42").Turn({ turnId: "t1", prompt: "Hello" }).pipe(Stream.runCollect)
 * })
 * // Provide AgentSession.layer({ maxIdleTime: "5 minutes" }), TurnLog.layerMemory, a ClaudeCli layer and a runner.
 * ```
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Cause from "effect/Cause"
import * as Entity from "effect/cluster/Entity"
import type * as Sharding from "effect/cluster/Sharding"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { NonEmptyReadonlyArray } from "effect/Array"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as Stream from "effect/Stream"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as CliError from "../ClaudeCliError.ts"
import * as Budget from "../governance/Budget.ts"
import * as CliSlots from "../governance/CliSlots.ts"
import * as Process from "../process/Process.ts"
import type * as QueryOptions from "../QueryOptions.ts"
import * as Message from "../schema/Message.ts"
import * as Hooks from "../session/Hooks.ts"
import type * as Session from "../session/Session.ts"
import * as SessionError from "../session/SessionError.ts"
import * as Fencing from "../store/internal/fencing.ts"
import * as Lease from "../store/Lease.ts"
import type * as SessionStore from "../store/SessionStore.ts"
import * as SparePool from "../SparePool.ts"
import * as Telemetry from "../Telemetry.ts"
import * as Drain from "./internal/drain.ts"
import * as LoggedAnswer from "./internal/loggedAnswer.ts"
import * as RetryNote from "./internal/retryNote.ts"
import * as Rewind from "./internal/rewind.ts"
import * as StalledCaller from "./internal/stalledCaller.ts"
import * as StallWatch from "./internal/stallWatch.ts"
import * as TurnLog from "./TurnLog.ts"
import {
  SessionFailed,
  TurnRetriesExhausted,
  TurnIdReused,
  OverBudget,
  Undelivered,
  AgentSessionError,
  TurnStarted,
  TurnReplayed,
  TurnMessage,
  TurnEvent,
  EntityInfo,
  rpcs
} from "./internal/protocol.ts"
import type { Rpcs } from "./internal/protocol.ts"

/** @since 0.1.0 */
export {
  SessionFailed,
  TurnRetriesExhausted,
  Undelivered,
  TurnIdReused,
  OverBudget,
  AgentSessionError,
  TurnStarted,
  TurnReplayed,
  TurnMessage,
  TurnEvent,
  EntityInfo,
  Turn,
  ActivityTurn,
  Send,
  Interrupt,
  Close,
  Info,
  SetModel,
  SetPermissionMode
} from "./internal/protocol.ts"

/** @since 0.1.0 */
export type { Rpcs } from "./internal/protocol.ts"

/**
 * The spans of a turn's steps on its runner, each with the attributes `entity.type`, `entity.id` (as the
 * cluster's own spans have them), `claude.turn_id` and `claude.turn_attempt` (`begin` has no attempt yet):
 * `begin`, the turn log's start of the turn (or its answer, for a turn it holds); `open`, the turn's CLI made
 * ready (started, resumed, claimed from a spare, or the one running); `stored`, the wait for the conversation's
 * store to hold the turn before its result goes to the caller; `finish`, the turn's end in the log. The cluster
 * adds its own around them: `<type>.Turn` (or `<type>.ActivityTurn`) on the runner, `<type>.client.Turn` on the
 * caller.
 *
 * @since 0.1.0
 * @category constants
 */
export const spanNames = {
  begin: "AgentSession.begin",
  open: "AgentSession.open",
  stored: "AgentSession.stored",
  finish: "AgentSession.finish"
} as const

/**
 * How long a re-delivered turn waits before it starts: {@link Process.guardGracePeriod} and a second to spare.
 * The attempt before was cut short by its runner's death (a runner that lets a shard go ends its turns and
 * CLIs first); that host's guard ends the CLI and its tools within the grace period of the death, which came
 * before the re-delivery, so its tools are gone first. That two CLIs never write one session is the lease's
 * work, not this delay's (a runner paused rather than killed has no guard to end its CLI): see `Lease`.
 *
 * @since 0.1.0
 * @category constants
 */
export const takeoverDelay: Duration.Duration = Duration.sum(Process.guardGracePeriod, Duration.seconds(1))

/**
 * How the sessions of the entity type run: the session options (callbacks included: `canUseTool`, `hooks`,
 * `mcpServers`, run on whichever runner holds the entity) and the entity's idle time.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R = never> extends Omit<Session.Options<R>, "resume" | "sessionId" | "continue"> {
  /** How long an entity (and its CLI) stays without requests before it is closed. Default: the cluster's. */
  readonly maxIdleTime?: Duration.Input | undefined
  /**
   * CLIs each runner keeps parked for new conversations (a {@link SparePool} started with these options, so
   * warm and cold starts run the same callbacks). Needs `cwd`. Default 0.
   */
  readonly spares?: number | undefined
  /**
   * When a re-delivered or re-asked turn is refused instead of started again (`TurnRetriesExhausted`), by how
   * its attempts before ended (see `TurnLog.End`). Default: two `failed` (the turn's CLI died on its own, the
   * model or a tool failed), or six `unended` (the runner died or hung mid-turn: a turn that kills its runner
   * ends so every time, and so does a turn whose runner is killed from outside, which is why that limit is
   * higher). Attempts cut from outside while their runner ran on (a drain deadline, a moved entity, a lease
   * taken by another runner) never count. Each retry waits longer: {@link takeoverDelay}, doubled at each
   * attempt, up to 8 times it.
   */
  readonly retryLimit?: { readonly failed?: number | undefined; readonly unended?: number | undefined } | undefined
  /**
   * The key whose budget each turn runs under (a `Budget` of effect-claude-code/governance in the runner's
   * context): a turn is refused before its CLI starts when the key has reached a limit, and interrupted after
   * the message that crosses one; both fail with `OverBudget`. An interrupted turn's messages come before its
   * failure, its result (the cost the budget was charged) among them. A function gives each entity its key.
   */
  readonly budget?: string | ((entityId: string) => string) | undefined
}

const overBudget = (error: Budget.BudgetError) => new AgentSessionError({ reason: new OverBudget({ error }) })

const drainingDetail = (runner: string | null) =>
  `${runner === null ? "the entity's runner" : `runner ${runner}`} is stopping and starts nothing outside a running turn: ` +
  "send again, and the entity's next runner takes it"

// A turn log write refused: the entity's lease is another runner's now (see `TurnLog`), so this activation's
// turn ends with its CLI (the turn's error closes it), and the new holder's record stands.
const fencedOut = (error: SessionStore.SessionStoreError) => new CliError.ClaudeCliError({ reason: error })

const failed = (operation: string) => (error: CliError.ClaudeCliError | SessionError.SessionError) =>
  new AgentSessionError({ reason: new SessionFailed({ operation, error }) })

// When a turn is not started again unless the options say otherwise (see `Options.retryLimit`).
const retryLimit = { failed: 2, unended: 6 } as const

// A retry's wait grows with the attempts before it: the takeover delay, doubled each time, up to 8 times it.
const backoff = (attempt: number) => Duration.times(takeoverDelay, 2 ** Math.min(attempt - 2, 3))

// `hooks` and a PreToolUse hook that lets a tool run only while the conversation's lease is still this runner's
// (asked of the store at that moment). A paused runner's CLI is not paused with it (nor ended: its host lives),
// so it goes on with its turn, but its tools wait on the hook's answer: woken, the runner finds the lease gone
// and denies them, rather than running them beside the new holder's retry of the turn. A hook that fails blocks
// its tool too (`onFailure`).
const withToolFence = <R>(hooks: Hooks.Hooks<R> | undefined, holds: Effect.Effect<boolean>): Hooks.Hooks<R> => ({
  ...hooks,
  PreToolUse: [
    {
      onFailure: "block",
      hooks: [() =>
        Effect.map(holds, (held) =>
          held ? Hooks.proceed : Hooks.permissionDecision("deny", "This runner lost the conversation to another; the tool was not run."))]
    },
    ...(hooks?.PreToolUse ?? [])
  ]
})

// A turn the log has finished, answered from there.
const replayed = (turnId: string, messages: ReadonlyArray<TurnMessage["message"]>): Stream.Stream<TurnEvent> =>
  Stream.make<ReadonlyArray<TurnEvent>>(new TurnReplayed({ turnId }), ...messages.map((message) => new TurnMessage({ message })))

// `head` in the first chunk of `stream`, ahead of its first elements; alone when the stream ends or fails first.
const withHead = <H>(head: H) => <A, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A | H, E, R> =>
  Stream.suspend(() => {
    let sent = false
    const unsent = Stream.suspend(() => sent ? Stream.empty : Stream.make(head))
    return stream.pipe(
      Stream.mapArray((values): NonEmptyReadonlyArray<A | H> => {
        if (sent) return values
        sent = true
        return [head, ...values]
      }),
      Stream.catchCause((cause) => Stream.concat(unsent, Stream.failCause(cause))),
      Stream.concat(unsent)
    )
  })

// Where the entity's turn is (turns run one at a time): none, starting (the CLI still starting, the prompt not yet
// taken up), starting with an `Interrupt` owed (sent on its first message), or streaming.
type TurnPhase = "none" | "starting" | "owed" | "streaming"

// The entity's CLI session, the scope it runs in, and the fence of the conversation's lease its writes carry.
interface Live {
  readonly session: Session.Session
  readonly scope: Scope.Closeable
  readonly fence: SessionStore.Fence | undefined
  /** The lease's token now, asked of the store (see `Lease.Held`). */
  readonly leaseToken: Effect.Effect<number>
  /** Marks the lease lost and ends this CLI (in a fiber of its own). */
  readonly lost: Effect.Effect<void>
}

// A started CLI session, with the turn it was started for when that is under way already.
interface Opened extends Omit<Live, "scope"> {
  readonly turn: Stream.Stream<Session.Message, Session.StreamError> | undefined
}

const handlers = Effect.fnUntraced(function*<Name extends string, R>(
  entity: Entity.Entity<Name, Rpcs>,
  options: Options<R>,
  pool: Option.Option<SparePool.Pool>,
  drain: Drain.Drain,
  stallWatch: Effect.Effect<StallWatch.StallWatch>
) {
  const { maxIdleTime: _, spares: __, budget: ___, retryLimit: ____, ...sessionOptions } = options
  const limit = { ...retryLimit, ...options.retryLimit }
  const address = yield* Entity.CurrentAddress
  const entityId = logKey(address.entityType, address.entityId)
  // A turn's spans (see `spanNames`): named as the cluster names its entities in its own.
  const spanOptions = (turnId: string, attempt?: number) => ({
    attributes: {
      "entity.type": address.entityType,
      "entity.id": address.entityId,
      [Telemetry.attributes.turnId]: turnId,
      ...(attempt === undefined ? {} : { [Telemetry.attributes.attempt]: attempt })
    }
  })
  const entityScope = yield* Effect.scope
  const stalls = yield* stallWatch
  const context = yield* Effect.context<R>()
  const log = yield* TurnLog.TurnLog
  const cli = yield* ClaudeCli.ClaudeCli
  const runner = Option.match(yield* Effect.serviceOption(Entity.CurrentRunnerAddress), {
    onNone: () => null,
    onSome: (address) => `${address.host}:${address.port}`
  })
  const turns = yield* Semaphore.make(1)
  // The settings the entity's RPCs changed, wherever it was active before; the type's options otherwise.
  const settings = yield* Ref.make<TurnLog.Settings>(yield* log.settings(entityId))
  // The model and permission mode in effect: the entity's settings over the type's options.
  const inEffect = Effect.map(Ref.get(settings), (kept): { model?: string | undefined; permissionMode?: QueryOptions.PermissionMode | undefined } => ({
    model: kept.model !== undefined ? kept.model ?? undefined : options.model,
    permissionMode: kept.permissionMode ?? options.permissionMode
  }))
  // The CLI session of this activation with its scope, once started. Changed one change at a time (a start, a
  // close, a setting applied), so that a setting sent while the CLI starts applies to it once it has started.
  const live = yield* SynchronizedRef.make<Live | undefined>(undefined)
  const phase = yield* Ref.make<TurnPhase>("none")
  // The session id the log has for this entity, as this activation read or wrote it: one the CLI reports again
  // is not written again (each write is a commit on the turn's way, issue 23).
  let loggedSessionId: string | undefined
  const keepSessionId = (sessionId: string, fence: SessionStore.Fence | undefined) =>
    sessionId === loggedSessionId
      ? Effect.void
      : Effect.andThen(log.setSessionId(entityId, sessionId, fence), Effect.sync(() => {
        loggedSessionId = sessionId
      }))

  // Whether the CLI's lease was taken by another runner (or a write of it refused as fenced): a turn cut then
  // was cut from outside, not by its own doing (see `TurnLog.End`).
  let leaseLost = false
  const fenced = (error: SessionStore.SessionStoreError) => {
    if (error.reason._tag === "Fenced") leaseLost = true
    return fencedOut(error)
  }

  // The CLI session of this activation, started on first use and resumed from the log's session id. Started
  // for a turn's `prompt`, it may come with that turn under way (`turn`): a spare gets the prompt with its claim.
  // Started for a `retry`, it resumes at the last answer before the cut turn, which drops what that turn left
  // in the conversation (its prompt, its calls); a retried first turn starts the conversation anew.
  const open = (prompt: string | undefined, retry = false) =>
    SynchronizedRef.modifyEffect(live, (current): Effect.Effect<readonly [Opened, Live], AgentSessionError> => {
      if (current !== undefined) return Effect.succeed([{ ...current, turn: undefined }, current])
      return Effect.gen(function*() {
        const scope = yield* Scope.fork(entityScope)
        // The conversation's lease, taken before its chain is read (a resume restores it from the store): a
        // runner that held it before writes nothing more, and ends its CLI once it finds out.
        leaseLost = false
        const lost = Effect.andThen(Effect.sync(() => (leaseLost = true)), Effect.asVoid(Effect.forkIn(closeOf(scope), entityScope)))
        // The turn log is claimed with its fence before it is read: a holder fenced out writes nothing more there.
        const { fence, holds, current: leaseToken, sessionStore } = yield* Lease.hold(sessionOptions.sessionStore, entityId, lost).pipe(
          Effect.tap(({ fence }) => fence === undefined ? Effect.void : log.claim(entityId, fence)),
          Scope.provide(scope),
          Effect.mapError((reason) => failed("start")(new CliError.ClaudeCliError({ reason }))),
          Effect.onError(() => Scope.close(scope, Exit.void))
        )
        const known = yield* log.sessionId(entityId)
        loggedSessionId = known
        const resumeSessionAt = retry && known !== undefined ? yield* log.resumeAt(entityId) : undefined
        const resume = retry && resumeSessionAt === undefined ? undefined : known
        const cwd = sessionOptions.cwd
        const { model, permissionMode } = yield* inEffect
        const leased = { fence, leaseToken, lost }
        // A new conversation in a known folder can take a parked spare; a resumed one starts with `--resume`.
        const start = resume === undefined && cwd !== undefined && pool._tag === "Some"
          ? prompt === undefined
            ? Effect.map(pool.value.session({ cwd, model, permissionMode }), ({ session }): Opened => ({ session, turn: undefined, ...leased }))
            : Effect.map(pool.value.begin({ cwd, model, permissionMode }, prompt), ({ session, turn }): Opened => ({ session, turn, ...leased }))
          : Effect.map(
            cli.session({
              ...sessionOptions,
              hooks: fence === undefined ? sessionOptions.hooks : withToolFence(sessionOptions.hooks, holds),
              sessionStore,
              model,
              permissionMode,
              resume,
              resumeSessionAt
            } as Session.Options<R>),
            (session): Opened => ({ session, turn: undefined, ...leased })
          )
        const started = yield* start.pipe(
          Scope.provide(scope),
          Effect.provide(context),
          Effect.onError(() => Scope.close(scope, Exit.void)),
          Effect.mapError(failed("start"))
        )
        return [started, { session: started.session, scope, ...leased }] as const
      }) as Effect.Effect<readonly [Opened, Live], AgentSessionError>
    })
  const session = Effect.map(open(undefined), (opened) => opened.session)

  // Closes the CLI session when it is the one of `scope` (any, without).
  const closeOf = (scope?: Scope.Closeable) =>
    SynchronizedRef.updateEffect(live, (current) =>
      current === undefined || (scope !== undefined && current.scope !== scope)
        ? Effect.succeed(current)
        : Effect.as(Effect.andThen(current.session.close, Scope.close(current.scope, Exit.void)), undefined))
  const close = closeOf()

  // Under a cap on live CLIs (`CliSlots`), the CLI of an entity between turns is on offer: one who waits for a
  // slot ends it (the next turn resumes the conversation from its session id), unless a turn has started since.
  const slots = yield* Effect.serviceOption(CliSlots.CliSlots)
  const idleOffer = yield* Ref.make<Scope.Closeable | undefined>(undefined)
  const withdrawOffer = Effect.flatMap(
    Ref.getAndSet(idleOffer, undefined),
    (offer) => offer === undefined ? Effect.void : Scope.close(offer, Exit.void)
  )
  const offerIdleCli = slots._tag === "None" ? Effect.void : Effect.gen(function*() {
    yield* withdrawOffer
    const current = yield* SynchronizedRef.get(live)
    if (current === undefined) return
    const offer = yield* Scope.fork(entityScope)
    yield* slots.value.evictable(Effect.asVoid(turns.withPermitsIfAvailable(1)(closeOf(current.scope)))).pipe(
      Scope.provide(offer)
    )
    yield* Ref.set(idleOffer, offer)
  })

  // The turn's budget: the `budget` option's key and the runner's Budget, when both are there.
  const budgetService = yield* Effect.serviceOption(Budget.Budget)
  const budget = options.budget === undefined || budgetService._tag === "None"
    ? undefined
    : { key: typeof options.budget === "string" ? options.budget : options.budget(address.entityId), service: budgetService.value }
  const underBudget = (turn: Stream.Stream<Session.Message, Session.StreamError>, session: Session.Session) =>
    budget === undefined
      ? turn
      : turn.pipe(
        Budget.guard(budget.key, { onCrossed: Effect.ignore(session.interrupt) }),
        Stream.provideService(Budget.Budget, budget.service)
      )

  // With file checkpointing, each attempt names its prompt in the log before sending it, and a retry rewinds
  // what the attempt before changed to it (a spare is then claimed without the prompt, which goes named after).
  const checkpointing = sessionOptions.enableFileCheckpointing === true
  const run = (turnId: string, prompt: string, begun: TurnLog.Begin & { readonly _tag: "Start" }): Stream.Stream<TurnEvent, AgentSessionError> =>
    Stream.unwrap(Effect.gen(function*() {
      const attempt = begun.attempt
      const spanned = spanOptions(turnId, attempt)
      // Refused before a CLI starts for it.
      if (budget !== undefined) yield* Budget.check(budget.key).pipe(Effect.provideService(Budget.Budget, budget.service), Effect.mapError(overBudget))
      // A retry tells the model what the cut attempt did, rather than sending the prompt as if new.
      // What the cut attempt did: as `begin` found it, or as the log holds it once this runner claimed it (below).
      let interrupted = begun.interrupted ?? []
      const note = (files?: RetryNote.Files) => attempt === 1 ? prompt : RetryNote.prompt(prompt, interrupted, files)
      // A retry's prompt goes only after the look below (a spare would be claimed with it).
      const opened = yield* open(checkpointing || attempt > 1 ? undefined : note(), attempt > 1).pipe(Effect.withSpan(spanNames.open, spanned))
      if (attempt > 1) {
        // The retry was decided before this runner claimed the turn log (in `open`): the holder before, still
        // running the cut attempt, may have finished it in between (only writes after the claim are refused).
        // Its answer stands, maybe given already: replayed, not asked of the model again. The CLI opened for the
        // retry goes (it resumes before the turn); the next turn's resumes from the store, which holds the answer.
        const finished = yield* log.answer(entityId, turnId)
        if (finished !== undefined) {
          yield* close
          return replayed(turnId, finished)
        }
        // Not finished, but it may have run tools in between (its progress came after this runner's `begin`):
        // the note tells the model of those, or it runs them again (a chaos run's `s23-t9`, issue 23).
        interrupted = (yield* log.progressOf(entityId, turnId)) ?? interrupted
      }
      const text = checkpointing && attempt > 1 ? note(yield* Rewind.files(opened.session, begun.promptId, interrupted)) : note()
      const uuid = checkpointing ? crypto.randomUUID() : undefined
      if (uuid !== undefined) yield* log.sent(entityId, turnId, uuid)
      // The tool calls and results so far, kept as they come: a retry of this turn tells the model about them.
      const activity: Array<Session.Message> = []
      const current = opened.session
      const fence = opened.fence
      // After a stall (see StallWatch) nothing more goes to the caller before the sharding's next lock refresh
      // (which closes the entity if its shard is gone, cutting the turn: no reply is written) and the store's
      // word that the lease is still this runner's. Lost, the CLI ends and the turn waits for that close; it
      // fails if the close does not come.
      let checked = yield* stalls.count
      const afterStall = Effect.andThen(
        Effect.sleep(stalls.settle),
        fence === undefined ? Effect.void : Effect.flatMap(opened.leaseToken, (token) =>
          token === fence.token ? Effect.void : opened.lost.pipe(
            Effect.andThen(Effect.sleep(takeoverDelay)),
            // The look at the lease found it another's: nothing more of the turn was written.
            Effect.andThen(Effect.fail(Fencing.refused("lease", entityId, fence, token)))
          ))
      )
      const stillHeld = Effect.flatMap(stalls.count, (count) =>
        count === checked ? Effect.void : Effect.andThen(afterStall, Effect.sync(() => {
          checked = count
        })))
      const messages: Array<Session.Message> = []
      // The turn's end in the log: its session id, where a retry of the next turn resumes, its messages.
      let finished = false
      const end = Effect.gen(function*() {
        finished = true
        const sessionId = yield* Effect.option(current.sessionId)
        if (sessionId._tag === "Some") yield* keepSessionId(sessionId.value, fence)
        const answer = messages.findLast((m) => m._tag === "AssistantMessage" && m.parent_tool_use_id === null)
        // The resume point goes with the messages: one commit at the turn's end rather than two (issue 23).
        yield* log.finish(entityId, turnId, messages, fence, answer?._tag === "AssistantMessage" ? answer.uuid : undefined)
      }).pipe(Effect.withSpan(spanNames.finish, spanned))
      // The turn is running on the CLI once its first message came: an interrupt owed till then is sent now.
      const first = Effect.flatMap(
        Ref.modify(phase, (now): [boolean, TurnPhase] => [now === "owed", "streaming"]),
        (owed) => owed ? Effect.asVoid(Effect.forkIn(Effect.ignore(current.interrupt), entityScope)) : Effect.void
      )
      return underBudget(opened.turn ?? current.turn(text, { uuid }), current).pipe(
        // The store's frames are the mirror's business, not the turn's.
        Stream.filter((message) => message._tag !== "TranscriptMirror"),
        Stream.tap((message) => Effect.andThen(stillHeld, () => {
          messages.push(message)
          if (RetryNote.isToolActivity(message)) activity.push(message)
          // Kept at once, so that a turn cut short by a crash still resumes this conversation and its retry
          // knows what it did.
          return Effect.andThen(
            first,
            message._tag === "SystemInit"
              ? keepSessionId(message.session_id, fence)
              : RetryNote.isToolActivity(message)
              ? log.progress(entityId, turnId, activity, fence)
              : Message.isResultMessage(message)
              // The result goes to the caller only once the turn is in the store and the log, under this
              // activation's lease: a caller given an answer finds it in the conversation wherever it goes on.
              // A runner paused or killed before that gives no answer; the turn is started again elsewhere. So
              // does a turn the store did not take all of (`stored` fails): its answer is in no stored chain.
              ? Effect.andThen(Effect.withSpan(current.stored, spanNames.stored, spanned), end)
              : Effect.void
          )
        })),
        Stream.map((message) => new TurnMessage({ message })),
        Stream.mapError((error) =>
          error._tag === "BudgetError" ? overBudget(error) : failed("turn")(error._tag === "SessionStoreError" ? fenced(error) : error)
        ),
        // The start goes out with the CLI's first message, as one chunk of the cluster's reply stream rather
        // than two: on PostgreSQL each chunk is a saved reply and an acknowledgement, three commits (issue 23).
        withHead(new TurnStarted({ turnId, attempt })),
        // A turn that ends without a result (its prompt withdrawn) is logged as it ends.
        Stream.onEnd(Effect.suspend(() => finished ? Effect.void : end).pipe(Effect.mapError((error) => failed("turn")(fenced(error))))),
        // A turn that failed leaves a CLI that cannot be trusted (or is gone): the next request starts another.
        Stream.onError(() => close)
      )
    }))

  const produce = (turnId: string, prompt: string, admitted: Ref.Ref<boolean>) =>
    Stream.unwrap(Effect.gen(function*(): Effect.fn.Return<Stream.Stream<TurnEvent, AgentSessionError>, never, Scope.Scope> {
      yield* Effect.acquireRelease(
        Effect.andThen(turns.take(1), Effect.andThen(withdrawOffer, Ref.set(phase, "starting"))),
        () => Effect.andThen(Ref.set(phase, "none"), Effect.andThen(offerIdleCli, turns.release(1)))
      )
      // The runner drains: the turn is not started (nor counted in the log); its request stays, to be
      // re-delivered to the runner that takes the entity.
      // Counted and marked in one step: a turn counted in the drain is always let out of it (see `turn`).
      if (!(yield* Effect.uninterruptible(Effect.tap(drain.admit, (ok) => ok ? Ref.set(admitted, true) : Effect.void)))) return Stream.never
      // A refused re-ask is not counted as a start: the log keeps how often the turn really started.
      const begun = yield* log.begin(entityId, turnId, prompt, limit).pipe(
        Effect.withSpan(spanNames.begin, spanOptions(turnId))
      )
      if (begun._tag === "Conflict") return Stream.fail(new AgentSessionError({ reason: new TurnIdReused({ turnId }) }))
      if (begun._tag === "Done") {
        return replayed(turnId, begun.messages)
      }
      // `attempts` is the number of the refused attempt (a log that ignores `maxAttempts` counts it too).
      const exhausted = (attempts: number) =>
        Stream.fail(new AgentSessionError({ reason: new TurnRetriesExhausted({ turnId, attempts }) }))
      if (begun._tag === "Exhausted") return exhausted(begun.attempts + 1)
      // A draining runner starts no CLI, so it takes no lease: a retry admitted before the drain began that waits
      // out its backoff without a CLI (a chaos run's runner took a lease 5 s after its SIGTERM so, issue 23) is
      // handed over as a refused turn is, its attempt released (it never counts) and let out of the drain.
      // A backoff cut by the entity's scope closing (its shard moved to a runner started again) is released too:
      // unended, those cuts used up a turn's retries in a full chaos run (10 turns refused after 6 to 9 starts).
      const drained = begun.attempt > 1
        ? Effect.raceFirst(Effect.as(Effect.sleep(backoff(begun.attempt)), false), Effect.as(drain.begun, true)).pipe(
          Effect.onInterrupt(() => log.ended(entityId, turnId, begun.attempt, "released"))
        )
        : Effect.succeed(false)
      if ((yield* drained) && SynchronizedRef.getUnsafe(live) === undefined) {
        yield* log.ended(entityId, turnId, begun.attempt, "released")
        yield* Effect.uninterruptible(Effect.flatMap(Ref.getAndSet(admitted, false), (counted) => counted ? drain.leave : Effect.void))
        return Stream.never
      }
      // How the attempt ended, for the next `begin` to judge it by; a runner that dies first tells nothing.
      return Stream.onExit(run(turnId, prompt, begun), (exit) =>
        Exit.isSuccess(exit) ? Effect.void : log.ended(entityId, turnId, begun.attempt, cutFromOutside(exit.cause) ? "released" : "failed"))
    }))
  // The entity's scope closing (its runner stopping past the drain deadline, or letting the entity go) interrupts
  // the turn, or ends its CLI first; a lost lease ends the CLI too.
  const cutFromOutside = (cause: Cause.Cause<unknown>) =>
    Cause.hasInterruptsOnly(cause) || entityScope.state._tag === "Closed" || leaseLost

  // Turns running on without their caller. While there are any the entity is kept alive: an entity without
  // requests would otherwise idle out and cut them short.
  const clusterContext = yield* Effect.context<Sharding.Sharding | Entity.CurrentAddress>()
  const unattended = yield* Ref.make(0)
  const attend = (delta: 1 | -1) =>
    Effect.flatMap(
      Ref.modify(unattended, (n) => [delta === 1 ? n + delta === 1 : n + delta === 0, n + delta]),
      (edge) => edge ? Effect.provide(Entity.keepAlive(delta === 1), clusterContext) : Effect.void
    )

  // The turn runs in the entity, not in its caller: a caller that stops reading does not cut it short, so it
  // still ends, is logged, and a re-delivery is answered from the log instead of the model.
  const turn = (turnId: string, prompt: string) =>
    Stream.unwrap(Effect.gen(function*() {
      const events = yield* Queue.unbounded<TurnEvent, AgentSessionError | Cause.Done>()
      const ended = yield* Deferred.make<void>()
      const answered = yield* Deferred.make<void>()
      const admitted = yield* Ref.make(false)
      // Interrupted, the turn is not ended for its caller: the entity's scope is closing (the runner stops or
      // lets the entity go), and the cluster leaves the request for the entity's next runner only when it is the
      // cluster that interrupts the caller, which it does next in that close. An interrupt passed on here came
      // first and was stored as the request's answer, processed: the turn lost, its caller ended empty-handed.
      yield* Stream.runForEachArray(produce(turnId, prompt, admitted), (chunk) => Queue.offerAll(events, chunk)).pipe(
        Effect.onExit((exit) =>
          Exit.isSuccess(exit)
            ? Queue.end(events)
            : Cause.hasInterrupts(exit.cause)
            ? Effect.void
            : Queue.failCause(events, exit.cause)
        ),
        Effect.ensuring(Deferred.succeed(ended, undefined)),
        Effect.forkIn(entityScope)
      )
      // A started turn holds a draining runner until it has ended and its caller is answered (or let go), or
      // until its entity is closed (its runner let it go, as one that wakes from a pause finds it must): a
      // turn left counted would hold the drain to its deadline.
      yield* Effect.all([Deferred.await(ended), Deferred.await(answered)]).pipe(
        Effect.ensuring(Effect.flatMap(Ref.get(admitted), (started) => started ? drain.leave : Effect.void)),
        Effect.forkIn(entityScope)
      )
      const unattendedUntilEnd = Effect.andThen(attend(1), Effect.ensuring(Deferred.await(ended), attend(-1)))
      return Stream.fromQueue(events).pipe(
        // A caller that takes nothing of the ended turn (its client died) is let go, so the entity can idle out.
        StalledCaller.release(ended, entityScope),
        Stream.onExit(() =>
          Effect.andThen(
            Deferred.succeed(answered, undefined),
            Effect.flatMap(Deferred.isDone(ended), (done) => done ? Effect.void : Effect.forkIn(unattendedUntilEnd, entityScope))
          )
        )
      )
    }))

  // A setting changed while the CLI starts applies to it once started: `live` changes after the start. It is
  // kept in the log first, so that a CLI this entity starts later, on this runner or another, has it too; then
  // what the CLI reports in effect, when that differs.
  const setting = <A>(
    operation: string,
    change: TurnLog.Settings,
    apply: (session: Session.Session) => Effect.Effect<A, Session.StreamError>,
    reported: (answer: A) => TurnLog.Settings = () => ({})
  ) =>
    SynchronizedRef.updateEffect(live, (current) =>
      Effect.gen(function*() {
        const keep = (next: TurnLog.Settings) =>
          Effect.flatMap(Ref.updateAndGet(settings, (kept) => ({ ...kept, ...next })), (kept) => log.setSettings(entityId, kept))
        yield* keep(change)
        if (current === undefined) return current
        const answer = yield* Effect.mapError(apply(current.session), failed(operation))
        const inEffect = reported(answer)
        if (Object.keys(inEffect).length > 0) yield* keep(inEffect)
        return current
      }))

  return entity.of({
    Turn: ({ payload: { prompt, turnId } }) => turn(turnId, prompt),
    ActivityTurn: ({ payload: { prompt, turnId } }) => turn(turnId, prompt),
    Send: ({ payload: { prompt } }) =>
      Effect.flatMap(Effect.all([drain.draining, Ref.get(phase)]), ([draining, now]) =>
        // Outside a turn, a prompt on a draining runner would run in a CLI that the drain does not wait for and
        // the runner's stop then ends (one it would even start): refused, to be sent again once the entity moved.
        draining && now === "none"
          ? Effect.fail(new AgentSessionError({ reason: new Undelivered({ errorTag: "Draining", detail: drainingDetail(runner) }) }))
          : Effect.flatMap(session, (s) => Effect.mapError(Effect.asVoid(s.send(prompt)), failed("send")))),
    Interrupt: () =>
      Effect.flatMap(
        Ref.modify(phase, (now): [boolean, TurnPhase] => now === "starting" || now === "owed" ? [true, "owed"] : [false, now]),
        (owed) => {
          const current = SynchronizedRef.getUnsafe(live)
          return owed || current === undefined
            ? Effect.void
            : Effect.mapError(Effect.asVoid(current.session.interrupt), failed("interrupt"))
        }
      ),
    Close: () => close,
    Info: () =>
      Effect.map(Effect.all([log.sessionId(entityId), inEffect, SynchronizedRef.get(live)]), ([sessionId, { model, permissionMode }, current]) =>
        new EntityInfo({
          entityId: address.entityId,
          runner,
          sessionId: sessionId ?? null,
          pid: current?.session.pid ?? null,
          model: model ?? null,
          permissionMode: permissionMode ?? null
        })),
    SetModel: ({ payload }) =>
      setting("setModel", { model: payload.model }, (session) => session.setModel(payload.model ?? undefined)),
    SetPermissionMode: ({ payload }) =>
      setting(
        "setPermissionMode",
        { permissionMode: payload.mode },
        (session) => session.setPermissionMode(payload.mode),
        (inEffect) => inEffect === undefined ? {} : { permissionMode: inEffect }
      )
  })
})

const layerOf = <Name extends string, R>(entity: Entity.Entity<Name, Rpcs>, options: Options<R>) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const pool = yield* spares(options)
    const drain = yield* Drain.make
    const stallWatch = yield* StallWatch.shared(yield* Effect.scope)
    yield* Layer.build(
      entity.toLayer(handlers(entity, options, pool, drain, stallWatch), { maxIdleTime: options.maxIdleTime, concurrency: "unbounded" })
    )
    // Added after the registration, so run before it is undone: the turns finish while the sharding still
    // serves them (see Drain), for as long as the runner layer says.
    const deadline = yield* Drain.Deadline
    const watch = yield* Drain.Watch
    yield* Effect.addFinalizer(() =>
      watch === undefined ? Effect.asVoid(drain.run(deadline)) : Effect.gen(function*() {
        yield* watch.arm(deadline)
        yield* watch.stage(`draining the turns of ${entity.type}`)
        const cut = yield* drain.run(deadline)
        yield* watch.stage(`handing its entities over (the drain of ${entity.type} ended with ${cut} turns still running)`)
      }))
  }))

/**
 * An agent session entity type of its own name, for sessions of other options (another prompt, other tools,
 * other callbacks) beside the default type: the entity, the layer that registers it on a runner (see
 * {@link layer}) and its client. Its turns are kept in the same {@link TurnLog.TurnLog}, apart from the other
 * types'.
 *
 * @since 0.1.0
 * @category constructors
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { AgentSession } from "effect-claude-code/cluster"
 *
 * const Reviewer = AgentSession.make("Reviewer")
 * const layer = Reviewer.layer({ allowedTools: ["Read"], maxIdleTime: "5 minutes" })
 * const program = Effect.gen(function*() {
 *   const client = yield* Reviewer.client
 *   return yield* client("pr-42").Turn({ turnId: "t1", prompt: "Review the diff" }).pipe(Stream.runCollect)
 * })
 * ```
 */
export const make = <const Name extends string>(name: Name) => {
  // The type's name leads its turn log keys (`logKey`): a "/" in it would make two types' keys meet.
  if (name.includes("/")) throw new Error(`An entity type's name cannot contain "/": ${JSON.stringify(name)}`)
  const entity = Entity.make(name, rpcs)
  return {
    entity,
    /** A client of the entity type: `(entityId) => { Turn, Send, ... }`. */
    client: clientOf(entity),
    /**
     * Registers the entity type on the runner: requests run concurrently (so an `Interrupt` reaches a
     * streaming turn), turns one at a time. Needs a `ClaudeCli`, a `TurnLog`, `Sharding` and what the
     * callbacks need.
     */
    layer: <R = never>(options: Options<R> = {}) => layerOf(entity, options)
  }
}

// The entity type's client. With a turn log at hand (a cluster layer's client has one), a `Turn` stream that
// waits on a turn the log has finished ends from the log (see LoggedAnswer): no wait without an end.
const clientOf = <Name extends string>(
  entity: Entity.Entity<Name, Rpcs>
): Entity.Entity<Name, Rpcs>["client"] =>
  Effect.flatMap(Effect.serviceOption(TurnLog.TurnLog), (log) =>
      Effect.map(entity.client, (make) => {
        if (log._tag === "None") return make
        const guarded: typeof make = (entityId) => {
          const key = logKey(entity.type, entityId)
          return new Proxy(make(entityId), {
            get: (target, property, receiver) => {
              const value = Reflect.get(target, property, receiver)
              if (property !== "Turn") return value
              return (payload: { readonly turnId: string; readonly prompt: string }, options?: {}) => {
                const reply = value(payload, options)
                // A stream of the turn's events: the `Turn` RPC's (an `asQueue` call gives a queue, left as is).
                return Stream.isStream(reply)
                  ? LoggedAnswer.guard(log.value, key, payload.turnId)(reply as Stream.Stream<TurnEvent, unknown, unknown>)
                  : reply
              }
            }
          })
        }
        return guarded
      })
  )

/**
 * The key of an entity's turns and conversation in the {@link TurnLog.TurnLog}: its type's name (which has no
 * "/"), a "/", and its id, so that two types never share a conversation whatever their ids.
 *
 * @since 0.1.0
 * @category turns
 */
export const logKey = (entityType: string, entityId: string): string => `${entityType}/${entityId}`

const defaultType = make("AgentSession")

/**
 * The default entity type, named `AgentSession`.
 *
 * @since 0.1.0
 * @category entities
 */
export const AgentSession = defaultType.entity

/**
 * A client of the default entity type: `(entityId) => { Turn, Send, ... }`.
 *
 * @since 0.1.0
 * @category clients
 */
export const client = defaultType.client

/**
 * Registers the default entity type on the runner: requests run concurrently (so an `Interrupt` reaches a
 * streaming turn), turns one at a time. Needs a `ClaudeCli`, a `TurnLog`, `Sharding` and what the callbacks
 * need.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = defaultType.layer

// The runner's parked CLIs: started with the entity type's options but the claim's.
const spares = <R>(options: Options<R>) => {
  const { maxIdleTime: _, spares: size = 0, cwd, model: __, permissionMode: ___, budget: ____, retryLimit: _____, ...host } = options
  if (size <= 0) return Effect.succeedNone
  if (cwd === undefined) return Effect.die(new Error("AgentSession.layer: `spares` needs a `cwd` for the claims"))
  return SparePool.make<R>({ size, host }).pipe(Effect.map(Option.some), Effect.provide(NodeFileSystem.layer))
}

