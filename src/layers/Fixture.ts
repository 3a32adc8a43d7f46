/**
 * Replays a stream-json recording (a corpus file, or a file made by `Recording`) as the `ClaudeCli` service,
 * through the same framing and decoding as the real CLI.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as CliError from "../ClaudeCliError.ts"
import * as Ndjson from "../stream/Ndjson.ts"
import { type DecodeError, isDecodeError } from "../stream/DecodeError.ts"
import { metadataPath, type Metadata } from "./Recording.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** `"recorded"`: wait between lines as the recording's metadata says (`TestClock` friendly); default none. */
  readonly pacing?: "none" | "recorded" | undefined
  readonly maxLineBytes?: number | undefined
}

const readFile = (path: string) =>
  Effect.try({
    try: () => fs.readFileSync(path),
    catch: (cause) =>
      CliError.make(
        new CliError.SpawnFailed({ executable: path, description: `cannot read the fixture "${path}"`, cause })
      )
  })

const readTimings = (path: string): ReadonlyArray<number> => {
  try {
    return (JSON.parse(fs.readFileSync(metadataPath(path), "utf8")) as Metadata).timings
  } catch {
    return []
  }
}

/**
 * The lines of a fixture file, every run (prompt and options are ignored).
 *
 * @since 0.1.0
 * @category constructors
 */
export const lines = (path: string, options: Options = {}): ClaudeCli.Lines => () =>
  Stream.unwrap(Effect.map(readFile(path), (bytes) => {
    const framed: Stream.Stream<Ndjson.Line | DecodeError> = Stream.make(Uint8Array.from(bytes)).pipe(
      Ndjson.linesLenient({ maxLineBytes: options.maxLineBytes })
    )
    if (options.pacing !== "recorded") return framed
    const timings = readTimings(path)
    let index = 0
    let previous = 0
    return framed.pipe(Stream.mapEffect((line): Effect.Effect<Ndjson.Line | DecodeError> => {
      if (isDecodeError(line)) return Effect.succeed(line)
      const at = timings[index++] ?? previous
      const wait = Math.max(0, at - previous)
      previous = at
      return Effect.as(Effect.sleep(wait), line)
    }))
  }))

/**
 * `ClaudeCli` replaying `path` for every query: swap it for `Live.layer` in a test with one `Layer`.
 * Sessions fail with `SessionUnavailable`: they need a live CLI.
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Fixture } from "effect-claude-code/layers"
 *
 * const messages = ClaudeCli.query("anything").pipe(Stream.runCollect, Effect.provide(Fixture.layer("run.jsonl")))
 * ```
 */
export const layer = (path: string, options: Options = {}): Layer.Layer<ClaudeCli.ClaudeCli> =>
  Layer.succeed(
    ClaudeCli.ClaudeCli,
    ClaudeCli.make(ClaudeCli.fromLines(lines(path, options)), ClaudeCli.sessionUnavailable("Fixture"))
  )
