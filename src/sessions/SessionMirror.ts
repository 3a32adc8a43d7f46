/**
 * Mirrors a running session into a {@link SessionStore.Shape}: with `--session-mirror` the CLI writes each
 * batch of transcript lines it saves as a `transcript_mirror` frame on stdout (`{ filePath, entries }`);
 * {@link mirror} takes those frames out of the message stream and appends them to the store in the
 * background, batched per transcript, retried with backoff. The stream never waits for the store; an append
 * that still fails becomes a {@link MirrorError} in the stream, and the run goes on.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as Scope from "effect/Scope"
import * as ClaudeCli from "../ClaudeCli.ts"
import type * as ClaudeCliError from "../ClaudeCliError.ts"
import type * as QueryOptions from "../QueryOptions.ts"
import type * as Message from "../schema/Message.ts"
import type * as Session from "../session/Session.ts"
import type * as SessionError from "../session/SessionError.ts"
import * as ProjectKey from "./ProjectKey.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * The flag that makes the CLI write `transcript_mirror` frames (pass it in `extraArgs`).
 *
 * @since 0.1.0
 * @category constants
 */
export const flag = "--session-mirror"

/**
 * A batch of transcript lines the store did not take after every retry (the SDK's `mirror_error`).
 *
 * @since 0.1.0
 * @category models
 */
export class MirrorError extends Schema.Class<MirrorError>("effect-claude-code/MirrorError")({
  _tag: Schema.tag("MirrorError"),
  type: Schema.Literal("system"),
  subtype: Schema.Literal("mirror_error"),
  error: Schema.String,
  key: Schema.Struct({
    projectKey: Schema.String,
    sessionId: Schema.String,
    subpath: Schema.optionalKey(Schema.String)
  }),
  /** How many entries were not stored. */
  entries: Schema.Number
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The CLI's config directory (`CLAUDE_CONFIG_DIR`): frames name files under its `projects/`. */
  readonly configDir: string
  /** Retries after a failed append (default 2: three attempts, as the SDK). */
  readonly retries?: number | undefined
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

interface Frame {
  readonly filePath: string
  readonly entries: ReadonlyArray<SessionStore.Entry>
}

const frameOf = (message: Message.Message): Frame | undefined => {
  if (message._tag !== "UnknownMessage" || message.raw.type !== "transcript_mirror") return undefined
  const { filePath, entries } = message.raw
  return typeof filePath === "string" && Array.isArray(entries) ? { filePath, entries } : undefined
}

/**
 * Takes the `transcript_mirror` frames out of a message stream and appends their entries to `store`.
 *
 * @example
 * ```ts
 * import { ClaudeCli } from "effect-claude-code"
 * import { SessionMirror, SessionStore } from "effect-claude-code/sessions"
 * declare const store: SessionStore.Shape
 * const messages = ClaudeCli.query("Hello", { extraArgs: [SessionMirror.flag] }).pipe(
 *   SessionMirror.mirror(store, { configDir: "/home/me/.claude" })
 * )
 * ```
 *
 * @since 0.1.0
 * @category mirroring
 */
export const mirror = (store: SessionStore.Shape, options: Options) =>
<E, R>(self: Stream.Stream<Message.Message, E, R>): Stream.Stream<Message.Message | MirrorError, E, R> =>
  Stream.unwrap(Effect.gen(function*() {
    const frames = yield* Queue.unbounded<Frame, Cause.Done>()
    const errors = yield* Queue.unbounded<MirrorError, Cause.Done>()
    const append = (key: SessionStore.SessionKey, entries: ReadonlyArray<SessionStore.Entry>) =>
      store.append(key, entries).pipe(
        Effect.retry({ times: options.retries ?? 2, schedule: Schedule.exponential("20 millis") }),
        Effect.catch((error) => Queue.offer(errors, new MirrorError({ type: "system", subtype: "mirror_error", error: error.message, key, entries: entries.length })))
      )
    // Everything queued so far, one append per transcript (in order), until the stream has ended.
    const worker = Effect.gen(function*() {
      while (true) {
        const batch = yield* Queue.takeAll(frames)
        const byFile = new Map<string, Array<SessionStore.Entry>>()
        for (const frame of batch) {
          const entries = byFile.get(frame.filePath) ?? byFile.set(frame.filePath, []).get(frame.filePath)!
          entries.push(...frame.entries)
        }
        for (const [filePath, entries] of byFile) {
          const key = keyOf(filePath, options.configDir)
          if (key === undefined) {
            yield* Queue.offer(errors, new MirrorError({
              type: "system",
              subtype: "mirror_error",
              error: `${filePath} is not under ${options.configDir}/projects: the CLI's config directory differs`,
              key: { projectKey: "", sessionId: "" },
              entries: entries.length
            }))
          } else {
            yield* append(key, entries)
          }
        }
      }
    }).pipe(Effect.catchIf(Cause.isDone, () => Effect.void), Effect.ensuring(Queue.end(errors)))
    yield* Effect.forkScoped(worker)
    const messages = self.pipe(
      Stream.filterEffect((message) => {
        const frame = frameOf(message)
        return frame === undefined ? Effect.succeed(true) : Effect.as(Queue.offer(frames, frame), false)
      }),
      Stream.ensuring(Queue.end(frames))
    )
    return Stream.merge(messages, Stream.fromQueue(errors))
  }))

/**
 * Where a query keeps its session besides the CLI's config directory.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreOptions {
  readonly store: SessionStore.Shape
  /** The CLI's config directory (`CLAUDE_CONFIG_DIR`, else `~/.claude`). */
  readonly configDir: string
  /** The directory the CLI runs in: its sessions' project key. */
  readonly cwd: string
  /** The store's project key of the session to resume, when it ran in another directory (default: `cwd`'s). */
  readonly projectKey?: string | undefined
  readonly retries?: number | undefined
}

/**
 * A query whose session is mirrored into a store: with `resume`, the stored session is first written into
 * the config directory (so that a machine that never saw it resumes it); then the CLI runs with
 * {@link flag} and its frames go to the store (see {@link mirror}).
 *
 * @since 0.1.0
 * @category mirroring
 */
export const query = (
  prompt: string,
  options: QueryOptions.QueryOptions & { readonly sessionStore: StoreOptions }
): Stream.Stream<
  Message.Message | MirrorError,
  ClaudeCliError.ClaudeCliError | SessionStore.SessionStoreError,
  ClaudeCli.ClaudeCli | FileSystem.FileSystem | Path.Path
> =>
  Stream.unwrap(Effect.gen(function*() {
    const { sessionStore, ...queryOptions } = options
    yield* restore(sessionStore, queryOptions.resume)
    return ClaudeCli.query(prompt, { ...queryOptions, extraArgs: [...(queryOptions.extraArgs ?? []), flag] }).pipe(
      mirror(sessionStore.store, { configDir: sessionStore.configDir, retries: sessionStore.retries })
    )
  }))

// With `resume`: the stored session written into the config directory, under the project key of `cwd`.
const restore = (options: StoreOptions, resume: string | undefined) => {
  if (resume === undefined) return Effect.void
  const projectKey = ProjectKey.fromPath(options.cwd)
  return Effect.asVoid(SessionStore.materialize(
    options.store,
    { projectKey: options.projectKey ?? projectKey, sessionId: resume },
    { configDir: options.configDir, projectKey }
  ))
}

// How long closing a mirrored session waits for the CLI to end and its last frames to be stored.
const closeTimeout = "30 seconds"

/**
 * A session whose transcript is mirrored into a store, as {@link query} does for one prompt: the
 * `transcript_mirror` frames still reach the session's readers (as unknown messages); the appends that
 * failed after every retry come out of `mirrorErrors`. Closing the scope closes the session and waits (up to
 * 30 seconds) for its last frames to be stored.
 *
 * @since 0.1.0
 * @category mirroring
 */
export const session = (
  options: Session.Options & { readonly sessionStore: StoreOptions }
): Effect.Effect<
  { readonly session: Session.Session; readonly mirrorErrors: Stream.Stream<MirrorError> },
  ClaudeCliError.ClaudeCliError | SessionError.SessionError | SessionStore.SessionStoreError,
  ClaudeCli.ClaudeCli | FileSystem.FileSystem | Path.Path | Scope.Scope
> =>
  Effect.gen(function*() {
    const { sessionStore, ...sessionOptions } = options
    yield* restore(sessionStore, sessionOptions.resume)
    const session = yield* ClaudeCli.session({ ...sessionOptions, extraArgs: [...(sessionOptions.extraArgs ?? []), flag] })
    // Subscribed before any prompt is sent: no frame is missed.
    const output = yield* session.subscribe
    const errors = yield* Queue.unbounded<MirrorError, Cause.Done>()
    const mirroring = yield* output.pipe(
      mirror(sessionStore.store, { configDir: sessionStore.configDir, retries: sessionStore.retries }),
      Stream.runForEach((message) => message._tag === "MirrorError" ? Queue.offer(errors, message) : Effect.void),
      Effect.ignore,
      Effect.ensuring(Queue.end(errors)),
      Effect.forkScoped
    )
    // Runs before the scope stops the fibers above: the CLI ends, its last frames are stored, then the scope goes on.
    yield* Effect.addFinalizer(() =>
      session.close.pipe(Effect.andThen(Fiber.join(mirroring)), Effect.timeout(closeTimeout), Effect.ignore)
    )
    return { session, mirrorErrors: Stream.fromQueue(errors) }
  })
