/**
 * Recordings: a run's raw stdout lines in a `.jsonl` file (replayable by `Fixture.layer`, readable by any
 * stream-json tool) and its metadata beside it in `<file>.meta.json`: prompt, options with secrets redacted,
 * the time of each line, and how the run ended. Secrets (the run's environment, key-shaped values) are
 * replaced by `<redacted>` in both files, including any the CLI echoed in its output; a redacted line is the
 * same JSON with the secret's string redacted.
 *
 * Each run is written into a temporary directory next to the recording and moved into place when it ends
 * (completed, failed or interrupted), so runs that overlap never mix: the last to end wins. A recording that
 * cannot be written fails the run with `RecordingFailed`, before the CLI starts when the directory is not
 * writable.
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
import * as CliError from "../ClaudeCliError.ts"
import * as QueryOptions from "../QueryOptions.ts"
import * as Redaction from "../Redaction.ts"
import { type DecodeError, isDecodeError } from "../stream/DecodeError.ts"
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
  /** Lines that could not be stored (too long, invalid UTF-8). */
  skipped: Schema.Array(Schema.Struct({ line: Schema.Number, detail: Schema.String }))
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

// The lines of a run that did not reach their end were stopped by the consumer (take, interruption, a
// failure downstream), unless they died.
const stopped = (exit: Exit.Exit<unknown, unknown>): Ending =>
  Exit.isFailure(exit) && Cause.hasDies(exit.cause)
    ? { _tag: "Failure", reason: "Defect", message: Cause.pretty(exit.cause) }
    : { _tag: "Interrupted" }

const encoder = new TextEncoder()

/**
 * Tees every raw line of each run to `path` and its metadata to {@link metadataPath}, through a temporary
 * directory next to `path` (see the module documentation).
 *
 * @since 0.1.0
 * @category combinators
 */
export const record = Effect.fnUntraced(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const paths = yield* Path.Path
  // The two renames that publish a run happen together, so a recording and its metadata are of one run.
  const publishing = yield* Semaphore.make(1)
  return (runner: ClaudeCli.Runner): ClaudeCli.Runner => (prompt, options) =>
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
      const skipped: Array<{ line: number; detail: string }> = []
      // The run's own redaction knows the layer's and the inherited secrets; the query's are added here.
      const own = Redaction.redactor(Redaction.secretValues(options?.env))
      const redact: Redaction.Redact = (text, edges) => own(run.redact?.(text, edges) ?? text, edges)

      const tee = (chunk: Arr.NonEmptyReadonlyArray<Ndjson.Line | DecodeError>) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          let text = ""
          for (const line of chunk) {
            if (isDecodeError(line)) {
              skipped.push({ line: line.line, detail: line.detail })
            } else {
              timings.push(now - start)
              text += Redaction.redactJson(line.text, redact) + "\n"
            }
          }
          return text === "" ? Effect.void : file.writeAll(encoder.encode(text))
        }).pipe(Effect.mapError(failed(path, "writing it failed")), Effect.as(chunk))

      let finished = false
      const finish = (exit: Ending) =>
        Effect.suspend(() => {
          if (finished) return Effect.void
          finished = true
          const meta: Metadata = { prompt, options: QueryOptions.redact(options), timings, exit, skipped }
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
      return { lines, ended: run.ended, redact: run.redact }
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
      return ClaudeCli.make(recorded(cli.run), cli.session)
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
