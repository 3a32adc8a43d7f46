/**
 * The Claude Code CLI as a service: `query(prompt, options)` is a typed stream of stream-json messages whose
 * lifetime is the CLI process's lifetime, and `session(options)` a long-lived CLI driven over stdin. Layers in
 * `effect-claude-code/layers` provide it from the real CLI, a recording, or the scripted model server.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as CliError from "./ClaudeCliError.ts"
import * as Telemetry from "./Telemetry.ts"
import * as QueryOptions from "./QueryOptions.ts"
import * as Redaction from "./Redaction.ts"
import { type Message, UnknownMessage } from "./schema/Message.ts"
import type * as Session from "./session/Session.ts"
import type * as SessionError from "./session/SessionError.ts"
import * as Decode from "./stream/Decode.ts"
import { DecodeError, isDecodeError, redactDecodeError as redactWith } from "./stream/DecodeError.ts"
import { applyStepper, type Stepper } from "./stream/internal/stepper.ts"
import type * as Ndjson from "./stream/Ndjson.ts"

/**
 * How a CLI process ended, known once its output has ended.
 *
 * @since 0.1.0
 * @category models
 */
export interface Ended {
  readonly exitCode: number | null
  /** The last few KB of stderr, secrets redacted. */
  readonly stderrTail: string
}

/**
 * One started run: its raw stdout lines (bad lines in-band) and how it ended.
 *
 * @since 0.1.0
 * @category models
 */
export interface Run {
  readonly lines: Stream.Stream<Ndjson.Line | DecodeError, CliError.ClaudeCliError>
  /** Read once `lines` has completed; `undefined` when no process ran (a fixture). */
  readonly ended: Effect.Effect<Ended | undefined>
  /**
   * Redacts the secrets of the run's environment from a text (errors, recordings); without it only
   * key-shaped values are (see `Redaction.keyPattern`).
   */
  readonly redact?: Redaction.Redact | undefined
}

/**
 * Starts one run; the process (if any) lives as long as the Scope.
 *
 * @since 0.1.0
 * @category models
 */
export type Runner = (prompt: string, options?: QueryOptions.QueryOptions) => Effect.Effect<Run, CliError.ClaudeCliError, Scope.Scope>

/**
 * A source of raw CLI output: one run's stdout lines, bad lines (too long, invalid UTF-8) in-band.
 *
 * @since 0.1.0
 * @category models
 */
export type Lines = (
  prompt: string,
  options?: QueryOptions.QueryOptions
) => Stream.Stream<Ndjson.Line | DecodeError, CliError.ClaudeCliError>

/**
 * Starts a session (see `Session.make`); it ends with the Scope.
 *
 * @since 0.1.0
 * @category models
 */
export type StartSession = <O extends Session.Options<any>>(
  options?: O
) => Effect.Effect<
  Session.Session,
  CliError.ClaudeCliError | SessionError.SessionError,
  Scope.Scope | Session.Services<O>
>

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Decoded messages; the first bad line fails the stream (after every message before it). */
  readonly query: (prompt: string, options?: QueryOptions.QueryOptions) => Stream.Stream<Message, CliError.ClaudeCliError>
  /** Decoded messages with bad lines reported in-band as `DecodeError` values; the stream goes on. */
  readonly queryLenient: (
    prompt: string,
    options?: QueryOptions.QueryOptions
  ) => Stream.Stream<Message | DecodeError, CliError.ClaudeCliError>
  /** The raw, numbered stdout lines (what recordings store). */
  readonly lines: Lines
  /** The run behind every query, for layers that wrap another (recording). */
  readonly run: Runner
  /** A long-lived CLI over stream-json stdin (several turns, permission callbacks, hooks, MCP tools). */
  readonly session: StartSession
}

/**
 * @since 0.1.0
 * @category services
 */
export class ClaudeCli extends Context.Service<ClaudeCli, Service>()("effect-claude-code/ClaudeCli") {}

/**
 * Redacts key-shaped values from a text (a run without an environment of its own).
 *
 * @since 0.1.0
 * @category redaction
 */
export const redactKeys: Redaction.Redact = Redaction.redactor([])

/**
 * A `DecodeError` whose raw cut and detail are redacted (see `DecodeError.redactDecodeError`): a bad line may
 * be a CLI or wrapper message that prints a credential. Without `redact`, key-shaped values are ({@link redactKeys}).
 *
 * @since 0.1.0
 * @category redaction
 */
export const redactDecodeError = (error: DecodeError, redact: Redaction.Redact = redactKeys): DecodeError =>
  redactWith(error, redact)

// The error of a bad line whose text is at hand: redacted before it is cut, so no cut can split a secret.
const redactLineError = (line: Ndjson.Line, error: DecodeError, redact: Redaction.Redact): DecodeError => {
  const text = redact(line.text)
  if (text === line.text) return error
  const again = Decode.decodeLineMessage({ line: line.line, text })
  // The line held a secret: its cause (quoting the line) goes with it.
  return isDecodeError(again) ? new DecodeError({ ...again, cause: undefined }) : redactDecodeError(error, redact)
}

/**
 * Turns a stream-layer `DecodeError` into the matching `ClaudeCliError`, redacted (see {@link redactDecodeError}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromDecodeError = (raw: DecodeError, redact?: Redaction.Redact): CliError.ClaudeCliError =>
  fromRedacted(redactDecodeError(raw, redact))

const fromRedacted = (error: DecodeError): CliError.ClaudeCliError =>
  CliError.make(
    error.reason === "LineTooLong"
      ? new CliError.LineTooLong({ line: error.line, limit: error.maxLineBytes ?? 0, raw: error.raw, cause: error })
      : new CliError.DecodeFailed({ line: error.line, raw: error.raw, issue: error.detail, cause: error })
  )

/**
 * Whether a failed run ended as the CLI ends after an error result (max turns, an API error, the budget): it
 * exits with a non-zero code, not by a signal, with no line cut. After an error result, such an exit is how
 * the run ends, not a failure of its own (see {@link decodeRun}).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isExitAfterResult = (error: CliError.ClaudeCliError): boolean => {
  const reason = error.reason
  return reason._tag === "ProcessExited" && reason.signal === null && reason.exitCode !== null &&
    reason.exitCode !== 0 && reason.cause === undefined
}

const isErrorResult = (message: Message): boolean =>
  message instanceof UnknownMessage ? message.raw.is_error === true : (message as { readonly is_error?: unknown }).is_error === true

interface Progress {
  messages: number
  /** How the last result message seen went. */
  result: "success" | "error" | undefined
}

// One synchronous pass per chunk (no Effect per line): decode, count, and stop at the first bad line when strict.
// `records`: emit each line's raw text with its message (a `Decode.DecodedLine`) instead of the message alone.
const decoder = (strict: boolean, progress: Progress, redact: Redaction.Redact, records: boolean): Stepper<Ndjson.Line | DecodeError, Message | Decode.DecodedLine | DecodeError, CliError.ClaudeCliError> => ({
  step: (chunk, out) => {
    for (let i = 0; i < chunk.length; i++) {
      const item = chunk[i]!
      const decoded = item instanceof DecodeError ? item : Decode.decodeLineMessage(item)
      if (decoded instanceof DecodeError) {
        const error = item instanceof DecodeError ? redactDecodeError(item, redact) : redactLineError(item, decoded, redact)
        if (strict) return fromRedacted(error)
        out.push(error)
        continue
      }
      progress.messages++
      if (decoded.type === "result") progress.result = isErrorResult(decoded) ? "error" : "success"
      out.push(records ? Decode.toRecord(item as Ndjson.Line, decoded) : decoded)
    }
    return undefined
  },
  flush: () => undefined
})

/**
 * A run's lines decoded; a run that ends without a `result` message fails with `MissingResult` (with the
 * CLI's stderr tail). A run whose last result is an error result and whose CLI then exits with a code (see
 * {@link isExitAfterResult}) ends normally: the result says what went wrong, and a `Summary` of the run is
 * kept. The exit code goes on the current span.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeRun = (run: Run, mode: "strict" | "lenient"): Stream.Stream<Message | DecodeError, CliError.ClaudeCliError> =>
  decodeRunAs(run, mode, false) as Stream.Stream<Message | DecodeError, CliError.ClaudeCliError>

/**
 * {@link decodeRun} keeping each line's text as written beside its message (what a tool that shows or stores
 * the lines needs), with the same ending.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeRunRecords = (
  run: Run,
  mode: "strict" | "lenient"
): Stream.Stream<Decode.DecodedLine | DecodeError, CliError.ClaudeCliError> =>
  decodeRunAs(run, mode, true) as Stream.Stream<Decode.DecodedLine | DecodeError, CliError.ClaudeCliError>

const decodeRunAs = (
  run: Run,
  mode: "strict" | "lenient",
  records: boolean
): Stream.Stream<Message | Decode.DecodedLine | DecodeError, CliError.ClaudeCliError> =>
  Stream.suspend(() => {
    const progress: Progress = { messages: 0, result: undefined }
    const end = Stream.unwrap(Effect.gen(function*() {
      const ended = yield* run.ended
      if (ended !== undefined) yield* Effect.annotateCurrentSpan(Telemetry.attributes.exitCode, ended.exitCode)
      if (progress.result !== undefined) return Stream.empty
      return Stream.fail(CliError.make(
        new CliError.MissingResult({ messages: progress.messages, stderrTail: ended?.stderrTail ?? "" })
      ))
    }))
    const decoded = applyStepper(run.lines, () => decoder(mode === "strict", progress, run.redact ?? redactKeys, records))
    return Stream.concat(
      Stream.catch(decoded, (error) =>
        progress.result === "error" && isExitAfterResult(error)
          ? Stream.fromEffectDrain(Effect.annotateCurrentSpan(
            Telemetry.attributes.exitCode,
            error.reason._tag === "ProcessExited" ? error.reason.exitCode : null
          ))
          : Stream.fail(error)),
      end
    )
  })

/**
 * Sessions for a layer without a CLI behind it: each fails with `SessionUnavailable` naming the layer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const sessionUnavailable = (layer: string): StartSession => () =>
  Effect.fail(CliError.make(new CliError.SessionUnavailable({ layer })))

/**
 * Builds the service from a runner; every layer (process, fixture, recording, scripted) goes through here, so
 * all decode, trace and measure the same way.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (run: Runner, session: StartSession): Service => {
  const decoded = (mode: "strict" | "lenient") => (prompt: string, options?: QueryOptions.QueryOptions) =>
    Telemetry.observe(Stream.unwrap(Effect.map(run(prompt, options), (started) => decodeRun(started, mode))), options)
  return {
    // Strict decoding fails at the first DecodeError, so none is ever emitted.
    query: decoded("strict") as Service["query"],
    queryLenient: decoded("lenient"),
    lines: (prompt, options) => Stream.unwrap(Effect.map(run(prompt, options), (started) => started.lines)),
    run,
    session
  }
}

/**
 * Runs a query with the `ClaudeCli` in context.
 *
 * @since 0.1.0
 * @category accessors
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 *
 * const program = ClaudeCli.query("Say hi").pipe(Stream.runCollect, Effect.provide(Live.layer()))
 * ```
 */
export const query = (
  prompt: string,
  options?: QueryOptions.QueryOptions
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
  options?: QueryOptions.QueryOptions
): Stream.Stream<Message | DecodeError, CliError.ClaudeCliError, ClaudeCli> =>
  Stream.unwrap(Effect.map(Effect.service(ClaudeCli), (cli) => cli.queryLenient(prompt, options)))

/**
 * Starts a session with the `ClaudeCli` in context, using the layer's executable and environment.
 *
 * @since 0.1.0
 * @category accessors
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 *
 * const program = Effect.gen(function*() {
 *   const session = yield* ClaudeCli.session({ model: "sonnet" })
 *   yield* Stream.runCollect(session.turn("Remember the number 7"))
 *   return yield* Stream.runCollect(session.turn("Which number?"))
 * }).pipe(Effect.scoped, Effect.provide(Live.layer()))
 * ```
 */
export const session = <O extends Session.Options<any>>(
  options?: O
): Effect.Effect<
  Session.Session,
  CliError.ClaudeCliError | SessionError.SessionError,
  ClaudeCli | Scope.Scope | Session.Services<O>
> => Effect.flatMap(Effect.service(ClaudeCli), (cli) => cli.session(options))
