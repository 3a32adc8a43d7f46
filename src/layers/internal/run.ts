/**
 * What the layers share to build and wrap the `ClaudeCli` service: a run (raw lines and how the process
 * ended), its decoding, and the runner behind every service built here.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { QueryOptions as QueryOptionsWith, Service, StartSession } from "../../ClaudeCli.ts"
import * as CliError from "../../ClaudeCliError.ts"
import type * as QueryOptions from "../../QueryOptions.ts"
import * as DerivedOptions from "../../internal/queryOptions.ts"
import type * as Redaction from "../../internal/redaction.ts"
import { type Message, UnknownMessage } from "../../schema/Message.ts"
import * as Decode from "../../stream/Decode.ts"
import { DecodeError } from "../../stream/DecodeError.ts"
import { applyStepper, type Stepper } from "../../stream/internal/stepper.ts"
import type * as Ndjson from "../../stream/Ndjson.ts"
import * as SessionMirror from "../../store/SessionMirror.ts"
import * as Telemetry from "../../Telemetry.ts"
import { fromRedacted, redactDecodeError, redactKeys, redactLineError } from "../../internal/badLine.ts"

/**
 * How a CLI process ended, known once its output has ended.
 *
 */
export interface Ended {
  readonly exitCode: number | null
  /** The last few KB of stderr, secrets redacted. */
  readonly stderrTail: string
}

/**
 * One started run: its raw stdout lines (bad lines in-band) and how it ended.
 *
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
  /** Where the `sessionStore` option mirrors the run, its config directory resolved by the runner. */
  readonly mirror?: SessionMirror.Target | undefined
}

/**
 * Starts one run; the process (if any) lives as long as the Scope.
 *
 */
export type Runner = (prompt: string, options?: QueryOptions.QueryOptions) => Effect.Effect<Run, CliError.ClaudeCliError, Scope.Scope>

/**
 * Whether a failed run ended as the CLI ends after an error result (max turns, an API error, the budget): it
 * exits with a non-zero code, not by a signal, with no line cut. After an error result, such an exit is how
 * the run ends, not a failure of its own (see {@link decodeRun}).
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
  /** The last result message seen, for `failOnErrorResult`. */
  last: Message | undefined
}

// One synchronous pass per chunk (no Effect per line): decode, count, and stop at the first bad line unless `emit`.
// `records`: emit each line's raw text with its message (a `Decode.DecodedLine`) instead of the message alone.
const decoder = (emit: boolean, progress: Progress, redact: Redaction.Redact, records: boolean): Stepper<Ndjson.Line | DecodeError, Message | Decode.DecodedLine | DecodeError, CliError.ClaudeCliError> => ({
  step: (chunk, out) => {
    for (let i = 0; i < chunk.length; i++) {
      const item = chunk[i]!
      const decoded = item instanceof DecodeError ? item : Decode.decodeLineMessage(item)
      if (decoded instanceof DecodeError) {
        const error = item instanceof DecodeError ? redactDecodeError(item, redact) : redactLineError(item, decoded, redact)
        if (!emit) return fromRedacted(error)
        out.push(error)
        continue
      }
      progress.messages++
      if (decoded.type === "result") {
        progress.result = isErrorResult(decoded) ? "error" : "success"
        progress.last = decoded
      }
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
 * kept; with `failOnErrorResult` it fails after the result with `ErrorResultExit`. The exit code goes on the
 * current span.
 */
export const decodeRun = (
  run: Run,
  onBadLine: Ndjson.OnBadLine,
  failOnErrorResult = false
): Stream.Stream<Message | DecodeError, CliError.ClaudeCliError> =>
  decodeRunAs(run, onBadLine, false, failOnErrorResult) as Stream.Stream<Message | DecodeError, CliError.ClaudeCliError>

/**
 * {@link decodeRun} keeping each line's text as written beside its message (what a tool that shows or stores
 * the lines needs), with the same ending.
 */
export const decodeRunRecords = (
  run: Run,
  onBadLine: Ndjson.OnBadLine
): Stream.Stream<Decode.DecodedLine | DecodeError, CliError.ClaudeCliError> =>
  decodeRunAs(run, onBadLine, true, false) as Stream.Stream<Decode.DecodedLine | DecodeError, CliError.ClaudeCliError>

const decodeRunAs = (
  run: Run,
  onBadLine: Ndjson.OnBadLine,
  records: boolean,
  failOnErrorResult: boolean
): Stream.Stream<Message | Decode.DecodedLine | DecodeError, CliError.ClaudeCliError> =>
  Stream.suspend(() => {
    const progress: Progress = { messages: 0, result: undefined, last: undefined }
    const end = Stream.unwrap(Effect.gen(function*() {
      const ended = yield* run.ended
      if (ended !== undefined) yield* Effect.annotateCurrentSpan(Telemetry.attributes.exitCode, ended.exitCode)
      if (progress.result !== undefined) return Stream.empty
      return Stream.fail(CliError.make(
        new CliError.MissingResult({ messages: progress.messages, stderrTail: ended?.stderrTail ?? "" })
      ))
    }))
    const decoded = applyStepper(run.lines, () => decoder(onBadLine === "emit", progress, run.redact ?? redactKeys, records))
    return Stream.concat(
      Stream.catch(decoded, (error) => {
        if (progress.result !== "error" || !isExitAfterResult(error) || error.reason._tag !== "ProcessExited") {
          return Stream.fail(error)
        }
        const { exitCode, stderrTail } = error.reason
        const annotated = Stream.fromEffectDrain(Effect.annotateCurrentSpan(Telemetry.attributes.exitCode, exitCode))
        return failOnErrorResult && exitCode !== null && progress.last !== undefined
          ? Stream.concat(
            annotated,
            Stream.fail(CliError.make(new CliError.ErrorResultExit({ result: progress.last as CliError.ErrorResultExit["result"], exitCode, stderrTail })))
          )
          : annotated
      }),
      end
    )
  })

/**
 * Sessions for a layer without a CLI behind it: each fails with `SessionUnavailable` naming the layer.
 */
export const sessionUnavailable = (layer: string): StartSession => () =>
  Effect.fail(CliError.make(new CliError.SessionUnavailable({ layer })))

// The runner behind each service built by `make`, for a layer that wraps another (recording).
const runners = new WeakMap<Service, Runner>()

/**
 * The runner behind a service built by {@link make}; a service built otherwise is a defect here.
 */
export const runnerOf = (service: Service): Effect.Effect<Runner> => {
  const runner = runners.get(service)
  return runner === undefined
    ? Effect.die(new Error("the ClaudeCli service was not built by an effect-claude-code layer: it has no runner to wrap"))
    : Effect.succeed(runner)
}

/**
 * Builds the service from a runner; every layer (process, fixture, recording, scripted) goes through here, so
 * all decode, trace and measure the same way.
 */
export const make = (run: Runner, session: StartSession): Service => {
  const query = (prompt: string, options?: QueryOptionsWith) => {
    const { onBadLine = "fail", ...queryOptions } = options ?? {}
    return Telemetry.observe(
      Stream.unwrap(Effect.gen(function*() {
        const started = yield* run(prompt, queryOptions)
        const decoded = decodeRun(started, onBadLine, queryOptions.failOnErrorResult === true)
        if (started.mirror === undefined) return decoded
        // Options the process would refuse are refused before the store writes into the config directory.
        const problem = DerivedOptions.invalid(queryOptions)
        if (problem !== undefined) return yield* Effect.fail(CliError.make(new CliError.InvalidOptions({ description: problem })))
        // Before the process starts (it does when `lines` is read): the session to resume, from the store.
        const target = yield* Effect.mapError(SessionMirror.restore(started.mirror, queryOptions.resume), CliError.make)
        return SessionMirror.mirror(target)(decoded)
      })),
      queryOptions
    )
  }
  // Failing at the first DecodeError, `query` emits none unless asked to.
  const service: Service = { query: query as Service["query"], session }
  runners.set(service, run)
  return service
}

