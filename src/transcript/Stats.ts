/**
 * What a stream-json file or a session transcript holds, counted: lines decoded, unknown and failed, kinds, tool
 * calls with their errors, denials and time, tokens and cost per model, results. Counted line by line as a file is
 * read ({@link sink}, {@link transcriptSink}), or from a transcript file's bytes directly ({@link transcriptFile});
 * the `stats` command of the bin prints these figures.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import * as Sink from "effect/Sink"
import type * as Decode from "../stream/Decode.ts"
import type * as TranscriptDecode from "./Decode.ts"
import * as Counter from "./internal/counter.ts"
import * as Lines from "./internal/lines.ts"
import * as Pricing from "./Pricing.ts"

/** The figures' types (declared apart, so that the fold behind them can name them): see each for its fields. */
export type {
  Failure,
  FileStats,
  LineCheck,
  ModelSource,
  ModelStats,
  ResultStats,
  Seen,
  ToolStats
} from "./internal/figures.ts"
import type { Failure, FileStats, LineCheck, Seen } from "./internal/figures.ts"

/**
 * Counts the lines of a stream (a file as it is read).
 *
 * @since 0.1.0
 * @category counting
 */
export const sink = (path: string): Sink.Sink<FileStats, Decode.DecodedLine | Decode.DecodeError> =>
  Sink.map(
    Sink.reduce(() => Counter.makeCounter(path), (counter, entry: Decode.DecodedLine | Decode.DecodeError) => {
      counter.push(entry)
      return counter
    }),
    (counter) => counter.done()
  )

/**
 * Counts the lines of a session transcript (a `<session id>.jsonl` under `~/.claude/projects`): kinds are
 * entry types, tools, errors and tokens come from its user and assistant entries (tokens per model from
 * the assistant messages, each counted once); transcripts hold no cost, so it is priced from the tokens at the
 * models' list prices ({@link Pricing}), unknown for a model without one. With `seen` (shared by the files
 * of one count), tokens and cost leave out the messages an earlier file counted (see {@link Seen}).
 *
 * @since 0.1.0
 * @category counting
 */
export const transcriptSink = (
  path: string,
  seen?: Seen
): Sink.Sink<FileStats, TranscriptDecode.DecodedEntry | Decode.DecodeError> =>
  Sink.map(
    Sink.reduce(() => Counter.makeCounter(path, Pricing.costOf, seen), (counter, entry: TranscriptDecode.DecodedEntry | Decode.DecodeError) => {
      counter.pushEntry(entry)
      return counter
    }),
    (counter) => counter.done()
  )

/**
 * Counts a file when it is a session transcript (as its first read tells): the figures {@link transcriptSink}
 * gives over its bytes (its lines checked as `check` says: {@link LineCheck}), read in chunks straight into the
 * decoder (no stream between them), in memory bounded by a chunk and the longest line. `undefined` for a file that is
 * not a transcript, or not a regular file: the caller reads it as stream-json.
 *
 * @since 0.1.0
 * @category counting
 */
export const transcriptFile = (
  path: string,
  seen?: Seen,
  check: LineCheck = "every"
): Effect.Effect<FileStats | undefined, PlatformError.PlatformError, FileSystem.FileSystem> =>
  Effect.scoped(Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    // Opening a named pipe would wait for its writer: special files are not sniffed.
    if ((yield* fs.stat(path)).type !== "File") return undefined
    const handle = yield* fs.open(path)
    const buffer = yield* Effect.acquireRelease(
      Effect.sync(Lines.takeBuffer),
      (b) => Effect.sync(() => Lines.giveBuffer(b))
    )
    let read = yield* handle.read(buffer)
    if (!Lines.isTranscript(buffer.subarray(0, read))) return undefined
    const counting = Lines.transcriptCounting(path, seen, check)
    while (true) {
      if (read > 0) counting.push(buffer.subarray(0, read))
      // A short read is the end of a regular file (as far as it is written): no read more to learn it.
      if (read < buffer.length) break
      read = yield* handle.read(buffer)
    }
    return counting.done()
  }))

/**
 * {@link transcriptFile} without Effect, through `node:fs` synchronously: the same figures, without a round trip
 * through the event loop per read (a directory of small transcripts is mostly such round trips). Throws what
 * `node:fs` throws; `undefined` for a file that is not a transcript or not a regular file (not opened).
 *
 * @since 0.1.0
 * @category counting
 */
export const transcriptFileSync = (path: string, seen?: Seen, check: LineCheck = "every"): FileStats | undefined => {
  const unsettled = Lines.unsettledFileSync(path, check)
  return unsettled === undefined ? undefined : Counter.settle(unsettled, seen, Pricing.costOf)
}

/**
 * {@link transcriptFileSync} over many files: the figures of each in the order given (with `seen`, a message
 * copied into several counts for the first), `undefined` where a file is not a transcript or could not be read
 * (standard input, `-`, too): the caller reads those the usual way, to count them as stream-json or say why they
 * cannot be read.
 *
 * @example
 * ```ts
 * import { Stats } from "effect-claude-code/transcript"
 * declare const files: ReadonlyArray<string>
 * const counted = Stats.transcriptFiles(files, new Set()).filter((s) => s !== undefined)
 * const costUsd = Object.values(Stats.total("all", counted).models).reduce((n, m) => n + (m.costUsd ?? 0), 0)
 * ```
 *
 * @since 0.1.0
 * @category counting
 */
export const transcriptFiles = (
  paths: ReadonlyArray<string>,
  seen?: Seen,
  check: LineCheck = "every"
): Array<FileStats | undefined> =>
  paths.map((path) => {
    if (path === "-") return undefined
    try {
      return transcriptFileSync(path, seen, check)
    } catch {
      return undefined
    }
  })


/**
 * The figures of several files added up (`path` names the set).
 *
 * @since 0.1.0
 * @category counting
 */
export const total = (path: string, all: ReadonlyArray<FileStats>): FileStats => {
  const sum = Counter.empty(path)
  for (const s of all) {
    sum.lines += s.lines
    sum.blank += s.blank
    sum.decoded += s.decoded
    sum.unknown += s.unknown
    sum.failed += s.failed
    sum.unfit += s.unfit
    sum.errorResults += s.errorResults
    for (const [k, n] of Object.entries(s.kinds)) Counter.bump(sum.kinds, k, n)
    for (const [k, n] of Object.entries(s.unknownTypes)) Counter.bump(sum.unknownTypes, k, n)
    for (const [name, t] of Object.entries(s.tools)) {
      const into = Counter.toolOf(sum, name)
      into.calls += t.calls
      into.errors += t.errors
      into.denied += t.denied
      into.durationMs += t.durationMs
    }
    for (const [name, { source, costUsd, ...tokens }] of Object.entries(s.models)) {
      Counter.addModel(sum, name, source, { ...tokens, costUsd: costUsd ?? 0 }, costUsd !== null)
    }
    sum.results.push(...s.results)
    // Line numbers alone are ambiguous across files: the total's say whose line it is.
    const inFile = (f: Failure) => ({ file: f.file ?? s.path, line: f.line, reason: f.reason })
    sum.failures.push(...s.failures.map(inFile))
    sum.unfitLines.push(...s.unfitLines.map(inFile))
  }
  return sum
}

