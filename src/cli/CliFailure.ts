/**
 * The errors the command-line tool shows to a person: a readable message, no stack trace, and a documented
 * exit code. `Command.run` renders any error carrying `CliError.userMessage`; `NodeRuntime.runMain` exits with
 * the code under `Runtime.errorExitCode`.
 *
 * @since 0.1.0
 */
import * as CliError from "effect/cli/CliError"
import * as Predicate from "effect/Predicate"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as Redaction from "../internal/redaction.ts"

/**
 * The exit codes of `effect-claude-code`, as listed in `--help`.
 *
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = {
  /** Everything went fine. */
  Ok: 0,
  /** The stream itself reported a problem: a line failed to decode, or the session ended with an error result. */
  StreamProblem: 1,
  /** The command line was wrong: an unknown flag, a bad `--filter` expression. */
  Usage: 2,
  /** The input could not be read or is neither stream-json nor a transcript (no line decodes: none at all, or only bad ones). */
  BadInput: 3,
  /** The Claude Code CLI could not be found or started. */
  CliMissing: 4,
  /** The Claude Code CLI died (non-zero exit, signal) or its output broke off. */
  CliFailed: 5,
  /** Interrupted (Ctrl-C). */
  Interrupted: 130
} as const

/**
 * The exit-code table as printed at the end of every command's `--help`.
 *
 * @since 0.1.0
 * @category constants
 */
export const exitCodeHelp: string = [
  "Exit codes:",
  "  0    success",
  "  1    a line failed to decode (stats, view) or the session ended with an error",
  "  2    usage error: unknown flag, bad --filter expression (with its position)",
  "  3    input error: unreadable file, or neither stream-json nor a session transcript: no line decodes",
  "       (an empty file, only bad lines); a file of several or of a directory too, named once after the",
  "       others are shown or counted; view --strict stops at the first bad line",
  "  4    the Claude Code CLI was not found or could not be started",
  "  5    the Claude Code CLI failed: non-zero exit, killed, or output cut off",
  "  130  interrupted (Ctrl-C); on another signal 128 plus its number: 129 SIGHUP, 131 SIGQUIT, 143 SIGTERM"
].join("\n")

// What every reason carries: the readable explanation, including what to do about it, and the underlying error.
const failureFields = { detail: Schema.String, cause: Schema.optional(Schema.Defect()) }

/**
 * The stream itself reported a problem: a line failed to decode, or the session ended with an error result.
 *
 * @since 0.1.0
 * @category reasons
 */
export class StreamProblem extends Schema.TaggedError<StreamProblem>()("StreamProblem", failureFields) {
  override get message(): string {
    return this.detail
  }
}

/**
 * The command line was wrong: an unknown flag, a bad `--filter` expression.
 *
 * @since 0.1.0
 * @category reasons
 */
export class Usage extends Schema.TaggedError<Usage>()("Usage", failureFields) {
  override get message(): string {
    return this.detail
  }
}

/**
 * The input could not be read or is neither stream-json nor a session transcript.
 *
 * @since 0.1.0
 * @category reasons
 */
export class BadInput extends Schema.TaggedError<BadInput>()("BadInput", failureFields) {
  override get message(): string {
    return this.detail
  }
}

/**
 * The Claude Code CLI could not be found or started.
 *
 * @since 0.1.0
 * @category reasons
 */
export class CliMissing extends Schema.TaggedError<CliMissing>()("CliMissing", failureFields) {
  override get message(): string {
    return this.detail
  }
}

/**
 * The Claude Code CLI died (non-zero exit, signal) or its output broke off.
 *
 * @since 0.1.0
 * @category reasons
 */
export class CliFailed extends Schema.TaggedError<CliFailed>()("CliFailed", failureFields) {
  override get message(): string {
    return this.detail
  }
}

/**
 * Why the tool stopped.
 *
 * @since 0.1.0
 * @category models
 */
export const Reason = Schema.Union([StreamProblem, Usage, BadInput, CliMissing, CliFailed])

/**
 * @since 0.1.0
 * @category models
 */
export type Reason = typeof Reason.Type

const reasons = { StreamProblem, Usage, BadInput, CliMissing, CliFailed }

/**
 * A failure the person at the terminal can act on. Rendered as its message (no stack trace) and mapped to the
 * exit code of its reason.
 *
 * @since 0.1.0
 * @category errors
 */
export class CliFailure extends Schema.TaggedError<CliFailure>()("CliFailure", { reason: Reason }) {
  /**
   * The readable explanation, including what to do about it.
   *
   * @since 0.1.0
   */
  get detail(): string {
    return this.reason.detail
  }
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.reason.detail
  }
  /**
   * @since 0.1.0
   */
  override get [CliError.userMessage](): string {
    // effect/cli indents the first line under "ERROR"; the rest follow it. Redacted: a detail may quote what a
    // file or a process printed.
    return Redaction.processRedactor()(this.reason.detail).replace(/\n/g, "\n  ")
  }
  /**
   * @since 0.1.0
   */
  override get [Runtime.errorExitCode](): number {
    return ExitCode[this.reason._tag]
  }
}

/**
 * Ends the tool with an exit code after the output already said what went wrong (for example `stats` found
 * lines that failed to decode and listed them): nothing more is printed.
 *
 * @since 0.1.0
 * @category errors
 */
export class SilentExit extends Schema.TaggedError<SilentExit>()("SilentExit", { code: Schema.Number }) {
  /**
   * @since 0.1.0
   */
  override get [Runtime.errorExitCode](): number {
    return this.code
  }
  /** The output already explained it; the runtime must not log it again. */
  override readonly [Runtime.errorReported] = false
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isCliFailure = (u: unknown): u is CliFailure => Predicate.isTagged(u, "CliFailure")

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (reason: Reason["_tag"], detail: string, cause?: unknown): CliFailure =>
  new CliFailure({ reason: new reasons[reason](cause === undefined ? { detail } : { detail, cause }) })
