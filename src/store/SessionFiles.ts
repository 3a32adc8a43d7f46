/**
 * {@link Sessions.Sessions} over the sessions the CLI keeps under its config directory (`<config
 * dir>/projects/<project key>/<session id>.jsonl`, subagents under `<session
 * id>/subagents/agent-<agent id>.jsonl`), as Effects over `FileSystem`. A session id names a file here: one
 * that is not a UUID is `InvalidKey`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Predicate from "effect/Predicate"
import type * as PlatformError from "effect/PlatformError"
import * as Stream from "effect/Stream"
import * as Walk from "../internal/walk.ts"
import { type DecodeError, isDecodeError } from "../stream/DecodeError.ts"
import * as FileBytes from "../stream/internal/fileBytes.ts"
import * as TranscriptDecode from "../transcript/Decode.ts"
import * as Chain from "./internal/chain.ts"
import * as Info from "./internal/info.ts"
import * as Blank from "./internal/blank.ts"
import * as Keys from "./internal/keys.ts"
import * as Listing from "./internal/listing.ts"
import * as Subagent from "./internal/subagent.ts"
import * as ProjectKey from "./ProjectKey.ts"
import * as Sessions from "./Sessions.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The CLI's config directory; default `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  readonly configDir?: string | undefined
}

type Operation = SessionStore.Operation
type Failure = SessionStore.SessionStoreError

const fail = (reason: SessionStore.Reason) => new SessionStore.SessionStoreError({ reason })
// A file that could not be read, written or removed: `OperationFailed` naming it.
const fsFailed = (operation: Operation, path: string) => (cause: PlatformError.PlatformError) =>
  fail(new SessionStore.OperationFailed({ operation, key: path, cause }))
const isNotFound = (error: PlatformError.PlatformError) =>
  error.reason._tag === "NotFound"

/**
 * Builds {@link Sessions.Sessions} over the config directory, with the `FileSystem` and `Path` in context.
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

  // A session id names a file: anything but a UUID could point outside the projects directory.
  const checkId = (operation: Operation, sessionId: string) =>
    ProjectKey.isSessionId(sessionId)
      ? Effect.void
      : Effect.fail(fail(new SessionStore.InvalidKey({ operation, field: "sessionId", value: sessionId, detail: "it is not a UUID" })))

  // The project directories to look in: the one named, or all of them.
  const projectKeys = (operation: Operation, lookup: Sessions.LookupOptions): Effect.Effect<ReadonlyArray<string>, Failure> => {
    const { dir, projectKey } = lookup
    return projectKey !== undefined
      ? Effect.as(Keys.validateKey(operation, { projectKey }), [projectKey])
      : dir !== undefined
      ? fs.realPath(dir).pipe(Effect.orElseSucceed(() => path.resolve(dir)), Effect.map((real) => [ProjectKey.fromPath(real)]))
      : fs.readDirectoryEntries(projectsDir).pipe(
        Effect.map((entries) => entries.filter((e) => e.type === "Directory").map((e) => e.name).sort()),
        Effect.catchIf(isNotFound, () => Effect.succeed([])),
        Effect.mapError(fsFailed(operation, projectsDir))
      )
  }

  const locate = (operation: Operation, sessionId: string, lookup: Sessions.LookupOptions) =>
    Effect.gen(function*() {
      yield* checkId(operation, sessionId)
      const keys = yield* projectKeys(operation, lookup)
      const found = yield* Effect.filter(keys, (projectKey) =>
        fs.exists(path.join(projectsDir, projectKey, `${sessionId}.jsonl`)).pipe(Effect.orElseSucceed(() => false)))
      if (found.length === 1) return { projectKey: found[0]!, file: path.join(projectsDir, found[0]!, `${sessionId}.jsonl`) }
      return yield* fail(
        found.length === 0
          ? new SessionStore.SessionNotFound({ sessionId, searched: keys.map((k) => path.join(projectsDir, k)) })
          : new SessionStore.AmbiguousSession({
            sessionId,
            projectKeys: found,
            directories: found.map((k) => path.join(projectsDir, k))
          })
      )
    })

  const badTranscript = (file: string) => (error: DecodeError) => fail(new SessionStore.BadTranscript({ path: file, error }))

  const records = (file: string): Stream.Stream<TranscriptDecode.DecodedEntry, Failure> =>
    FileBytes.stream(fs, file).pipe(
      Stream.mapError(fsFailed("load", file)),
      TranscriptDecode.records(),
      Stream.mapError((error) => error._tag === "SessionStoreError" ? error : badTranscript(file)(error as DecodeError))
    )

  const infoOf = (projectKey: string, sessionId: string, file: string) =>
    Effect.scoped(Effect.gen(function*() {
      const handle = yield* fs.open(file)
      const stat = yield* handle.stat
      const size = Number(stat.size)
      const read = (position: number) =>
        handle.readAlloc(Listing.windowBytes, { position: BigInt(position) }).pipe(
          Effect.map(Option.match({ onNone: () => "", onSome: (bytes) => new TextDecoder().decode(bytes) }))
        )
      const head = yield* read(0)
      const whole = size <= Listing.windowBytes
      const tail = whole ? head : yield* read(size - Listing.windowBytes)
      const info = Listing.fromWindows({
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
    })).pipe(Effect.mapError(fsFailed("load", file)))

  const markFile = (projectKey: string, sessionId: string) => path.join(projectsDir, projectKey, sessionId, "archived.json")
  // A mark that cannot be read or parsed is none, as the SDK reads it.
  const readMark = (projectKey: string, sessionId: string) =>
    fs.readFileString(markFile(projectKey, sessionId)).pipe(
      Effect.map((text) => text.length > 4096 ? undefined : Info.parseMark(text)),
      Effect.orElseSucceed(() => undefined)
    )

  const listSessions = (options: Sessions.ListOptions = {}) =>
    Effect.gen(function*() {
      const infos: Array<SessionStore.SessionInfo> = []
      for (const projectKey of yield* projectKeys("listSessions", options)) {
        const dir = path.join(projectsDir, projectKey)
        const names = yield* fs.readDirectory(dir).pipe(
          Effect.catchIf(isNotFound, () => Effect.succeed([] as Array<string>)),
          Effect.mapError(fsFailed("listSessions", dir))
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
    FileBytes.stream(fs, file).pipe(Stream.mapError(fsFailed("load", file)), TranscriptDecode.records({ onBadLine: "emit" }))

  // Fails with `BadTranscript` at the first bad line passed in-band. A bookkeeping entry that does not fit
  // (TranscriptDecode.unfitBookkeeping) holds none of the conversation: it stays in-band, and fails nothing.
  const failOnBadLine = <A>(file: string, items: Stream.Stream<A | DecodeError, Failure>) =>
    Stream.mapEffect(items, (item) =>
      isDecodeError(item) && TranscriptDecode.unfitBookkeeping(item) === undefined
        ? Effect.fail(badTranscript(file)(item))
        : Effect.succeed(item))

  const conversation = (
    file: string,
    sidechains: boolean,
    options: Sessions.MessagesOptions
  ): Stream.Stream<Sessions.SessionMessage | DecodeError, Failure> => {
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
        Effect.mapError(fsFailed("listSubkeys", root))
      )
      const out: Array<Sessions.SubagentInfo> = []
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

  const listSubagents = (sessionId: string, options: Sessions.LookupOptions = {}) =>
    Effect.flatMap(locate("listSubkeys", sessionId, options), ({ projectKey }) => subagentsOf(projectKey, sessionId))

  const subagentMessages = (sessionId: string, agentId: string, options: Sessions.MessagesOptions = {}) =>
    Stream.unwrap(Effect.gen(function*() {
      const { projectKey } = yield* locate("load", sessionId, options)
      const agent = (yield* subagentsOf(projectKey, sessionId)).find((a) => a.agentId === agentId)
      if (agent === undefined) {
        const searched = [subagentsDir(projectKey, sessionId)]
        return yield* fail(new SessionStore.SessionNotFound({ sessionId, agentId, searched }))
      }
      return conversation(path.join(subagentsDir(projectKey, sessionId), agent.subpath), true, options)
    }))

  const forkSession = (sessionId: string, options: Sessions.ForkOptions = {}) =>
    Effect.gen(function*() {
      const { projectKey, file } = yield* locate("fork", sessionId, options)
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
        return yield* fail(new SessionStore.MessageNotFound({ sessionId, uuid: options.upToMessageId }))
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
        Effect.mapError((e) => e._tag === "SessionStoreError" ? e : fsFailed("fork", target)(e))
      )
      return { sessionId: forkId, skippedLines: [...skipped] }
    })

  const deleteSession = (sessionId: string, options: Sessions.LookupOptions = {}) =>
    Effect.gen(function*() {
      const { projectKey, file } = yield* locate("delete", sessionId, options)
      yield* fs.remove(file).pipe(Effect.mapError(fsFailed("delete", file)))
      const dir = subagentsDir(projectKey, sessionId)
      yield* fs.remove(dir, { recursive: true }).pipe(
        Effect.catchIf(isNotFound, () => Effect.void),
        Effect.mapError(fsFailed("delete", dir))
      )
    })

  // A line appended to a session's transcript, on a line of its own even after a torn last line.
  const appendLine = (sessionId: string, entry: Record<string, unknown>, lookup: Sessions.LookupOptions) =>
    Effect.gen(function*() {
      const { file } = yield* locate("append", sessionId, lookup)
      const last = yield* Effect.scoped(Effect.gen(function*() {
        const handle = yield* fs.open(file)
        const size = Number((yield* handle.stat).size)
        return size === 0 ? Option.none() : yield* handle.readAlloc(1, { position: BigInt(size - 1) })
      })).pipe(Effect.mapError(fsFailed("append", file)))
      const torn = Option.isSome(last) && last.value[0] !== 0x0a
      yield* fs.writeFileString(file, `${torn ? "\n" : ""}${JSON.stringify(entry)}\n`, { flag: "a" }).pipe(Effect.mapError(fsFailed("append", file)))
    })

  const renameSession = (sessionId: string, title: string, options: Sessions.LookupOptions = {}) =>
    title.trim() === ""
      ? Effect.fail(Blank.blank(sessionId, "title"))
      : appendLine(sessionId, { type: "custom-title", customTitle: title.trim(), sessionId }, options)

  const tagSession = (sessionId: string, tag: string | null, options: Sessions.LookupOptions = {}) => {
    // Control characters are no part of a tag.
    const text = tag?.replace(/[\u0000-\u001f\u007f]/g, "").trim() ?? ""
    return tag !== null && text === ""
      ? Effect.fail(Blank.blank(sessionId, "tag"))
      : appendLine(sessionId, { type: "tag", tag: text, sessionId }, options)
  }

  const setArchived = (archived: boolean) => (sessionId: string, options: Sessions.LookupOptions = {}) =>
    Effect.gen(function*() {
      const { projectKey } = yield* locate("append", sessionId, options)
      const file = markFile(projectKey, sessionId)
      const text = JSON.stringify({ archived, at: new Date().toISOString(), by: "sdk" })
      yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
        Effect.andThen(fs.writeFileString(`${file}.tmp`, text, { mode: 0o600 })),
        Effect.andThen(fs.rename(`${file}.tmp`, file)),
        Effect.mapError(fsFailed("append", file))
      )
    })

  return Sessions.Sessions.of({
    listSessions,
    getSessionInfo: (sessionId, options = {}) =>
      locate("load", sessionId, options).pipe(
        Effect.flatMap(({ file, projectKey }) => infoOf(projectKey, sessionId, file)),
        Effect.map(Option.fromUndefinedOr),
        Effect.catchReason("SessionStoreError", "SessionNotFound", () => Effect.succeed(Option.none()))
      ),
    entries: (sessionId, options = {}) =>
      Stream.unwrap(Effect.map(locate("load", sessionId, options), ({ file }) => records(file))),
    // One implementation for both overloads: bad lines are in-band only with `onBadLine: "emit"`.
    messages: ((sessionId: string, options: Sessions.MessagesOptions = {}) =>
      Stream.unwrap(Effect.map(locate("load", sessionId, options), ({ file }) => conversation(file, false, options)))) as Sessions.Shape["messages"],
    listSubagents,
    subagentMessages: subagentMessages as Sessions.Shape["subagentMessages"],
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
 * {@link Sessions.Sessions} over the config directory (see {@link make}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Sessions.Sessions, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(Sessions.Sessions, make(options))
