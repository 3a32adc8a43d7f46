/**
 * The Claude Code CLI as a service: `query(prompt, options)` is a typed stream of stream-json messages whose
 * lifetime is the CLI process's lifetime. Layers in `effect-claude-code/layers` provide it from the real CLI,
 * a recording, or the scripted model server.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as CliError from "./ClaudeCliError.ts"
import type { QueryOptions } from "./QueryOptions.ts"
import type { Message } from "./schema/Message.ts"
import * as Decode from "./stream/Decode.ts"
import { type DecodeError, isDecodeError } from "./stream/DecodeError.ts"
import type * as Ndjson from "./stream/Ndjson.ts"

/**
 * A source of raw CLI output: one run's stdout lines, bad lines (too long, invalid UTF-8) in-band.
 *
 * @since 0.1.0
 * @category models
 */
export type Lines = (
  prompt: string,
  options?: QueryOptions
) => Stream.Stream<Ndjson.Line | DecodeError, CliError.ClaudeCliError>

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Decoded messages; the first bad line fails the stream (after every message before it). */
  readonly query: (prompt: string, options?: QueryOptions) => Stream.Stream<Message, CliError.ClaudeCliError>
  /** Decoded messages with bad lines reported in-band as `DecodeError` values; the stream goes on. */
  readonly queryLenient: (
    prompt: string,
    options?: QueryOptions
  ) => Stream.Stream<Message | DecodeError, CliError.ClaudeCliError>
  /** The raw, numbered stdout lines (what recordings store). */
  readonly lines: Lines
}

/**
 * @since 0.1.0
 * @category services
 */
export class ClaudeCli extends Context.Service<ClaudeCli, Service>()("effect-claude-code/ClaudeCli") {}

const decodeLine = (line: Ndjson.Line): Message | DecodeError => {
  const decoded = Decode.decodeLine(line)
  return isDecodeError(decoded) ? decoded : decoded.message
}

/**
 * Turns a stream-layer `DecodeError` into the matching `ClaudeCliError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromDecodeError = (error: DecodeError): CliError.ClaudeCliError =>
  CliError.make(
    error.reason === "LineTooLong"
      ? new CliError.LineTooLong({ line: error.line, limit: error.maxLineBytes ?? 0, cause: error })
      : new CliError.DecodeFailed({ line: error.line, raw: error.raw, issue: error.detail, cause: error })
  )

const isResult = (message: Message | DecodeError): boolean =>
  !isDecodeError(message) && (message as { readonly type?: unknown }).type === "result"

/**
 * Requires a `result` message before the end of the stream.
 *
 * @since 0.1.0
 * @category combinators
 */
export const requireResult = <A extends Message | DecodeError, R>(
  self: Stream.Stream<A, CliError.ClaudeCliError, R>
): Stream.Stream<A, CliError.ClaudeCliError, R> =>
  Stream.suspend(() => {
    let count = 0
    let seen = false
    return Stream.concat(
      Stream.tap(self, (message) =>
        Effect.sync(() => {
          count++
          if (isResult(message)) seen = true
        })),
      Stream.suspend(() =>
        seen ? Stream.empty : Stream.fail(CliError.make(new CliError.MissingResult({ messages: count, stderrTail: "" })))
      )
    )
  })

/**
 * Builds the service from a source of raw lines; every layer (process, fixture, recording) goes through here,
 * so all decode the same way.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (lines: Lines): Service => {
  const queryLenient: Service["queryLenient"] = (prompt, options) =>
    requireResult(Stream.map(lines(prompt, options), (line) => isDecodeError(line) ? line : decodeLine(line)))
  const query: Service["query"] = (prompt, options) =>
    Stream.mapEffect(
      queryLenient(prompt, options),
      (item) => isDecodeError(item) ? Effect.fail(fromDecodeError(item)) : Effect.succeed(item)
    )
  return { query, queryLenient, lines }
}

/**
 * Runs a query with the `ClaudeCli` in context.
 *
 * @since 0.1.0
 * @category accessors
 */
export const query = (
  prompt: string,
  options?: QueryOptions
): Stream.Stream<Message, CliError.ClaudeCliError, ClaudeCli> =>
  Stream.unwrap(Effect.map(Effect.service(ClaudeCli), (cli) => cli.query(prompt, options)))

/**
 * Lenient variant of {@link query}.
 *
 * @since 0.1.0
 * @category accessors
 */
export const queryLenient = (
  prompt: string,
  options?: QueryOptions
): Stream.Stream<Message | DecodeError, CliError.ClaudeCliError, ClaudeCli> =>
  Stream.unwrap(Effect.map(Effect.service(ClaudeCli), (cli) => cli.queryLenient(prompt, options)))
