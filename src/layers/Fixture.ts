/**
 * Replays a stream-json recording (a corpus file, or a file made by `Recording`) as the `ClaudeCli` service,
 * through the same framing and decoding as the real CLI. With its metadata, a replay ends as the recorded
 * run did: the same bad lines at the same line numbers, the same exit, stderr tail or failure. With the
 * `sessionStore` option, the recording's `transcript_mirror` frames go to the store as a live run's do (see
 * `SessionMirror.replay`; a recording without frames says so with a `mirror_error`).
 *
 * @since 0.1.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as PlatformError from "effect/PlatformError"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as CliRun from "./internal/run.ts"
import * as CliError from "../ClaudeCliError.ts"
import * as DecodeError from "../stream/DecodeError.ts"
import * as FileBytes from "../stream/internal/fileBytes.ts"
import * as Ndjson from "../stream/Ndjson.ts"
import * as SessionMirror from "../store/SessionMirror.ts"
import { type Metadata, MetadataJson, metadataPath, type Rejected } from "./Recording.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** `"recorded"`: wait between lines as the recording's metadata says (`TestClock` friendly); default none. */
  readonly pacing?: "none" | "recorded" | undefined
  readonly maxLineBytes?: number | undefined
}

const unreadable = (path: string, what: string) => (cause: PlatformError.PlatformError | Schema.SchemaError) =>
  CliError.make(new CliError.FixtureUnreadable({ path, description: `${what}: ${cause.message}`, cause }))

// A fixture without metadata (a corpus file) replays its lines and ends there.
const readMetadata = (fs: FileSystem.FileSystem, path: string): Effect.Effect<Metadata | undefined, CliError.ClaudeCliError> => {
  const metaPath = metadataPath(path)
  return fs.readFileString(metaPath).pipe(
    Effect.map((text): string | undefined => text),
    Effect.catchIf((error) => error.reason._tag === "NotFound", () => Effect.succeed(undefined)),
    Effect.mapError(unreadable(metaPath, "cannot read the recording's metadata")),
    Effect.flatMap((text) =>
      text === undefined
        ? Effect.succeed(undefined)
        : Schema.decodeEffect(MetadataJson)(text).pipe(Effect.mapError(unreadable(metaPath, "not a recording's metadata")))
    )
  )
}

const paced = (
  lines: Stream.Stream<Ndjson.Line | DecodeError.DecodeError, CliError.ClaudeCliError>,
  timings: ReadonlyArray<number>
): Stream.Stream<Ndjson.Line | DecodeError.DecodeError, CliError.ClaudeCliError> => {
  let index = 0
  let previous = 0
  return lines.pipe(Stream.mapEffect((line): Effect.Effect<Ndjson.Line | DecodeError.DecodeError> => {
    if (DecodeError.isDecodeError(line)) return Effect.succeed(line)
    const at = timings[index++] ?? previous
    const wait = Math.max(0, at - previous)
    previous = at
    return Effect.as(Effect.sleep(wait), line)
  }))
}

// The error of a rejected line, as the framing made it when the run was recorded.
const rejectedError = ({ reason, maxLineBytes, ...fields }: Rejected): DecodeError.DecodeError => {
  switch (reason) {
    case "InvalidUtf8":
      return DecodeError.make(new DecodeError.InvalidUtf8(fields))
    case "LineTooLong":
      return DecodeError.make(new DecodeError.LineTooLong({ ...fields, maxLineBytes: maxLineBytes ?? 0 }))
    case "InvalidJson":
      return DecodeError.make(new DecodeError.InvalidJson(fields))
    case "SchemaMismatch":
      return DecodeError.make(new DecodeError.SchemaMismatch(fields))
  }
}

// The recorded run's rejected lines, each emitted before the first line after it (their blank lines in the
// file keep the numbers of the lines around them).
const withRejected = (
  lines: Stream.Stream<Ndjson.Line | DecodeError.DecodeError, CliError.ClaudeCliError>,
  rejected: ReadonlyArray<Rejected>
): Stream.Stream<Ndjson.Line | DecodeError.DecodeError, CliError.ClaudeCliError> => {
  if (rejected.length === 0) return lines
  return Stream.suspend(() => {
    const pending = rejected.map(rejectedError).sort((a, b) => a.line - b.line)
    let next = 0
    const due = (line: number): Array<DecodeError.DecodeError> => {
      const out: Array<DecodeError.DecodeError> = []
      while (next < pending.length && pending[next]!.line < line) out.push(pending[next++]!)
      return out
    }
    const inOrder = Stream.mapArray(lines, (chunk) =>
      next === pending.length || pending[next]!.line > chunk[chunk.length - 1]!.line
        ? chunk
        : Arr.flatMap(chunk, (item) => Arr.append(due(item.line), item)))
    return Stream.concat(inOrder, Stream.suspend(() => Stream.fromIterable(pending.slice(next))))
  })
}

/**
 * Every run replays `path` (the prompt and options are ignored but for `sessionStore`), read as a stream, and
 * ends as its metadata says; a missing or unreadable file is `FixtureUnreadable`.
 */
const runner = (fs: FileSystem.FileSystem, path: string, options: Options = {}): CliRun.Runner => (_, query = {}) =>
  Effect.map(readMetadata(fs, path), (meta): CliRun.Run => {
    const framed = withRejected(
      FileBytes.stream(fs, path).pipe(
        Stream.mapError(unreadable(path, "cannot read the fixture")),
        Ndjson.lines({ onBadLine: "emit", maxLineBytes: options.maxLineBytes })
      ),
      meta?.rejected ?? []
    )
    const lines = options.pacing === "recorded" ? paced(framed, meta?.timings ?? []) : framed
    const exit = meta?.exit
    return {
      lines: exit?._tag === "Failure" && exit.error !== undefined
        ? Stream.concat(lines, Stream.fail(CliError.make(exit.error)))
        : lines,
      ended: Effect.succeed(
        exit?._tag === "Success" && exit.exitCode !== undefined
          ? { exitCode: exit.exitCode, stderrTail: exit.stderrTail ?? "" }
          : undefined
      ),
      mirror: SessionMirror.replay(query)
    }
  })

/**
 * {@link layer} with whatever `FileSystem` is provided.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (path: string, options: Options = {}): Layer.Layer<ClaudeCli.ClaudeCli, never, FileSystem.FileSystem> =>
  Layer.effect(
    ClaudeCli.ClaudeCli,
    Effect.map(
      Effect.service(FileSystem.FileSystem),
      (fs) => CliRun.make(runner(fs, path, options), CliRun.sessionUnavailable("Fixture"))
    )
  )

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
  layerWith(path, options).pipe(Layer.provide(NodeFileSystem.layer))
