/**
 * Mirrors a running session into a {@link SessionStore.Shape}, as the `sessionStore` option of queries and
 * sessions asks: with `--session-mirror` the CLI writes each batch of transcript lines it saves as a
 * `transcript_mirror` frame on stdout (`{ filePath, entries }`); the frames are taken out of the output and
 * appended to the store in the background, retried with backoff. The output never waits for the store; an
 * append that still fails becomes a `mirror_error` message (`SystemMirrorError`), and the run goes on. With
 * `resume`, the stored session is first written into the CLI's config directory, so that a machine that never
 * saw it resumes it. A replayed recording (`Fixture`) is mirrored from the frames it recorded, under the keys
 * the recorded run had (see {@link replay}).
 *
 * Not in the `effect-claude-code/store` entry point: the `sessionStore` option is how it is used, by the
 * library's layers and sessions, which import this module.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as os from "node:os"
import * as nodePath from "node:path"
import type * as Redaction from "../internal/redaction.ts"
import * as SessionEvent from "../schema/SessionEvent.ts"
import * as System from "../schema/System.ts"
import * as Plural from "../internal/plural.ts"
import * as Keys from "./internal/keys.ts"
import * as ProjectKey from "./ProjectKey.ts"
import * as SessionStore from "./SessionStore.ts"
import * as SessionTransfer from "./SessionTransfer.ts"

/**
 * The flag that makes the CLI write `transcript_mirror` frames (the `sessionStore` option passes it).
 *
 * @since 0.1.0
 * @category constants
 */
export const flag = "--session-mirror"

/**
 * How often entries reach the store: `"batched"` (the default) appends what has queued up, one append per
 * transcript; `"eager"` appends each frame as it comes, one append each.
 *
 * @since 0.1.0
 * @category models
 */
export type Flush = "batched" | "eager"

/**
 * Where and how a run is mirrored, its config directory and working directory resolved.
 *
 * @since 0.1.0
 * @category models
 */
export interface Target {
  readonly store: SessionStore.Shape
  /** The CLI's config directory: frames name files under its `projects/`. */
  readonly configDir: string
  /** The directory the CLI runs in: its sessions' project key. */
  readonly cwd: string
  /** The store's project key of the session to resume (default: `cwd`'s). */
  readonly projectKey?: string | undefined
  /** Retries after a failed append (default 2: three attempts, as the SDK). */
  readonly retries?: number | undefined
  /**
   * How long each append may take (default 60 seconds, as the SDK): one that has not answered by then is not
   * retried (it may still land) and becomes a `mirror_error`; and how long the drain after the run's end may
   * take in all (see {@link start}), so a run ends whatever its store does.
   */
  readonly appendTimeout?: Duration.Input | undefined
  readonly flush?: Flush | undefined
  /** What a resume does with a local transcript in conflict with the stored one (see `StoreOptions`). */
  readonly onConflict?: "fail" | "store" | undefined
  /** How long each `load` / `listSubkeys` of a resume may take (default 60 seconds, as the SDK). */
  readonly loadTimeout?: Duration.Input | undefined
  /** The frames come from a recording, not a CLI: see {@link replay}. */
  readonly replay?: boolean | undefined
  /**
   * The store's key of the session a resume found by its id alone and restored (see {@link restore}): the
   * frames of that session go there, whatever project key the CLI's file has here, so a session resumed in
   * another directory stays one session of the store, found by its id again. (With a `projectKey` given,
   * the resumed session goes on under this directory's project key, as the SDK mirrors it.)
   */
  readonly resumed?: Omit<SessionStore.SessionKey, "subpath"> | undefined
}

/**
 * The store key of a transcript file under `<configDir>/projects`: `<projectKey>/<sessionId>.jsonl`, or
 * `<projectKey>/<sessionId>/<subpath>.jsonl`; `undefined` for a file elsewhere.
 *
 * @since 0.1.0
 * @category utils
 */
export const keyOf = (filePath: string, configDir: string): SessionStore.SessionKey | undefined => {
  const projects = `${configDir.replace(/[\\/]+$/, "")}/projects/`
  if (!filePath.startsWith(projects) || !filePath.endsWith(".jsonl")) return undefined
  const parts = filePath.slice(projects.length, -".jsonl".length).split("/")
  if (parts.some((p) => p === "" || p === "..")) return undefined
  if (parts.length === 2) return { projectKey: parts[0]!, sessionId: parts[1]! }
  if (parts.length >= 4) return { projectKey: parts[0]!, sessionId: parts[1]!, subpath: parts.slice(2).join("/") }
  return undefined
}

/**
 * The store key of a transcript file under any config directory's `projects/` (the last such directory of
 * the path that gives a key): a recorded frame names a file of the machine that recorded it.
 *
 * @since 0.1.0
 * @category utils
 */
export const recordedKeyOf = (filePath: string): SessionStore.SessionKey | undefined => {
  for (let at = filePath.lastIndexOf("/projects/"); at >= 0; at = filePath.lastIndexOf("/projects/", at - 1)) {
    const key = keyOf(filePath, filePath.slice(0, at))
    if (key !== undefined) return key
    if (at === 0) break
  }
  return undefined
}

/**
 * The mirroring that options ask for (`sessionStore`, `sessionStoreFlush`, `loadTimeout`), with the config
 * directory from `sessionStore.configDir`, else the run's `CLAUDE_CONFIG_DIR` (its own environment, then the
 * inherited one unless `envMode` is `"replace"`), else `~/.claude`; `undefined` without a store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const target = (options: {
  readonly sessionStore?: SessionStore.Shape | SessionStore.StoreOptions | undefined
  readonly sessionStoreFlush?: Flush | undefined
  readonly loadTimeout?: Duration.Input | undefined
  readonly cwd?: string | undefined
  readonly env?: Redaction.Environment | undefined
  readonly envMode?: "merge" | "replace" | undefined
}): Target | undefined => {
  const option = options.sessionStore
  if (option === undefined) return undefined
  const given = "store" in option ? option : { store: option }
  const fromEnv = options.env?.CLAUDE_CONFIG_DIR
  const configDir = given.configDir ??
    (typeof fromEnv === "string" ? fromEnv : undefined) ??
    (options.envMode === "replace" ? undefined : process.env.CLAUDE_CONFIG_DIR) ??
    nodePath.join(os.homedir(), ".claude")
  return {
    store: given.store,
    configDir,
    cwd: options.cwd ?? process.cwd(),
    projectKey: given.projectKey,
    retries: given.retries,
    appendTimeout: given.appendTimeout,
    onConflict: given.onConflict,
    flush: options.sessionStoreFlush,
    loadTimeout: options.loadTimeout
  }
}

/**
 * The mirroring of a replayed recording that options ask for (`Fixture` with `sessionStore`): the recorded
 * `transcript_mirror` frames are appended to the store as a live run appends them, each under the key of the
 * file it names in the recording (whatever config directory the recorded run had). Nothing is restored for
 * `resume`, since no CLI resumes anything. A recording made without a store has no frames: the replay then
 * ends with one `mirror_error` saying so, and the store is left as it was.
 *
 * @since 0.1.0
 * @category constructors
 */
export const replay = (options: Parameters<typeof target>[0]): Target | undefined => {
  const given = target(options)
  return given === undefined ? undefined : { ...given, replay: true }
}

/**
 * A `transcript_mirror` frame: the lines the CLI saved to one transcript file.
 *
 * @since 0.1.0
 * @category models
 */
export interface Frame {
  readonly filePath: string
  readonly entries: ReadonlyArray<SessionStore.Entry>
}

/**
 * The frame a message is, when it is a `transcript_mirror` frame.
 *
 * @since 0.1.0
 * @category mirroring
 */
export const frameOf = (message: unknown): Frame | undefined =>
  message instanceof SessionEvent.TranscriptMirror ? message : undefined

// The key of an error no transcript is known for.
const noKey: SessionStore.SessionKey = { projectKey: "", sessionId: "" }

const mirrorError = (error: string, key: SessionStore.SessionKey) =>
  new System.SystemMirrorError({ type: "system", subtype: "mirror_error", error, key, session_id: key.sessionId })

/**
 * Starts appending frames to the target's store in the background, in the scope: `offer` queues a frame and
 * never waits for the store; `end` says no more will come; `done` completes once every frame offered was
 * appended or reported to `onError`; `stored` once the frames offered so far were, failing when one of the
 * run's frames was not stored (the first such failure). Once an append of a transcript was not stored, the
 * transcript's later frames are not appended but reported: each entry goes on from the one before it, and
 * a store's chain with a gap would resume from the gap, every entry before it lost (issue 23). The drain after `end` has one deadline, `appendTimeout`, whatever the
 * number of frames still queued: at the deadline the append under way is given up and it and every frame
 * still queued are reported, so a run against a store that hangs ends one `appendTimeout` after its CLI.
 * `finish` is `done` for a run being closed: it waits one `appendTimeout` for the run's own `end`, then ends
 * the mirror itself (a frame offered later is reported), so it completes within two.
 *
 * @since 0.1.0
 * @category mirroring
 */
export const start = Effect.fnUntraced(function*(
  target: Target,
  onError: (error: System.SystemMirrorError) => Effect.Effect<void>
): Effect.fn.Return<{
  readonly offer: (frame: Frame) => Effect.Effect<void>
  readonly end: Effect.Effect<void>
  readonly done: Effect.Effect<void>
  readonly finish: Effect.Effect<void>
  readonly stored: Effect.Effect<void, SessionStore.SessionStoreError>
}, never, Scope.Scope> {
  const frames = yield* Queue.unbounded<Frame, Cause.Done>()
  const ended = yield* Deferred.make<void>()
  const timeout = target.appendTimeout ?? Duration.seconds(60)
  const timeoutMillis = Duration.toMillis(Duration.fromInputUnsafe(timeout))
  let offered = 0
  // How many of the offered frames were appended or reported, and who waits for a count (see `stored`).
  let handled = 0
  let waiting: Array<readonly [number, Deferred.Deferred<void>]> = []
  const handle = (frames: number) =>
    Effect.suspend(() => {
      handled += frames
      const ready = waiting.filter(([count]) => count <= handled)
      waiting = waiting.filter(([count]) => count > handled)
      return Effect.forEach(ready, ([, deferred]) => Deferred.succeed(deferred, undefined), { discard: true })
    })
  // The appends taken from the queue and not yet done: reported if the drain is cut off.
  let pending: Array<Frame> = []
  const keyOfFile = (filePath: string) => {
    const key = target.replay === true ? recordedKeyOf(filePath) : keyOf(filePath, target.configDir)
    const home = target.resumed
    return key !== undefined && home !== undefined && key.sessionId === home.sessionId ? { ...key, projectKey: home.projectKey } : key
  }
  // The first frame not stored, as a store error (the store's own when it gave one): see `stored`.
  let failure: SessionStore.SessionStoreError | undefined
  // The transcripts (by key) an append of which was not stored: their later frames are held back.
  const gapped = new Set<string>()
  const notStored = (frame: Frame, why: string) => {
    const key = keyOfFile(frame.filePath)
    failure ??= Keys.operationFailed("append", key ?? frame.filePath)(new Error(why))
    if (key !== undefined) gapped.add(Keys.keyString(key))
    return onError(mirrorError(`${why} (${Plural.plural(frame.entries.length, "entry", "entries")} not stored)`, key ?? noKey))
  }
  // Why `frame` could not be appended; `undefined` once it was.
  const append = (frame: Frame): Effect.Effect<string | undefined> => {
    const key = keyOfFile(frame.filePath)
    if (key === undefined) {
      return Effect.succeed(
        target.replay === true
          ? `${frame.filePath} is not a transcript under a projects directory`
          : `${frame.filePath} is not under ${target.configDir}/projects: the CLI's config directory differs`
      )
    }
    // Each entry goes on from the one before it (its `parentUuid`): appended after a gap, the store's chain
    // would begin again there, and a resume from the store would lose every entry before the gap.
    if (gapped.has(Keys.keyString(key))) {
      return Effect.succeed("an earlier append of this transcript was not stored, and these entries go on from it")
    }
    // A failure is retried, a timeout not (the append may still land), nor a refused fence (it stays refused).
    return bounded(target.store.append(key, frame.entries), timeout).pipe(
      Effect.retry({
        times: target.retries ?? 2,
        schedule: Schedule.exponential("20 millis"),
        while: (error) => error.reason._tag !== "Fenced"
      }),
      Effect.flatMap(Option.match({
        onSome: () => Effect.undefined,
        onNone: () => Effect.fail(timedOut("append", key, timeout, "appendTimeout"))
      })),
      Effect.catch((error) =>
        Effect.sync(() => {
          failure ??= error
          return error.message
        })
      ),
      // A store that dies on one transcript (a defect) loses that append only: the worker goes on with the
      // others' frames, and this one is a `mirror_error` like any other failure.
      Effect.catchDefect((defect) => Effect.succeed(`the store failed: ${defect instanceof Error ? defect.message : String(defect)}`))
    )
  }
  // Batched: everything queued so far, one append per transcript, in order. Eager: one append per frame.
  const batch = (queued: ReadonlyArray<Frame>): Array<Frame> => {
    if (target.flush === "eager") return [...queued]
    const byFile = new Map<string, Array<SessionStore.Entry>>()
    for (const frame of queued) {
      const entries = byFile.get(frame.filePath) ?? byFile.set(frame.filePath, []).get(frame.filePath)!
      entries.push(...frame.entries)
    }
    return [...byFile].map(([filePath, entries]) => ({ filePath, entries }))
  }
  // Takes frames and appends them in order. What is taken is `pending` at once, and each append leaves it as
  // it ends, uninterruptibly: a cut-off reports every frame taken and not done, and none twice.
  const run = (take: Effect.Effect<ReadonlyArray<Frame>, Cause.Done>) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(restore(take), (queued) => {
        pending = batch(queued)
        return Effect.forEach([...pending], (frame) =>
          Effect.flatMap(restore(append(frame)), (why) => {
            pending.shift()
            return why === undefined ? Effect.void : notStored(frame, why)
          }), { discard: true }).pipe(Effect.andThen(handle(queued.length)))
      })
    )
  const step = run(target.flush === "eager" ? Queue.takeN(frames, 1) : Queue.takeAll(frames))
  const noFrames = Effect.suspend(() =>
    target.replay === true && offered === 0
      ? onError(mirrorError(
        "the recording has no transcript_mirror frames (it was made without a sessionStore): nothing was stored",
        noKey
      ))
      : Effect.void
  )
  const worker = yield* Effect.forever(step).pipe(Effect.catchIf(Cause.isDone, () => noFrames), Effect.forkScoped)
  // At the deadline: the append under way given up, and it and the frames still queued reported.
  const cutOff = Effect.gen(function*() {
    yield* Fiber.interrupt(worker)
    const left = [...pending, ...batch(yield* Queue.clear(frames))]
    pending = []
    const why = `the store was still storing ${timeoutMillis}ms (appendTimeout) after the run ended`
    yield* Effect.forEach(left, (frame) => notStored(frame, why), { discard: true })
  })
  const end = Effect.andThen(Queue.end(frames), Deferred.succeed(ended, undefined))
  const drained = yield* Effect.raceFirst(
    Fiber.await(worker),
    Deferred.await(ended).pipe(Effect.andThen(Effect.sleep(timeout)), Effect.andThen(Effect.uninterruptible(cutOff)))
  ).pipe(Effect.forkScoped)
  const done = Effect.asVoid(Fiber.await(drained))
  return {
    offer: (frame: Frame) =>
      Effect.suspend(() => {
        offered++
        return Effect.flatMap(Queue.offer(frames, frame), (queued) => queued ? Effect.void : notStored(frame, "the frame came after the mirror ended"))
      }),
    end,
    done,
    finish: Effect.timeoutOption(done, timeout).pipe(Effect.andThen(end), Effect.andThen(done)),
    // Once the frames offered so far are appended or reported (or the mirror is done with all of them);
    // failing once any frame of the run was not stored.
    stored: Effect.suspend(() => {
      if (handled >= offered) return Effect.void
      const deferred = Deferred.makeUnsafe<void>()
      waiting.push([offered, deferred])
      return Effect.raceFirst(Deferred.await(deferred), done)
    }).pipe(Effect.andThen(Effect.suspend(() => failure === undefined ? Effect.void : Effect.fail(failure))))
  }
})

/**
 * Takes the `transcript_mirror` frames out of a message stream and appends their entries to the target's
 * store; the appends that fail after every retry are `mirror_error` messages of the stream.
 *
 * @since 0.1.0
 * @category mirroring
 */
export const mirror = (target: Target) =>
<A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A | System.SystemMirrorError, E, R> =>
  Stream.unwrap(Effect.gen(function*() {
    const errors = yield* Queue.unbounded<System.SystemMirrorError, Cause.Done>()
    const mirroring = yield* start(target, (error) => Effect.asVoid(Queue.offer(errors, error)))
    yield* Effect.forkScoped(Effect.andThen(mirroring.done, Queue.end(errors)))
    const messages = self.pipe(
      Stream.filterEffect((message) => {
        const frame = frameOf(message)
        return frame === undefined ? Effect.succeed(true) : Effect.as(mirroring.offer(frame), false)
      }),
      Stream.ensuring(mirroring.end)
    )
    return Stream.merge(messages, Stream.fromQueue(errors))
  }))

/**
 * With `resume`: the stored session (under the target's `projectKey`, else found by its id alone, see
 * `Keys.locate`) written into the target's config directory, under the project key of its
 * `cwd` with symbolic links resolved (the CLI keys its sessions by the directory it finds itself in, as the
 * SDK does), each store call bounded by `loadTimeout`. A session the store does not hold is left to the CLI;
 * a replay restores nothing. Gives back the target, with `resumed` set to the session's key in the store
 * when it was found there by its id alone, for the run's frames of that session to go there.
 *
 * @since 0.1.0
 * @category resume
 */
export const restore = (target: Target, resume: string | undefined): Effect.Effect<Target, SessionStore.SessionStoreError> =>
  resume === undefined || target.replay === true
    ? Effect.succeed(target)
    : FileSystem.FileSystem.use((fs) => fs.realPath(target.cwd)).pipe(
      Effect.orElseSucceed(() => nodePath.resolve(target.cwd)),
      Effect.flatMap((cwd) => restoreIn(target, resume, ProjectKey.fromPath(cwd))),
      Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer))
    )

const restoreIn = (target: Target, resume: string, projectKey: string) => {
  const timeout = target.loadTimeout ?? Duration.seconds(60)
  const within = <A>(self: Effect.Effect<A, SessionStore.SessionStoreError>, operation: Operation, k: SessionStore.SessionKey) =>
    Effect.flatMap(bounded(self, timeout), Option.match({
      onSome: Effect.succeed,
      onNone: () => Effect.fail(timedOut(operation, k, timeout, "loadTimeout"))
    }))
  const { findProjects } = target.store
  const store: SessionStore.Shape = {
    ...target.store,
    load: (k) => within(target.store.load(k), "load", k),
    listSubkeys: (k) => within(target.store.listSubkeys(k), "listSubkeys", k),
    findProjects: findProjects && ((id) => within(findProjects(id), "findProjects", { projectKey: "*", sessionId: id }))
  }
  return Effect.flatMap(
    storedKey(store, target.projectKey, resume, projectKey),
    ({ found, key }) =>
      Effect.map(
        SessionTransfer.materialize(store, key, { configDir: target.configDir, projectKey, onConflict: target.onConflict }),
        (held): Target => held && found ? { ...target, resumed: key } : target
      )
  )
}

// The store's key of the session to resume, and whether it was found by id alone: under the project key
// given, else found by id (a store that cannot find sessions by id looks under `cwd`'s project key; one that
// holds none leaves the resume to the CLI). The same id in several projects is `AmbiguousSession`.
const storedKey = (store: SessionStore.Shape, given: string | undefined, resume: string, projectKey: string) =>
  given !== undefined || store.findProjects === undefined
    ? Effect.succeed({ key: { projectKey: given ?? projectKey, sessionId: resume }, found: false })
    : Keys.validateKey("materialize", { sessionId: resume }).pipe(
      Effect.andThen(Keys.locate(store, resume)),
      Effect.map((key) => ({ key, found: true })),
      Effect.catchReason("SessionStoreError", "SessionNotFound", () =>
        Effect.succeed({ key: { projectKey, sessionId: resume }, found: false }))
    )

type Operation = "append" | "load" | "listSubkeys" | "findProjects"

// `self` within `duration` (`None` when it took longer), without waiting for it to stop: a store call that
// ignores interruption does not hold the run. It is interrupted in the background.
const bounded = <A, E>(self: Effect.Effect<A, E>, duration: Duration.Input): Effect.Effect<Option.Option<A>, E> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkDetach(self), (fiber) =>
      restore(Effect.timeoutOption(Fiber.join(fiber), duration)).pipe(
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) && Option.isSome(exit.value) ? Effect.void : Effect.asVoid(Effect.forkDetach(Fiber.interrupt(fiber)))
        )
      ))
  )

const timedOut = (
  operation: Operation,
  key: SessionStore.SessionKey,
  timeout: Duration.Input,
  option: string
) =>
  new SessionStore.SessionStoreError({
    reason: new SessionStore.Timeout({
      operation,
      key: Keys.keyString(key),
      timeoutMillis: Duration.toMillis(Duration.fromInputUnsafe(timeout)),
      option
    })
  })
