/**
 * The sessions the CLI keeps under its config directory (`<config dir>/projects/<project key>/<session
 * id>.jsonl`, subagents under `<session id>/subagents/agent-<agent id>.jsonl`): list them, read a session's
 * or a subagent's messages in conversation order, fork, delete, rename, tag and archive. The SDK's session
 * functions (`listSessions`, `getSessionInfo`, `getSessionMessages`, `listSubagents`, `getSubagentMessages`,
 * `forkSession`, `deleteSession`, `renameSession`, `tagSession`, `archiveSession`, `unarchiveSession`) as
 * Effects over `FileSystem`, each finding a session by its id alone unless given a project `dir`; messages
 * stream, so a transcript of any size is read in memory bounded by its ids and its longest line.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Predicate from "effect/Predicate"
import type * as PlatformError from "effect/PlatformError"
import * as Stream from "effect/Stream"
import * as Transcript from "../transcript/Transcript.ts"
import * as Walk from "../internal/walk.ts"
import { type DecodeError, isDecodeError } from "../stream/DecodeError.ts"
import type * as Ndjson from "../stream/Ndjson.ts"
import * as TranscriptDecode from "../transcript/Decode.ts"
import * as Chain from "./internal/chain.ts"
import * as Subagent from "./internal/subagent.ts"
import * as Info from "./internal/info.ts"
import * as ProjectKey from "./ProjectKey.ts"
import * as SessionFilesError from "./SessionFilesError.ts"

/**
 * @since 0.1.0
 * @category models
 */
export type SessionInfo = Info.SessionInfo

/**
 * Where to look: `dir` is a project directory (its sessions only); without it, every project, where a session
 * id found in more than one is `AmbiguousSession`.
 *
 * @since 0.1.0
 * @category models
 */
export interface LookupOptions {
  readonly dir?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ListOptions extends LookupOptions {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface MessagesOptions extends LookupOptions {
  readonly limit?: number | undefined
  readonly offset?: number | undefined
  /** Also the system entries on the conversation (compaction boundaries, API errors, notes). */
  readonly includeSystemMessages?: boolean | undefined
  /**
   * What a bad line of a transcript file does (a torn last line is what a crash leaves). `"fail"` (default):
   * the messages written before it come first, then the read fails with `BadTranscript`; `"emit"`: it is
   * left out of the conversation and passed on in-band as a {@link DecodeError}, and reading goes on.
   */
  readonly onBadLine?: Ndjson.OnBadLine | undefined
}

/**
 * A message of a session: a user or assistant entry, or a system entry when asked for.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionMessage = Transcript.MessageEntry | Transcript.SystemEntry

/**
 * A subagent transcript of a session, with what its `.meta.json` says about it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SubagentInfo {
  readonly agentId: string
  /** The transcript's path relative to the session's directory (`subagents/agent-<id>.jsonl`). */
  readonly subpath: string
  readonly agentType?: string | undefined
  readonly description?: string | undefined
  /** The Task (Agent) tool call that started it. */
  readonly toolUseId?: string | undefined
  /** 1 for a subagent of the main agent, 2 for one of a subagent, ... */
  readonly spawnDepth?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ForkOptions extends LookupOptions {
  /** The last message to copy (its `uuid`); every message when absent. */
  readonly upToMessageId?: string | undefined
  /** The fork's title; the source's title followed by " (fork)" when absent. */
  readonly title?: string | undefined
  /**
   * What a bad line of the source does (a torn last line is what a crash leaves). `"skip"` (default): it is
   * left out of the fork, as the CLI leaves it out of a resume, and its line number is in `skippedLines`;
   * `"fail"`: the fork fails with `BadTranscript`.
   */
  readonly onBadLine?: "skip" | "fail" | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /** The config directory read (`CLAUDE_CONFIG_DIR`, or `~/.claude`). */
  readonly configDir: string
  /** Sessions, most recently modified first (sidechain transcripts and sessions with nothing to show left out). */
  readonly listSessions: (options?: ListOptions) => Effect.Effect<ReadonlyArray<SessionInfo>, SessionFilesError.SessionFilesError>
  readonly getSessionInfo: (
    sessionId: string,
    options?: LookupOptions
  ) => Effect.Effect<Option.Option<SessionInfo>, SessionFilesError.SessionFilesError>
  /** Every entry of a session's transcript in file order, with its line as written. */
  readonly entries: (
    sessionId: string,
    options?: LookupOptions
  ) => Stream.Stream<TranscriptDecode.DecodedEntry, SessionFilesError.SessionFilesError>
  /**
   * A session's messages in conversation order, as the SDK's `getSessionMessages` gives them and the CLI
   * resumes them: following `parentUuid` from the last message (so from the last compaction's summary on,
   * with the messages it kept), with the other calls of parallel tool calls and their results put back after
   * their message, and a prompt queued mid-turn as a user message where the model read it.
   */
  readonly messages: {
    (sessionId: string, options: MessagesOptions & { readonly onBadLine: "emit" }): Stream.Stream<
      SessionMessage | DecodeError,
      SessionFilesError.SessionFilesError
    >
    (sessionId: string, options?: MessagesOptions): Stream.Stream<SessionMessage, SessionFilesError.SessionFilesError>
  }
  readonly listSubagents: (
    sessionId: string,
    options?: LookupOptions
  ) => Effect.Effect<ReadonlyArray<SubagentInfo>, SessionFilesError.SessionFilesError>
  /** A subagent's messages in conversation order. */
  readonly subagentMessages: {
    (sessionId: string, agentId: string, options: MessagesOptions & { readonly onBadLine: "emit" }): Stream.Stream<
      SessionMessage | DecodeError,
      SessionFilesError.SessionFilesError
    >
    (sessionId: string, agentId: string, options?: MessagesOptions): Stream.Stream<
      SessionMessage,
      SessionFilesError.SessionFilesError
    >
  }
  /**
   * Copies a session's conversation into a new session (fresh uuids, same project) the CLI can resume; the
   * source's bad lines left out are `skippedLines` (1-based).
   */
  readonly forkSession: (
    sessionId: string,
    options?: ForkOptions
  ) => Effect.Effect<
    { readonly sessionId: string; readonly skippedLines: ReadonlyArray<number> },
    SessionFilesError.SessionFilesError
  >
  /** Removes a session's transcript and its directory (subagents). */
  readonly deleteSession: (sessionId: string, options?: LookupOptions) => Effect.Effect<void, SessionFilesError.SessionFilesError>
  /**
   * Gives a session a title without a live session, as the SDK's `renameSession`: a `custom-title` line
   * appended to its transcript, which listings and the CLI read as its title from then on. A blank title is
   * `BlankText`.
   */
  readonly renameSession: (
    sessionId: string,
    title: string,
    options?: LookupOptions
  ) => Effect.Effect<void, SessionFilesError.SessionFilesError>
  /** Tags a session without a live session, as the SDK's `tagSession` (a `tag` line); `null` clears its tag. */
  readonly tagSession: (
    sessionId: string,
    tag: string | null,
    options?: LookupOptions
  ) => Effect.Effect<void, SessionFilesError.SessionFilesError>
  /**
   * Archives a session, as the SDK's `archiveSession`: a mark beside its transcript
   * (`<session id>/archived.json`); it stays listed, with `archived: true`, until a prompt is sent in it.
   * The transcript is not changed.
   */
  readonly archiveSession: (sessionId: string, options?: LookupOptions) => Effect.Effect<void, SessionFilesError.SessionFilesError>
  /** Unarchives a session: listed with `archived: false`. */
  readonly unarchiveSession: (sessionId: string, options?: LookupOptions) => Effect.Effect<void, SessionFilesError.SessionFilesError>
}

/**
 * @since 0.1.0
 * @category services
 */
export class SessionFiles extends Context.Service<SessionFiles, Shape>()("effect-claude-code/SessionFiles") {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The CLI's config directory; default `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  readonly configDir?: string | undefined
}

const fail = (reason: SessionFilesError.Reason) => new SessionFilesError.SessionFilesError({ reason })
const fsFailed = (path: string) => (cause: PlatformError.PlatformError) =>
  fail(new SessionFilesError.FileSystemFailed({ path, cause }))
const isNotFound = (error: PlatformError.PlatformError) =>
  error.reason._tag === "NotFound"

/**
 * Builds the service over the `FileSystem` and `Path` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const home = process.env.HOME ?? process.env.USERPROFILE ?? "."
  const configDir = options.configDir ?? process.env.CLAUDE_CONFIG_DIR ?? path.join(home, ".claude")
  const projectsDir = path.join(configDir, "projects")

  const checkId = (sessionId: string) =>
    ProjectKey.isSessionId(sessionId)
      ? Effect.void
      : Effect.fail(fail(new SessionFilesError.InvalidSessionId({ sessionId })))

  // The project directories to look in: the one of `dir`, or all of them.
  const projectKeys = (dir: string | undefined): Effect.Effect<ReadonlyArray<string>, SessionFilesError.SessionFilesError> =>
    dir !== undefined
      ? fs.realPath(dir).pipe(Effect.orElseSucceed(() => path.resolve(dir)), Effect.map((real) => [ProjectKey.fromPath(real)]))
      : fs.readDirectoryEntries(projectsDir).pipe(
        Effect.map((entries) => entries.filter((e) => e.type === "Directory").map((e) => e.name).sort()),
        Effect.catchIf(isNotFound, () => Effect.succeed([])),
        Effect.mapError(fsFailed(projectsDir))
      )

  const locate = (sessionId: string, dir: string | undefined) =>
    Effect.gen(function*() {
      yield* checkId(sessionId)
      const keys = yield* projectKeys(dir)
      const found = yield* Effect.filter(keys, (projectKey) =>
        fs.exists(path.join(projectsDir, projectKey, `${sessionId}.jsonl`)).pipe(Effect.orElseSucceed(() => false)))
      if (found.length === 1) return { projectKey: found[0]!, file: path.join(projectsDir, found[0]!, `${sessionId}.jsonl`) }
      return yield* fail(
        found.length === 0
          ? new SessionFilesError.SessionNotFound({ sessionId, searched: keys.map((k) => path.join(projectsDir, k)) })
          : new SessionFilesError.AmbiguousSession({ sessionId, projects: found.map((k) => path.join(projectsDir, k)) })
      )
    })

  const badTranscript = (file: string) => (error: DecodeError) => fail(new SessionFilesError.BadTranscript({ path: file, error }))

  const records = (file: string): Stream.Stream<TranscriptDecode.DecodedEntry, SessionFilesError.SessionFilesError> =>
    fs.stream(file).pipe(
      Stream.mapError(fsFailed(file)),
      TranscriptDecode.records(),
      Stream.mapError((error) => error._tag === "SessionFilesError" ? error : badTranscript(file)(error as DecodeError))
    )

  const infoOf = (projectKey: string, sessionId: string, file: string) =>
    Effect.scoped(Effect.gen(function*() {
      const handle = yield* fs.open(file)
      const stat = yield* handle.stat
      const size = Number(stat.size)
      const read = (position: number) =>
        handle.readAlloc(Info.windowBytes, { position: BigInt(position) }).pipe(
          Effect.map(Option.match({ onNone: () => "", onSome: (bytes) => new TextDecoder().decode(bytes) }))
        )
      const head = yield* read(0)
      const whole = size <= Info.windowBytes
      const tail = whole ? head : yield* read(size - Info.windowBytes)
      const info = Info.fromWindows({
        sessionId,
        projectKey,
        head,
        tail,
        whole,
        fileSize: size,
        lastModified: Option.match(stat.mtime, { onNone: () => 0, onSome: (d) => d.getTime() })
      })
      if (info === undefined) return undefined
      const archived = Info.archivedBy(yield* readMark(projectKey, sessionId), Info.windowEntries(head, tail, whole))
      return archived === undefined ? info : { ...info, archived }
    })).pipe(Effect.mapError(fsFailed(file)))

  const markFile = (projectKey: string, sessionId: string) => path.join(projectsDir, projectKey, sessionId, "archived.json")
  // A mark that cannot be read or parsed is none, as the SDK reads it.
  const readMark = (projectKey: string, sessionId: string) =>
    fs.readFileString(markFile(projectKey, sessionId)).pipe(
      Effect.map((text) => text.length > 4096 ? undefined : Info.parseMark(text)),
      Effect.orElseSucceed(() => undefined)
    )

  const listSessions = (options: ListOptions = {}) =>
    Effect.gen(function*() {
      const infos: Array<SessionInfo> = []
      for (const projectKey of yield* projectKeys(options.dir)) {
        const dir = path.join(projectsDir, projectKey)
        const names = yield* fs.readDirectory(dir).pipe(
          Effect.catchIf(isNotFound, () => Effect.succeed([] as Array<string>)),
          Effect.mapError(fsFailed(dir))
        )
        for (const name of names) {
          const sessionId = name.slice(0, -".jsonl".length)
          if (!name.endsWith(".jsonl") || !ProjectKey.isSessionId(sessionId)) continue
          const info = yield* infoOf(projectKey, sessionId, path.join(dir, name))
          if (info !== undefined) infos.push(info)
        }
      }
      infos.sort((a, b) => b.lastModified - a.lastModified || a.sessionId.localeCompare(b.sessionId))
      const offset = options.offset ?? 0
      return infos.slice(offset, options.limit === undefined ? undefined : offset + options.limit)
    })

  // A file's records with its bad lines in-band, so that what was written before one is not lost with it.
  const recordsInBand = (file: string) =>
    fs.stream(file).pipe(Stream.mapError(fsFailed(file)), TranscriptDecode.records({ onBadLine: "emit" }))

  // Fails with `BadTranscript` at the first bad line passed in-band. A bookkeeping entry that does not fit
  // (TranscriptDecode.unfitBookkeeping) holds none of the conversation: it stays in-band, and fails nothing.
  const failOnBadLine = <A>(file: string, items: Stream.Stream<A | DecodeError, SessionFilesError.SessionFilesError>) =>
    Stream.mapEffect(items, (item) =>
      isDecodeError(item) && TranscriptDecode.unfitBookkeeping(item) === undefined
        ? Effect.fail(badTranscript(file)(item))
        : Effect.succeed(item))

  const conversation = (
    file: string,
    sidechains: boolean,
    options: MessagesOptions
  ): Stream.Stream<SessionMessage | DecodeError, SessionFilesError.SessionFilesError> => {
    if (options.onBadLine === "emit") return Chain.conversation(recordsInBand(file), sidechains, options)
    // Failing at the first bad line, the chain would stop at an unfit bookkeeping line: those are left out first.
    const records = Stream.filter(recordsInBand(file), (r) => !isDecodeError(r) || TranscriptDecode.unfitBookkeeping(r) === undefined)
    return failOnBadLine(file, Chain.conversation(records, sidechains, options))
  }

  const subagentsDir = (projectKey: string, sessionId: string) => path.join(projectsDir, projectKey, sessionId)

  // The subagents of a session already located.
  const subagentsOf = (projectKey: string, sessionId: string) =>
    Effect.gen(function*() {
      const root = subagentsDir(projectKey, sessionId)
      const names = yield* Walk.files(fs, path, root, (name) => /^agent-.+\.jsonl$/.test(name)).pipe(
        Effect.catchIf(isNotFound, () => Effect.succeed([] as ReadonlyArray<string>)),
        Effect.mapError(fsFailed(root))
      )
      const out: Array<SubagentInfo> = []
      for (const subpath of names) {
        const match = /^agent-(.+)\.jsonl$/.exec(path.basename(subpath))
        if (match === null) continue
        const meta = yield* fs.readFileString(path.join(root, subpath.replace(/\.jsonl$/, ".meta.json"))).pipe(
          Effect.map((text) => JSON.parse(text) as Record<string, unknown>),
          Effect.orElseSucceed((): Record<string, unknown> => ({}))
        )
        out.push(Subagent.info(match[1]!, subpath, meta))
      }
      return out
    })

  const listSubagents = (sessionId: string, options: LookupOptions = {}) =>
    Effect.flatMap(locate(sessionId, options.dir), ({ projectKey }) => subagentsOf(projectKey, sessionId))

  const subagentMessages = (sessionId: string, agentId: string, options: MessagesOptions = {}) =>
    Stream.unwrap(Effect.gen(function*() {
      const { projectKey } = yield* locate(sessionId, options.dir)
      const agent = (yield* subagentsOf(projectKey, sessionId)).find((a) => a.agentId === agentId)
      if (agent === undefined) {
        const searched = [subagentsDir(projectKey, sessionId)]
        return yield* fail(new SessionFilesError.SessionNotFound({ sessionId, agentId, searched }))
      }
      return conversation(path.join(subagentsDir(projectKey, sessionId), agent.subpath), true, options)
    }))

  const forkSession = (sessionId: string, options: ForkOptions = {}) =>
    Effect.gen(function*() {
      const { projectKey, file } = yield* locate(sessionId, options.dir)
      const info = yield* infoOf(projectKey, sessionId, file)
      const skipped = new Set<number>()
      const source = (file: string) =>
        options.onBadLine === "fail" ? failOnBadLine(file, recordsInBand(file)) : recordsInBand(file)
      // First pass: the entries to copy (the main conversation, up to the message asked for) and their new ids.
      const copied = new Map<string, string>()
      const parents = new Map<string, string | undefined>()
      // As `messages` reads it: an entry right after skipped lines whose parent was on one of them goes on
      // from the entry copied before them.
      const bridges = new Map<string, string>()
      let last: string | undefined
      let afterBad = false
      let lastLine = Number.POSITIVE_INFINITY
      yield* Stream.runForEach(source(file), (record) =>
        Effect.sync(() => {
          if (isDecodeError(record)) {
            skipped.add(record.line)
            afterBad = true
            return
          }
          const l = Chain.link(record.entry)
          if (l === undefined || l.sidechain || record.line > lastLine) return
          if (afterBad && last !== undefined && l.parent !== undefined && !copied.has(l.parent)) {
            bridges.set(l.uuid, last)
          }
          afterBad = false
          last = l.uuid
          copied.set(l.uuid, crypto.randomUUID())
          parents.set(l.uuid, l.parent)
          if (l.uuid === options.upToMessageId) lastLine = record.line
        }))
      if (options.upToMessageId !== undefined && lastLine === Number.POSITIVE_INFINITY) {
        return yield* fail(new SessionFilesError.MessageNotFound({ sessionId, uuid: options.upToMessageId }))
      }
      const forkId = crypto.randomUUID()
      // A parent that is not copied (a sidechain entry) is skipped to its nearest copied ancestor.
      const remap = (uuid: unknown): string | null => {
        const seen = new Set<string>()
        for (let u = typeof uuid === "string" ? uuid : undefined; u !== undefined && !seen.has(u); u = parents.get(u)) {
          seen.add(u)
          const mapped = copied.get(u)
          if (mapped !== undefined) return mapped
        }
        return null
      }
      const title = options.title?.trim() || `${info?.summary ?? "Forked session"} (fork)`
      const target = path.join(projectsDir, projectKey, `${forkId}.jsonl`)
      const lines = source(file).pipe(
        Stream.filter((record): record is TranscriptDecode.DecodedEntry => {
          if (isDecodeError(record)) return false
          const l = Chain.link(record.entry)
          return l !== undefined && !l.sidechain && record.line <= lastLine
        }),
        Stream.map((record) => {
          const raw = JSON.parse(record.raw) as Record<string, unknown>
          const entry: Record<string, unknown> = {
            ...raw,
            uuid: copied.get(raw.uuid as string),
            parentUuid: remap(raw.parentUuid) ?? remap(bridges.get(raw.uuid as string)),
            sessionId: forkId,
            forkedFrom: { sessionId, messageUuid: raw.uuid }
          }
          if (typeof raw.logicalParentUuid === "string") entry.logicalParentUuid = remap(raw.logicalParentUuid)
          if (typeof raw.sourceToolAssistantUUID === "string") {
            entry.sourceToolAssistantUUID = remap(raw.sourceToolAssistantUUID) ?? raw.sourceToolAssistantUUID
          }
          if (raw.type === "system" && Predicate.isObject(raw.compactMetadata)) entry.compactMetadata = keptIn(raw.compactMetadata, copied)
          return JSON.stringify(entry) + "\n"
        }),
        Stream.concat(Stream.succeed(JSON.stringify({
          type: "custom-title",
          sessionId: forkId,
          customTitle: title,
          uuid: crypto.randomUUID(),
          timestamp: new Date().toISOString()
        }) + "\n")),
        Stream.encodeText
      )
      yield* Stream.run(lines, fs.sink(target)).pipe(
        Effect.mapError((e) => e._tag === "SessionFilesError" ? e : fsFailed(target)(e))
      )
      return { sessionId: forkId, skippedLines: [...skipped] }
    })

  const deleteSession = (sessionId: string, options: LookupOptions = {}) =>
    Effect.gen(function*() {
      const { projectKey, file } = yield* locate(sessionId, options.dir)
      yield* fs.remove(file).pipe(Effect.mapError(fsFailed(file)))
      const dir = subagentsDir(projectKey, sessionId)
      yield* fs.remove(dir, { recursive: true }).pipe(
        Effect.catchIf(isNotFound, () => Effect.void),
        Effect.mapError(fsFailed(dir))
      )
    })

  // A line appended to a session's transcript, on a line of its own even after a torn last line.
  const appendLine = (sessionId: string, entry: Record<string, unknown>, dir: string | undefined) =>
    Effect.gen(function*() {
      const { file } = yield* locate(sessionId, dir)
      const last = yield* Effect.scoped(Effect.gen(function*() {
        const handle = yield* fs.open(file)
        const size = Number((yield* handle.stat).size)
        return size === 0 ? Option.none() : yield* handle.readAlloc(1, { position: BigInt(size - 1) })
      })).pipe(Effect.mapError(fsFailed(file)))
      const torn = Option.isSome(last) && last.value[0] !== 0x0a
      yield* fs.writeFileString(file, `${torn ? "\n" : ""}${JSON.stringify(entry)}\n`, { flag: "a" }).pipe(Effect.mapError(fsFailed(file)))
    })

  const blank = (sessionId: string, field: "title" | "tag") => fail(new SessionFilesError.BlankText({ sessionId, field }))

  const renameSession = (sessionId: string, title: string, options: LookupOptions = {}) =>
    title.trim() === ""
      ? Effect.fail(blank(sessionId, "title"))
      : appendLine(sessionId, { type: "custom-title", customTitle: title.trim(), sessionId }, options.dir)

  const tagSession = (sessionId: string, tag: string | null, options: LookupOptions = {}) => {
    // Control characters are no part of a tag.
    const text = tag?.replace(/[\u0000-\u001f\u007f]/g, "").trim() ?? ""
    return tag !== null && text === ""
      ? Effect.fail(blank(sessionId, "tag"))
      : appendLine(sessionId, { type: "tag", tag: text, sessionId }, options.dir)
  }

  const setArchived = (archived: boolean) => (sessionId: string, options: LookupOptions = {}) =>
    Effect.gen(function*() {
      const { projectKey } = yield* locate(sessionId, options.dir)
      const file = markFile(projectKey, sessionId)
      const text = JSON.stringify({ archived, at: new Date().toISOString(), by: "sdk" })
      yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
        Effect.andThen(fs.writeFileString(`${file}.tmp`, text, { mode: 0o600 })),
        Effect.andThen(fs.rename(`${file}.tmp`, file)),
        Effect.mapError(fsFailed(file))
      )
    })

  return SessionFiles.of({
    configDir,
    listSessions,
    getSessionInfo: (sessionId, options = {}) =>
      locate(sessionId, options.dir).pipe(
        Effect.flatMap(({ file, projectKey }) => infoOf(projectKey, sessionId, file)),
        Effect.map(Option.fromUndefinedOr),
        Effect.catchReason("SessionFilesError", "SessionNotFound", () => Effect.succeed(Option.none()))
      ),
    entries: (sessionId, options = {}) =>
      Stream.unwrap(Effect.map(locate(sessionId, options.dir), ({ file }) => records(file))),
    // One implementation for both overloads: bad lines are in-band only with `onBadLine: "emit"`.
    messages: ((sessionId: string, options: MessagesOptions = {}) =>
      Stream.unwrap(Effect.map(locate(sessionId, options.dir), ({ file }) => conversation(file, false, options)))) as Shape["messages"],
    listSubagents,
    subagentMessages: subagentMessages as Shape["subagentMessages"],
    forkSession,
    deleteSession,
    renameSession,
    tagSession,
    archiveSession: setArchived(true),
    unarchiveSession: setArchived(false)
  })
})

// A compaction's metadata with the uuids of the messages it kept given their copies' (as the SDK's fork
// does), so the fork reads them after its summary too.
const keptIn = (metadata: Record<string, unknown>, copied: ReadonlyMap<string, string>) => {
  const { preservedMessages, preservedSegment, runningTurnSends: _, ...rest } = metadata
  const id = (value: unknown) => typeof value === "string" ? copied.get(value) ?? value : value
  const ids = (value: unknown, keys: ReadonlyArray<string>) => {
    if (!Predicate.isObject(value)) return value
    const out: Record<string, unknown> = { ...value }
    for (const key of keys) if (key in out) out[key] = Array.isArray(out[key]) ? (out[key] as Array<unknown>).map(id) : id(out[key])
    return out
  }
  return {
    ...rest,
    ...(preservedMessages !== undefined && { preservedMessages: ids(preservedMessages, ["anchorUuid", "uuids", "allUuids"]) }),
    ...(preservedSegment !== undefined && { preservedSegment: ids(preservedSegment, ["headUuid", "anchorUuid", "tailUuid"]) })
  }
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<SessionFiles, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(SessionFiles, make(options))
