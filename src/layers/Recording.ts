/**
 * Recordings: a run's raw stdout lines in a `.jsonl` file (replayable by `Fixture.layer`, readable by any
 * stream-json tool) and its metadata beside it in `<file>.meta.json`: prompt, options with secrets redacted,
 * the time of each line, and how the run ended. Secrets (the run's environment, key-shaped values) are
 * replaced by `<redacted>` in both files, including any the CLI echoed in its output.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as QueryOptions from "../QueryOptions.ts"
import { isDecodeError } from "../stream/DecodeError.ts"

/**
 * The metadata stored beside a recording.
 *
 * @since 0.1.0
 * @category models
 */
export interface Metadata {
  readonly prompt: string
  readonly options: Record<string, unknown>
  /** Milliseconds from the start of the run to each recorded line, in file order. */
  readonly timings: ReadonlyArray<number>
  /** Success (with the CLI's exit code when a process ran), or the failure's reason tag and message. */
  readonly exit:
    | { readonly _tag: "Success"; readonly exitCode?: number | null | undefined }
    | { readonly _tag: "Failure"; readonly reason: string; readonly message: string }
  /** Lines that could not be stored (too long, invalid UTF-8). */
  readonly skipped: ReadonlyArray<{ readonly line: number; readonly detail: string }>
}

/**
 * Where the metadata of a recording lives.
 *
 * @since 0.1.0
 * @category utils
 */
export const metadataPath = (path: string): string => `${path}.meta.json`

/**
 * Tees every raw line of each run to `path` (overwritten per run) and its metadata to {@link metadataPath}.
 *
 * @since 0.1.0
 * @category combinators
 */
export const record = (path: string) => (runner: ClaudeCli.Runner): ClaudeCli.Runner => (prompt, options) =>
  Effect.flatMap(runner(prompt, options), (run) =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const timings: Array<number> = []
      const skipped: Array<{ line: number; detail: string }> = []
      yield* Effect.sync(() => fs.writeFileSync(path, ""))
      // The run's own redaction knows the layer's and the inherited secrets too.
      const secrets = QueryOptions.secretValues(options?.env)
      const redact = (text: string) => QueryOptions.redactText(run.redact?.(text) ?? text, secrets)
      const writeMeta = (exit: Metadata["exit"]) =>
        Effect.sync(() => {
          const meta: Metadata = { prompt, options: QueryOptions.redact(options), timings, exit, skipped }
          fs.writeFileSync(metadataPath(path), redact(JSON.stringify(meta, null, 2)) + "\n")
        })
      const lines = run.lines.pipe(
        Stream.tap((line) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.sync(() => {
              if (isDecodeError(line)) {
                skipped.push({ line: line.line, detail: line.detail })
                return
              }
              timings.push(now - start)
              // A secret the CLI echoed (a tool result, a warning) is replaced in place; JSON stays valid.
              fs.appendFileSync(path, redact(line.text) + "\n")
            }))
        ),
        Stream.onExit((exit) =>
          Exit.isSuccess(exit)
            ? Effect.flatMap(run.ended, (ended) =>
              writeMeta(ended === undefined ? { _tag: "Success" } : { _tag: "Success", exitCode: ended.exitCode }))
            : writeMeta(Exit.findErrorOption(exit).pipe((error) =>
              error._tag === "Some"
                ? { _tag: "Failure" as const, reason: error.value.reason._tag, message: error.value.message }
                : { _tag: "Failure" as const, reason: "Interrupted", message: "the stream was interrupted" }
            ))
        )
      )
      return { lines, ended: run.ended, redact: run.redact }
    }))

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
  Layer.effect(
    ClaudeCli.ClaudeCli,
    Effect.map(Effect.service(ClaudeCli.ClaudeCli), (cli) => ClaudeCli.make(record(path)(cli.run), cli.session))
  ).pipe(Layer.provide(self))
