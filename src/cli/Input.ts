/**
 * Where `view` and `stats` read from: a file (stream-json or a session transcript, told apart by its first
 * lines), a directory of them, standard input (`-`), or a growing file (`--follow`). Failures to read become a {@link CliFailure.CliFailure} naming the file and why.
 *
 * @since 0.1.0
 */
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Predicate from "effect/Predicate"
import * as Sink from "effect/Sink"
import type * as PlatformError from "effect/PlatformError"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as nodeFs from "node:fs"
import * as net from "node:net"
import * as Walk from "../internal/walk.ts"
import * as Decode from "../stream/Decode.ts"
import { type DecodeError, isDecodeError } from "../stream/DecodeError.ts"
import * as FileBytes from "../stream/internal/fileBytes.ts"
import * as TranscriptDecode from "../transcript/Decode.ts"
import * as TranscriptDetect from "../transcript/Detect.ts"
import * as Head from "../transcript/internal/head.ts"
import * as TranscriptMessages from "../transcript/Messages.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Style from "./Style.ts"

/**
 * How often `--follow` looks for new bytes once it has read everything.
 *
 * @since 0.1.0
 * @category constants
 */
export const followInterval = "200 millis"

// A file that grows under `--follow` is read as it is written, in small reads.
const followReadSize = 64 * 1024

/**
 * How messages name an input: `standard input` for `-`, the path otherwise.
 *
 * @since 0.1.0
 * @category formatting
 */
export const nameOf = (file: string): string => file === "-" ? "standard input" : file

/**
 * What input in which nothing decodes is (either format is accepted).
 *
 * @since 0.1.0
 * @category formatting
 */
export const neither = "neither stream-json nor a session transcript"

/**
 * A read failure as a {@link CliFailure.CliFailure} that names the file and why.
 *
 * @since 0.1.0
 * @category errors
 */
export const unreadable = (file: string) => (error: PlatformError.PlatformError): CliFailure.CliFailure =>
  CliFailure.make("BadInput", `Cannot read ${file}: ${why(error)}`, error)

/**
 * Why a file could not be read, in a few words: `no such file`, `permission denied`, ...
 *
 * @since 0.1.0
 * @category formatting
 */
export const why = (error: PlatformError.PlatformError): string => {
  const reason = error.reason
  return reason._tag === "NotFound"
    ? "no such file"
    : reason._tag === "PermissionDenied"
    ? "permission denied"
    : reason._tag === "BadArgument"
    ? reason.message
    : reason.description ?? reason._tag
}

// A named pipe waits for a writer. Opened without blocking and read through the event loop, so that an
// interrupt (Ctrl-C, SIGTERM) ends the wait: a blocking open would hold a worker thread, and the process, forever.
const fifo = (file: string): Stream.Stream<Uint8Array, CliFailure.CliFailure | PlatformError.PlatformError> =>
  Stream.unwrap(Effect.try({
    try: () => nodeFs.openSync(file, nodeFs.constants.O_RDONLY | nodeFs.constants.O_NONBLOCK),
    catch: (error) => CliFailure.make("BadInput", `Cannot read ${file}: ${(error as Error).message}`, error)
  }).pipe(Effect.map((fd) =>
    NodeStream.fromReadable<Uint8Array, CliFailure.CliFailure>({
      evaluate: () => new net.Socket({ fd, readable: true, writable: false }),
      onError: (error) => CliFailure.make("BadInput", `Cannot read ${file}: ${(error as Error).message}`, error)
    })
  )))

/**
 * The bytes of `file`, or of standard input when `file` is `-`. With `follow`, keeps reading as the file
 * grows (like `tail -f`) until interrupted. A named pipe (FIFO) is read as it is written, until its writers
 * close it, and waiting for one never blocks an interrupt; other special files (devices, sockets,
 * directories) fail with `BadInput` naming their kind.
 *
 * @since 0.1.0
 * @category constructors
 */
export const bytes = (
  file: string,
  options: { readonly follow?: boolean | undefined } = {}
): Stream.Stream<Uint8Array, CliFailure.CliFailure, FileSystem.FileSystem | Stdio.Stdio> => {
  if (file === "-") {
    return Stream.unwrap(Effect.map(Stdio.Stdio, (stdio) => stdio.stdin)).pipe(
      Stream.mapError(unreadable(nameOf(file)))
    )
  }
  return Stream.unwrap(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(file)
    if (info.type === "FIFO") return fifo(file)
    if (info.type !== "File") {
      return yield* CliFailure.make("BadInput", `Cannot read ${file}: it is ${Walk.kinds[info.type]}, not a file`)
    }
    if (options.follow !== true) return FileBytes.stream(fs, file)
    const handle = yield* fs.open(file)
    const next: Effect.Effect<Uint8Array, PlatformError.PlatformError> = Effect.suspend(() =>
      handle.readAlloc(followReadSize).pipe(
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          // At the end of what is written so far: wait, then look again.
          onNone: () => Effect.andThen(Effect.sleep(followInterval), next)
        }))
      )
    )
    return Stream.fromEffectRepeat(next)
  }).pipe(Effect.mapError((e) => CliFailure.isCliFailure(e) ? e : unreadable(file)(e)))).pipe(
    Stream.mapError((e) => CliFailure.isCliFailure(e) ? e : unreadable(file)(e))
  )
}

/**
 * How much of an input is read looking for a JSON line before it is given up as not stream-json.
 *
 * @since 0.1.0
 * @category constants
 */
export const sniffBytes = 256 * 1024

const isSpace = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0xef || byte === 0xbb || byte === 0xbf

// Whether a complete line is a JSON object (what a stream-json line is before its schema is checked).
const isJsonLine = (line: Uint8Array): boolean => {
  let start = 0
  while (start < line.length && isSpace(line[start]!)) start++
  if (line[start] !== 0x7b) return false
  try {
    return typeof JSON.parse(new TextDecoder().decode(line.subarray(start))) === "object"
  } catch {
    return false
  }
}

/**
 * Fails with `BadInput` once the first {@link sniffBytes} of the input hold no line that is a JSON object
 * (a line that starts like one is read to its end first), so that a large binary file is not read to its
 * end to learn that it is not stream-json. Once a JSON line is seen, the bytes pass through untouched.
 *
 * @since 0.1.0
 * @category combinators
 */
export const giveUpUnlessJson = (name: string, limit: number = sniffBytes) =>
<E, R>(self: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Uint8Array, E | CliFailure.CliFailure, R> =>
  Stream.suspend(() => {
    let found = false
    let seen = 0
    // The line being read, kept only while it may still be JSON.
    let pending: Array<Uint8Array> = []
    let pendingStart = true
    // Where the pending line started in the input.
    let pendingAt = 0
    const scan = (chunk: Uint8Array): void => {
      let from = 0
      for (let i = 0; i < chunk.length && !found; i++) {
        if (chunk[i] !== 0x0a) continue
        pending.push(chunk.subarray(from, i))
        found = pendingStart && isJsonLine(Buffer.concat(pending))
        pending = []
        pendingStart = true
        from = i + 1
      }
      if (found || from >= chunk.length) return
      const rest = chunk.subarray(from)
      if (pending.length === 0) pendingAt = seen + from
      if (pendingStart) {
        const first = pending.length === 0 ? rest.find((b) => !isSpace(b)) : 0x7b
        pendingStart = first === undefined || first === 0x7b
        pending = pendingStart ? [...pending, rest] : []
      }
    }
    return Stream.mapEffect(self, (chunk) => {
      if (found) return Effect.succeed(chunk)
      scan(chunk)
      seen += chunk.length
      // Past the limit, only a line that started as JSON within it is read on (to its end).
      return found || seen < limit || (pendingStart && pending.length > 0 && pendingAt < limit)
        ? Effect.succeed(chunk)
        : Effect.fail(
          CliFailure.make("BadInput", `${name} is ${neither}: no JSON line in its first ${Math.round(limit / 1024)} KB`)
        )
    })
  })

/**
 * The files an argument names, and notes on what a directory held that was left out (see {@link expand}).
 *
 * @since 0.1.0
 * @category models
 */
export interface Listing {
  readonly files: ReadonlyArray<string>
  readonly notes: ReadonlyArray<string>
}

/**
 * The files an argument names: the file itself, or every `.jsonl` file under a directory (a project directory
 * of `~/.claude/projects`, or all of them), sorted. A link to a directory is followed once per real path (a
 * loop ends there); special files named `.jsonl` (a named pipe would wait for a writer) are left out. Each
 * left out is named in {@link Listing.notes}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const listing = (file: string): Effect.Effect<Listing, CliFailure.CliFailure, FileSystem.FileSystem | Path.Path> =>
  file === "-"
    ? Effect.succeed({ files: [file], notes: [] })
    : Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const info = yield* fs.stat(file)
      if (info.type !== "Directory") return { files: [file], notes: [] }
      const walked = yield* Walk.walk(fs, yield* Path.Path, file, (name) => name.endsWith(".jsonl"))
      const dir = file.replace(/\/+$/, "")
      const notes = walked.skipped.map((s) => `skipped ${dir}/${s.path}: ${s.why}`)
      if (walked.files.length === 0) {
        return yield* CliFailure.make("BadInput", [`Cannot read ${file}: it is a directory with no .jsonl file`, ...notes].join("\n"))
      }
      return { files: walked.files.map((name) => `${dir}/${name}`), notes }
    }).pipe(Effect.mapError((e) => CliFailure.isCliFailure(e) ? e : unreadable(file)(e)))

/**
 * The files of {@link listing}, its notes written to standard error.
 *
 * @since 0.1.0
 * @category constructors
 */
export const expand = (
  file: string
): Effect.Effect<ReadonlyArray<string>, CliFailure.CliFailure, FileSystem.FileSystem | Path.Path | Stdio.Stdio> =>
  Effect.flatMap(listing(file), ({ files, notes }) =>
    notes.length === 0 ? Effect.succeed(files) : Stdio.Stdio.pipe(
      Effect.flatMap((stdio) => Stream.run(Stream.make(notes.map((note) => `${Style.printable(note)}\n`).join("")), stdio.stderr())),
      Effect.orElseSucceed(() => undefined),
      Effect.as(files)
    ))

/**
 * The files of a directory as {@link expand} lists them, then, with `follow`, each `.jsonl` file that appears
 * in it later (looked for every {@link followInterval}, taken once it holds a byte, so that its format can be
 * told), until interrupted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const files = (
  dir: string,
  listed: ReadonlyArray<string>,
  options: { readonly follow?: boolean | undefined } = {}
): Stream.Stream<string, never, FileSystem.FileSystem | Path.Path> =>
  options.follow !== true ? Stream.fromIterable(listed) : Stream.suspend(() => {
    const known = new Set(listed)
    const appeared = Effect.gen(function*() {
      yield* Effect.sleep(followInterval)
      const fs = yield* FileSystem.FileSystem
      const all = yield* Effect.orElseSucceed(Effect.map(listing(dir), (l) => l.files), (): ReadonlyArray<string> => [])
      const fresh: Array<string> = []
      for (const file of all) {
        if (known.has(file)) continue
        const size = yield* fs.stat(file).pipe(Effect.map((info) => info.size), Effect.orElseSucceed(() => 0))
        if (size === 0) continue
        known.add(file)
        fresh.push(file)
      }
      return fresh
    })
    return Stream.fromIterable(listed).pipe(Stream.concat(Stream.fromEffectRepeat(appeared).pipe(Stream.flatMap(Stream.fromIterable))))
  })

/**
 * How much of a file {@link detect} looks at.
 *
 * @since 0.1.0
 * @category constants
 */
export const detectBytes: number = Head.bytes

/**
 * The format of a file from its first bytes (only the first {@link detectBytes} of them count).
 *
 * @since 0.1.0
 * @category constructors
 */
export const formatOf: (head: Uint8Array) => TranscriptDetect.Format = Head.formatOf

/**
 * Whether a file holds stream-json or a session transcript, from its first 64 KiB (standard input, which
 * cannot be read twice, says stream-json here: {@link withFormat} tells it as it is read).
 *
 * @since 0.1.0
 * @category constructors
 */
export const detect = (file: string): Effect.Effect<TranscriptDetect.Format, CliFailure.CliFailure, FileSystem.FileSystem> =>
  file === "-"
    ? Effect.succeed("stream-json")
    : Effect.scoped(Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      // Only a regular file is sniffed: opening a FIFO here would block on its writer (and the head would be
      // gone from it); special files are read as stream-json, where `bytes` handles them.
      if ((yield* fs.stat(file)).type !== "File") return "stream-json"
      const handle = yield* fs.open(file)
      const head = yield* handle.readAlloc(detectBytes)
      return Option.match(head, { onNone: () => TranscriptDetect.detect(""), onSome: formatOf })
    })).pipe(Effect.mapError(unreadable(file)))

// Whether the head of a stream tells its format: a complete line that is a JSON object with a type (a live
// pipe's first line), or as much as a file's detection reads.
const told = (head: ReadonlyArray<Uint8Array>): boolean => {
  const size = head.reduce((n, chunk) => n + chunk.length, 0)
  if (size >= detectBytes) return true
  const text = new TextDecoder().decode(Buffer.concat(head))
  return text.split("\n").slice(0, -1).some((line) => {
    try {
      const value = JSON.parse(line)
      return typeof value === "object" && value !== null && typeof value.type === "string"
    } catch {
      return false
    }
  })
}

/**
 * A stream of bytes continued by `f` with its format, told from its head as {@link detect} tells a file's
 * (standard input, which cannot be read twice): the head is read until a line tells, then passed on.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withFormat = <A, E, R, E2, R2>(
  self: Stream.Stream<Uint8Array, E, R>,
  f: (format: TranscriptDetect.Format, bytes: Stream.Stream<Uint8Array, E, never>) => Stream.Stream<A, E2, R2>
): Stream.Stream<A, E | E2, R | R2> =>
  Stream.unwrap(
    Effect.map(
      Stream.peel(self, Sink.reduceWhile((): ReadonlyArray<Uint8Array> => [], (head) => !told(head), (head, chunk: Uint8Array) => [...head, chunk])),
      ([head, rest]) => f(formatOf(Buffer.concat(head)), Stream.concat(Stream.fromIterable(head), rest))
    )
  )

/**
 * A transcript line that decoded to an entry with no stream-json message (metadata, attachments, system
 * notes): counted, not shown. `unfit` is set for a bookkeeping entry whose fields do not fit its schema
 * (see `TranscriptDecode.unfitBookkeeping`): counted too, and told, but no failed line.
 *
 * @since 0.1.0
 * @category models
 */
export interface OtherEntry {
  readonly _tag: "OtherEntry"
  readonly line: number
  readonly unfit?: DecodeError | undefined
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isOtherEntry = (u: unknown): u is OtherEntry => Predicate.isTagged(u, "OtherEntry")

/**
 * A line as {@link records} reads it: decoded to a message, another transcript entry, or bad.
 *
 * @since 0.1.0
 * @category models
 */
export type Line = Decode.DecodedLine | DecodeError | OtherEntry

/**
 * The decoded lines of a file in either format, bad lines in-band: a transcript's user and assistant entries
 * as the stream-json messages they stand for (a subagent's with its `Task` call's id, see {@link taskOf}, so that
 * `task:ID` selects them as in stream-json).
 *
 * @since 0.1.0
 * @category constructors
 */
export const records = (
  file: string,
  options: { readonly follow?: boolean | undefined } = {}
): Stream.Stream<Line, CliFailure.CliFailure, FileSystem.FileSystem | Stdio.Stdio> =>
  file === "-"
    ? withFormat(bytes(file), (format, stdin) => decoded(file, format, stdin))
    : Stream.unwrap(Effect.zipWith(detect(file), taskOf(file), (format, toolUseId) => decoded(file, format, bytes(file, options), toolUseId)))

/**
 * The `Task` tool use that started the subagent whose transcript `file` is (`.../subagents/agent-ID.jsonl`), from
 * the `agent-ID.meta.json` the CLI writes beside it; `undefined` for other files or without one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const taskOf = (file: string): Effect.Effect<string | undefined, never, FileSystem.FileSystem> =>
  !/(^|\/)agent-[^/]*\.jsonl$/.test(file)
    ? Effect.succeed(undefined)
    : Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file.replace(/\.jsonl$/, ".meta.json"))).pipe(
      Effect.map((text) => {
        const meta: unknown = JSON.parse(text)
        const id = typeof meta === "object" && meta !== null ? (meta as { readonly toolUseId?: unknown }).toolUseId : undefined
        return typeof id === "string" ? id : undefined
      }),
      Effect.orElseSucceed(() => undefined)
    )

const decoded = <E, R>(
  file: string,
  format: TranscriptDetect.Format,
  bytes: Stream.Stream<Uint8Array, E, R>,
  toolUseId?: string
): Stream.Stream<Line, E | CliFailure.CliFailure, R> =>
  format === "transcript"
    ? bytes.pipe(
      TranscriptDecode.records({ onBadLine: "emit" }),
      Stream.map((record): Line => {
        if (isDecodeError(record)) {
          transcriptLines.add(record)
          return TranscriptDecode.unfitBookkeeping(record) === undefined ? record : { _tag: "OtherEntry", line: record.line, unfit: record }
        }
        const message = TranscriptMessages.toMessage(record.entry, { toolUseId })
        return message === undefined ? { _tag: "OtherEntry", line: record.line } : { line: record.line, raw: record.raw, message }
      })
    )
    : bytes.pipe(giveUpUnlessJson(nameOf(file)), Decode.records({ onBadLine: "emit" }))

// The bad lines {@link records} read from transcripts, so that they are told as such.
const transcriptLines = new WeakSet<DecodeError>()

/**
 * Whether a bad line from {@link records} was read from a transcript.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isTranscriptLine = (error: DecodeError): boolean => transcriptLines.has(error)

/**
 * What a bad line from {@link records} failed to be: a transcript entry or a stream-json message.
 *
 * @since 0.1.0
 * @category formatting
 */
export const expected = (error: DecodeError): string =>
  isTranscriptLine(error) ? "a transcript entry" : "a stream-json message"
