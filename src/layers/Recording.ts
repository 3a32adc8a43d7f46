/**
 * Recordings: wrap any `ClaudeCli` layer with {@link layer} to write each run's raw stdout lines to a
 * `.jsonl` file (replayable by `Fixture.layer`, readable by any stream-json tool) and its metadata beside it
 * in `<file>.meta.json` (prompt, redacted options, line times, rejected lines, how the run ended). Secrets
 * are replaced by `<redacted>` in both files.
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as CliRun from "./internal/run.ts"
import * as CliError from "../ClaudeCliError.ts"
import * as DerivedOptions from "../internal/queryOptions.ts"
import * as Redaction from "../internal/redaction.ts"
import { type DecodeError, isDecodeError } from "../stream/DecodeError.ts"
import { redactDecodeError } from "../stream/internal/cut.ts"
import type * as Ndjson from "../stream/Ndjson.ts"

/**
 * How a recorded run ended: completed (with the CLI's exit code and stderr tail when a process ran), failed
 * (the reason, readable and as data, so that a replay fails the same way), or interrupted by its consumer.
 *
 * @since 0.1.0
 * @category models
 */
export const Ending = Schema.Union([
  Schema.TaggedStruct("Success", {
    exitCode: Schema.optional(Schema.NullOr(Schema.Number)),
    stderrTail: Schema.optional(Schema.String)
  }),
  Schema.TaggedStruct("Failure", {
    reason: Schema.String,
    message: Schema.String,
    error: Schema.optional(CliError.Reason)
  }),
  Schema.TaggedStruct("Interrupted", {})
])

/**
 * @since 0.1.0
 * @category models
 */
export type Ending = typeof Ending.Type

/**
 * A line the framing rejected (too long, invalid UTF-8): not in the recording, whose blank line holds its
 * place, but here, so that a replay emits the same `DecodeError` at the same line. `raw` is redacted.
 *
 * @since 0.1.0
 * @category models
 */
export const Rejected = Schema.Struct({
  line: Schema.Number,
  reason: Schema.Literals(["InvalidUtf8", "LineTooLong", "InvalidJson", "SchemaMismatch"]),
  raw: Schema.String,
  detail: Schema.String,
  maxLineBytes: Schema.optional(Schema.Number)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Rejected = typeof Rejected.Type

/**
 * The metadata stored beside a recording.
 *
 * @since 0.1.0
 * @category models
 */
export const Metadata = Schema.Struct({
  prompt: Schema.String,
  options: Schema.Record(Schema.String, Schema.Unknown),
  /** Milliseconds from the start of the run to each recorded line, in file order. */
  timings: Schema.Array(Schema.Number),
  exit: Ending,
  /** The lines the framing rejected, in order (see {@link Rejected}). */
  rejected: Schema.Array(Rejected)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Metadata = typeof Metadata.Type

/**
 * The metadata as the JSON text of its file.
 *
 * @since 0.1.0
 * @category models
 */
export const MetadataJson = Schema.fromJsonString(Metadata, { space: 2 })

/**
 * Where the metadata of a recording lives.
 *
 * @since 0.1.0
 * @category utils
 */
export const metadataPath = (path: string): string => `${path}.meta.json`

const failed = (path: string, what: string) => (cause: PlatformError.PlatformError | Schema.SchemaError) =>
  CliError.make(new CliError.RecordingFailed({ path, description: `${what}: ${cause.message}`, cause }))

const failure = (error: CliError.ClaudeCliError): Ending => ({
  _tag: "Failure",
  reason: error.reason._tag,
  message: error.message,
  error: error.reason
})

// The lines of a run that did not reach their end were stopped by what reads them: a query failing at a
// bad line (the failure the run's consumer sees), the consumer (take, interruption, its own failure), or a
// defect.
const stopped = (exit: Exit.Exit<unknown, unknown>): Ending => {
  if (Exit.isSuccess(exit)) return { _tag: "Interrupted" }
  if (Cause.hasDies(exit.cause)) return { _tag: "Failure", reason: "Defect", message: Cause.pretty(exit.cause) }
  const error = Cause.findErrorOption(exit.cause)
  return error._tag === "Some" && CliError.isClaudeCliError(error.value) ? failure(error.value) : { _tag: "Interrupted" }
}

// A rejected line as the metadata keeps it, its raw cut redacted as a cut.
const rejectedOf = (error: DecodeError, redact: Redaction.Redact): Rejected => {
  const { raw, detail } = redactDecodeError(error, redact)
  return {
    line: error.line,
    reason: error.reason._tag,
    raw,
    detail,
    ...(error.reason._tag === "LineTooLong" ? { maxLineBytes: error.reason.maxLineBytes } : {})
  }
}

const encoder = new TextEncoder()

// A line keeps its number: a blank line holds the place of a blank output line and of a line the framing
// rejected (too long, invalid UTF-8), which the metadata keeps instead (its reason and redacted raw cut), so a
// replay gives the same `DecodeError` at the same line. A redacted line is the same JSON with the secret's
// string redacted. A run that fails after its lines, or that a query failing at a bad line stops, is
// recorded with that failure; a run its consumer stops is recorded as interrupted.
//
// Each run is written into a temporary directory next to the recording and moved into place when it ends,
// so overlapping runs never mix: the last to end wins. A recording that cannot be written fails the run with
// `RecordingFailed`, before the CLI starts when the directory is not writable.

/**
 * Tees every raw line of each run to `path` and its metadata to {@link metadataPath}.
 */
const record = Effect.fnUntraced(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const paths = yield* Path.Path
  // The two renames that publish a run happen together, so a recording and its metadata are of one run.
  const publishing = yield* Semaphore.make(1)
  return (runner: CliRun.Runner): CliRun.Runner => (prompt, options) =>
    Effect.gen(function*() {
      const draftDir = yield* fs.makeTempDirectoryScoped({
        directory: paths.dirname(path),
        prefix: `.${paths.basename(path)}-`
      }).pipe(Effect.mapError(failed(path, "cannot write next to it")))
      const draft = paths.join(draftDir, "run.jsonl")
      const draftMeta = paths.join(draftDir, "run.meta.json")
      const file = yield* fs.open(draft, { flag: "w" }).pipe(Effect.mapError(failed(path, "cannot write it")))
      const run = yield* runner(prompt, options)
      const start = yield* Clock.currentTimeMillis
      const timings: Array<number> = []
      const rejected: Array<Rejected> = []
      // The run's own redaction knows the layer's and the inherited secrets; the query's are added here.
      const own = Redaction.redactor(Redaction.optionSecrets(options))
      const redact: Redaction.Redact = (text, edges) => own(run.redact?.(text, edges) ?? text, edges)
      // The lines of the output the file holds so far, blank ones included.
      let written = 0

      const tee = (chunk: Arr.NonEmptyReadonlyArray<Ndjson.Line | DecodeError>) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          let text = ""
          for (const line of chunk) {
            if (isDecodeError(line)) {
              rejected.push(rejectedOf(line, redact))
              text += "\n".repeat(Math.max(0, line.line - written))
            } else {
              timings.push(now - start)
              text += "\n".repeat(Math.max(0, line.line - 1 - written)) + Redaction.redactJson(line.text, redact) + "\n"
            }
            written = Math.max(written, line.line)
          }
          return text === "" ? Effect.void : file.writeAll(encoder.encode(text))
        }).pipe(Effect.mapError(failed(path, "writing it failed")), Effect.as(chunk))

      let finished = false
      const finish = (exit: Ending) =>
        Effect.suspend(() => {
          if (finished) return Effect.void
          finished = true
          const meta: Metadata = { prompt, options: DerivedOptions.redact(options), timings, exit, rejected }
          return Schema.encodeEffect(MetadataJson)(meta).pipe(
            Effect.flatMap((json) => fs.writeFileString(draftMeta, Redaction.redactJson(json, redact) + "\n")),
            Effect.andThen(publishing.withPermits(1)(
              Effect.andThen(fs.rename(draft, path), fs.rename(draftMeta, metadataPath(path)))
            )),
            Effect.mapError(failed(path, "moving it into place failed"))
          )
        })

      const lines = run.lines.pipe(
        Stream.mapArrayEffect(tee),
        Stream.catch((error) =>
          Stream.concat(
            Stream.fromEffectDrain(
              error.reason._tag === "RecordingFailed"
                ? Effect.void
                // The run's own failure is what the consumer needs; a recording lost on top of it is logged.
                : finish(failure(error)).pipe(Effect.catch((lost) => Effect.logWarning(lost.message)))
            ),
            Stream.fail(error)
          )),
        Stream.concat(Stream.fromEffectDrain(Effect.flatMap(run.ended, (ended) =>
          finish(ended === undefined ? { _tag: "Success" } : { _tag: "Success", ...ended })
        ))),
        // Only lines that did not reach their end are still unfinished here.
        Stream.onExit((exit) => Effect.ignore(finish(stopped(exit))))
      )
      return { lines, ended: run.ended, redact: run.redact, mirror: run.mirror }
    })
})

/**
 * {@link layer} with whatever `FileSystem` and `Path` are provided.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (path: string) => <E, R>(
  self: Layer.Layer<ClaudeCli.ClaudeCli, E, R>
): Layer.Layer<ClaudeCli.ClaudeCli, E, R | FileSystem.FileSystem | Path.Path> =>
  Layer.effect(
    ClaudeCli.ClaudeCli,
    Effect.gen(function*() {
      const cli = yield* ClaudeCli.ClaudeCli
      const recorded = yield* record(path)
      return CliRun.make(recorded(yield* CliRun.runnerOf(cli)), cli.session)
    })
  ).pipe(Layer.provide(self))

/**
 * Wraps a `ClaudeCli` layer so that every run is recorded to `path`; sessions pass through unrecorded.
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Fixture, Live, Recording } from "effect-claude-code/layers"
 *
 * // Once, against the real CLI:
 * const record = ClaudeCli.query("List the files").pipe(
 *   Stream.runCollect,
 *   Effect.provide(Live.layer().pipe(Recording.layer("test/fixtures/list.jsonl")))
 * )
 * // In tests, the same messages without the CLI:
 * const replay = ClaudeCli.query("List the files").pipe(
 *   Stream.runCollect,
 *   Effect.provide(Fixture.layer("test/fixtures/list.jsonl"))
 * )
 * ```
 */
export const layer = (path: string) => <E, R>(
  self: Layer.Layer<ClaudeCli.ClaudeCli, E, R>
): Layer.Layer<ClaudeCli.ClaudeCli, E, R> =>
  layerWith(path)(self).pipe(Layer.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)))
