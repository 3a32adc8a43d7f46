/**
 * The one error a `ClaudeCli` stream fails with. The `reason` says what went wrong and carries the data to act
 * on; `message` is readable on its own.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { installCli } from "./internal/installCli.ts"
import * as MessageJson from "./schema/internal/messageJson.ts"
import { UnknownMessage } from "./schema/Message.ts"
import * as ResultMessage from "./schema/Result.ts"
import * as SessionStore from "./store/StoreContract.ts"

/**
 * The CLI executable could not be found.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ExecutableNotFound extends Schema.TaggedError<ExecutableNotFound>()("ExecutableNotFound", {
  /** What was looked for: a bare name (searched on `PATH`) or a path. */
  executable: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const where = this.executable.includes("/") ? `at "${this.executable}"` : `"${this.executable}" on PATH`
    // A local install is on PATH only inside npm scripts and npx.
    return `Claude Code CLI not found: no executable ${where}. To use the pinned CLI of a project, ${installCli}, ` +
      `then run through an npm script or npx (they put node_modules/.bin on PATH), or configure the path with ` +
      `Live.layer({ executable: "node_modules/.bin/claude" }).`
  }
}

/**
 * The operating system refused to start the CLI (permissions, a bad working directory, ...).
 *
 * @since 0.1.0
 * @category reasons
 */
export class SpawnFailed extends Schema.TaggedError<SpawnFailed>()("SpawnFailed", {
  executable: Schema.String,
  description: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Could not start the Claude Code CLI "${this.executable}": ${this.description}`
  }
}

/**
 * No CLI slot came free in time: `max` CLIs were alive for the whole wait (`CliSlots` in effect-claude-code/governance).
 *
 * @since 0.1.0
 * @category reasons
 */
export class NoCliSlot extends Schema.TaggedError<NoCliSlot>()("NoCliSlot", {
  max: Schema.Number,
  waitedMillis: Schema.Number,
  /** The setting that bounds the wait. */
  option: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `No CLI slot came free: all ${this.max} were taken for the ${this.waitedMillis}ms waited (${this.option})`
  }
}

/**
 * The CLI exited unsuccessfully: a non-zero exit code or a signal. A query whose last result is an error
 * result (max turns, an API error, the budget) does not fail with it when the CLI then exits with a code: the
 * CLI exits 1 after such a result, which already says what happened.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ProcessExited extends Schema.TaggedError<ProcessExited>()("ProcessExited", {
  /** `null` when the process was ended by a signal. */
  exitCode: Schema.NullOr(Schema.Number),
  signal: Schema.NullOr(Schema.String),
  /** The last few KB the CLI wrote to stderr, secrets redacted. */
  stderrTail: Schema.String,
  /** Why the output stream stopped, when it stopped abnormally too (for example a line cut by the kill). */
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const how = this.signal !== null ? `was killed by ${this.signal}` : `exited with code ${this.exitCode}`
    const tail = this.stderrTail.trim()
    return `The Claude Code CLI ${how}` + (tail === "" ? " (stderr was empty)" : `; stderr:\n${tail}`)
  }
}

/**
 * The CLI wrote an error result (max turns, an API error, the budget) and then exited with a non-zero code.
 * A query fails with it only when asked to (`failOnErrorResult: true`); by default such a run ends normally,
 * with the result as its last message.
 *
 * @since 0.1.0
 * @category reasons
 */
type ResultLine = ResultMessage.ResultError | ResultMessage.ResultSuccess | UnknownMessage

const isResultLine = (input: unknown): input is ResultLine =>
  input instanceof ResultMessage.ResultError || input instanceof ResultMessage.ResultSuccess ||
  input instanceof UnknownMessage

// The result travels as the CLI's own JSON (see schema/internal/messageJson); one this version cannot type is
// kept whole, as the stream keeps it.
const ResultLine: Schema.Codec<ResultLine, Schema.Json> = MessageJson.make(
  "effect-claude-code/ResultLine",
  isResultLine,
  (json) => Predicate.isObject(json) && !Array.isArray(json) ? new UnknownMessage({ raw: json as { readonly type: string } }) : undefined
)

export class ErrorResultExit extends Schema.TaggedError<ErrorResultExit>()("ErrorResultExit", {
  /** The error result the CLI wrote last. */
  result: ResultLine,
  exitCode: Schema.Number,
  /** The last few KB the CLI wrote to stderr, secrets redacted. */
  stderrTail: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const raw = this.result instanceof UnknownMessage ? this.result.raw : this.result
    const subtype = typeof raw.subtype === "string" ? raw.subtype : "error"
    const errors = "errors" in raw && Array.isArray(raw.errors) ? raw.errors.join("; ") : ""
    const text = errors !== "" ? errors : "result" in raw && typeof raw.result === "string" ? raw.result : ""
    return `The Claude Code CLI exited with code ${this.exitCode} after an error result (${subtype})` +
      (text === "" ? "" : `: ${text}`)
  }
}

/**
 * A stdout line could not be decoded as a stream-json message.
 *
 * @since 0.1.0
 * @category reasons
 */
export class DecodeFailed extends Schema.TaggedError<DecodeFailed>()("DecodeFailed", {
  /** 1-based line number in the CLI's stdout. */
  line: Schema.Number,
  /** A cut of the raw line. */
  raw: Schema.String,
  /** What was wrong (JSON syntax or the schema issue). */
  issue: Schema.String,
  /** The stream layer's own error, kept whole. */
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Line ${this.line} of the CLI output is not a valid stream-json message: ${this.issue}\n  ${this.raw}`
  }
}

/**
 * A stdout line exceeded the configured maximum length.
 *
 * @since 0.1.0
 * @category reasons
 */
export class LineTooLong extends Schema.TaggedError<LineTooLong>()("LineTooLong", {
  /** 1-based line number in the CLI's stdout. */
  line: Schema.Number,
  /** The limit in bytes. */
  limit: Schema.Number,
  /** A cut of the start of the line. */
  raw: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Line ${this.line} of the CLI output is longer than the limit of ${this.limit} bytes (maxLineBytes)\n  ${this.raw}`
  }
}

/**
 * The CLI exited successfully but never wrote a `result` message.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MissingResult extends Schema.TaggedError<MissingResult>()("MissingResult", {
  /** How many messages arrived before the output ended. */
  messages: Schema.Number,
  stderrTail: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const tail = this.stderrTail.trim()
    return `The Claude Code CLI output ended after ${this.messages} message(s) without a result message` +
      (tail === "" ? "" : `; stderr:\n${tail}`)
  }
}

/**
 * The CLI wrote nothing on stdout for longer than the configured `idleTimeout` while the stream was
 * waiting for its next line (time the consumer spends not pulling never counts). The CLI is then ended.
 *
 * @since 0.1.0
 * @category reasons
 */
export class IdleTimeout extends Schema.TaggedError<IdleTimeout>()("IdleTimeout", {
  timeoutMillis: Schema.Number,
  /** The number of the last stdout line received (0: none). */
  lastLine: Schema.Number,
  stderrTail: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const tail = this.stderrTail.trim()
    const where = this.lastLine === 0 ? "before its first line" : `after line ${this.lastLine}`
    return `The Claude Code CLI wrote nothing for ${this.timeoutMillis} ms ${where} (idleTimeout); it was terminated` + (tail === "" ? "" : `; stderr:\n${tail}`)
  }
}

/**
 * The layer cannot run what was asked: a fixture replays recorded output, so it has no CLI to hold a
 * session with.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SessionUnavailable extends Schema.TaggedError<SessionUnavailable>()("SessionUnavailable", {
  /** Which layer refused (`"Fixture"`, ...). */
  layer: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `ClaudeCli.session needs a live CLI, but the ${this.layer} layer replays recorded output; ` +
      `provide Live.layer (or Scripted.layer in tests) for sessions.`
  }
}

/**
 * Options that cannot work together (`resume` with `continue`, `sandbox` with a settings file, ...): the CLI
 * was not started.
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidOptions extends Schema.TaggedError<InvalidOptions>()("InvalidOptions", {
  description: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Invalid options: ${this.description}`
  }
}

/**
 * A fixture (a recording replayed by the Fixture layer) could not be read: a missing or unreadable file, or
 * metadata beside it that is not a recording's.
 *
 * @since 0.1.0
 * @category reasons
 */
export class FixtureUnreadable extends Schema.TaggedError<FixtureUnreadable>()("FixtureUnreadable", {
  /** The file that could not be read. */
  path: Schema.String,
  description: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Cannot replay the fixture "${this.path}": ${this.description}`
  }
}

/**
 * A run could not be recorded (the Recording layer): the recording's directory is missing or not writable,
 * or a write failed. The run is not started, or is ended.
 *
 * @since 0.1.0
 * @category reasons
 */
export class RecordingFailed extends Schema.TaggedError<RecordingFailed>()("RecordingFailed", {
  /** Where the recording was to be written. */
  path: Schema.String,
  description: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Cannot record the run to "${this.path}": ${this.description}`
  }
}

/**
 * Every reason a `ClaudeCliError` can carry.
 *
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Union([
  ExecutableNotFound,
  SpawnFailed,
  NoCliSlot,
  ProcessExited,
  ErrorResultExit,
  DecodeFailed,
  LineTooLong,
  MissingResult,
  IdleTimeout,
  SessionUnavailable,
  InvalidOptions,
  FixtureUnreadable,
  RecordingFailed,
  // The `sessionStore` option's store failed before the CLI started (reading the session to resume).
  SessionStore.SessionStoreError
])

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

/**
 * The error of every `ClaudeCli` stream. Recover by reason with
 * `Effect.catchReason("ClaudeCliError", "ProcessExited", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class ClaudeCliError extends Schema.TaggedError<ClaudeCliError>()("ClaudeCliError", {
  reason: Reason
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.reason.message
  }
}

/**
 * Wraps a reason.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (reason: Reason): ClaudeCliError => new ClaudeCliError({ reason })

/**
 * @since 0.1.0
 * @category guards
 */
export const isClaudeCliError = (u: unknown): u is ClaudeCliError => u instanceof ClaudeCliError
