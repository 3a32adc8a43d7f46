/**
 * Recordings: a run's raw stdout lines in a `.jsonl` file (replayable by `Fixture.layer`, readable by any
 * stream-json tool) and its metadata beside it in `<file>.meta.json`: prompt, options with secrets redacted,
 * the time of each line, and how the run ended.
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
  /** `"success"`, or the failure's reason tag and message. */
  readonly exit: { readonly _tag: "Success" } | { readonly _tag: "Failure"; readonly reason: string; readonly message: string }
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
export const record = (path: string) => (lines: ClaudeCli.Lines): ClaudeCli.Lines => (prompt, options) =>
  Stream.unwrap(Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const timings: Array<number> = []
    const skipped: Array<{ line: number; detail: string }> = []
    yield* Effect.sync(() => fs.writeFileSync(path, ""))
    const secrets = QueryOptions.secretValues(options?.env)
    const writeMeta = (exit: Metadata["exit"]) =>
      Effect.sync(() => {
        const meta: Metadata = { prompt, options: QueryOptions.redact(options), timings, exit, skipped }
        fs.writeFileSync(metadataPath(path), QueryOptions.redactText(JSON.stringify(meta, null, 2), secrets) + "\n")
      })
    return lines(prompt, options).pipe(
      Stream.tap((line) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() => {
            if (isDecodeError(line)) {
              skipped.push({ line: line.line, detail: line.detail })
              return
            }
            timings.push(now - start)
            fs.appendFileSync(path, line.text + "\n")
          }))
      ),
      Stream.onExit((exit) =>
        writeMeta(
          Exit.isSuccess(exit)
            ? { _tag: "Success" }
            : Exit.findErrorOption(exit).pipe((error) =>
              error._tag === "Some"
                ? { _tag: "Failure" as const, reason: error.value.reason._tag, message: error.value.message }
                : { _tag: "Failure" as const, reason: "Interrupted", message: "the stream was interrupted" }
            )
        )
      )
    )
  }))

/**
 * Wraps a `ClaudeCli` layer so that every run is recorded to `path`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (path: string) => <E, R>(
  self: Layer.Layer<ClaudeCli.ClaudeCli, E, R>
): Layer.Layer<ClaudeCli.ClaudeCli, E, R> =>
  Layer.effect(
    ClaudeCli.ClaudeCli,
    Effect.map(Effect.service(ClaudeCli.ClaudeCli), (cli) => ClaudeCli.make(record(path)(cli.lines)))
  ).pipe(Layer.provide(self))
