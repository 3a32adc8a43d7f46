/**
 * Runs `claude -p` through the library's `ClaudeCli` and shows the session live; CLI failures become
 * {@link CliFailure.CliFailure}s a person can act on.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as Message from "../schema/Message.ts"
import * as Policy from "../session/Policy.ts"
import type * as SessionError from "../session/SessionError.ts"
import * as CliRun from "../layers/internal/run.ts"
import type * as ClaudeCliError from "../ClaudeCliError.ts"
import * as LiveLayer from "../layers/Live.ts"
import type * as QueryOptions from "../QueryOptions.ts"
import * as CliFailure from "./CliFailure.ts"
import type * as Display from "./Display.ts"
import * as Input from "./Input.ts"
import * as Live from "./Live.ts"

/**
 * Turns a `ClaudeCliError` into what the tool prints and its exit code.
 *
 * @since 0.1.0
 * @category errors
 */
export const fromClaudeCliError = (error: ClaudeCliError.ClaudeCliError): CliFailure.CliFailure => {
  const reason = error.reason
  switch (reason._tag) {
    case "ExecutableNotFound": {
      const where = reason.executable.includes("/") ? `at ${reason.executable}` : `"${reason.executable}" on PATH`
      return CliFailure.make(
        "CliMissing",
        `Claude Code CLI not found: no executable ${where}.\n` +
          // npm 11 wants install scripts approved; the CLI's puts its native binary in place.
          "Install it with `npm install -g @anthropic-ai/claude-code --allow-scripts=@anthropic-ai/claude-code`, " +
          "or point to it with " +
          "--claude /path/to/claude or CLAUDE_CODE_EXECUTABLE=/path/to/claude.",
        error
      )
    }
    case "SpawnFailed":
      return CliFailure.make("CliMissing", reason.message, error)
    default:
      return CliFailure.make("CliFailed", reason.message, error)
  }
}

/**
 * The `--policy` file: one that does not read is a usage error naming the line; its warnings go to standard
 * error, and the run goes on.
 *
 * @since 0.1.0
 * @category constructors
 */
export const loadPolicy = (
  file: Option.Option<string>
): Effect.Effect<Policy.Policy | undefined, CliFailure.CliFailure, FileSystem.FileSystem | Stdio.Stdio> =>
  Option.match(file, {
    onNone: () => Effect.succeed(undefined),
    onSome: (file) =>
      Policy.load(file).pipe(
        Effect.mapError((e) =>
          CliFailure.make("Usage", `--policy ${file}: ${e._tag === "PolicyError" ? e.message : Input.why(e)}`, e)
        ),
        Effect.tap((policy) =>
          policy.warnings.length === 0 ? Effect.void : Stdio.Stdio.pipe(
            Effect.flatMap((stdio) =>
              Stream.run(Stream.make(policy.warnings.map((w) => `--policy ${file}: ${w.message}\n`).join("")), stdio.stderr())
            ),
            Effect.ignore
          )
        )
      )
  })

/**
 * @since 0.1.0
 * @category models
 */
export interface ShowOptions {
  readonly executable?: string | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly prompt: string
  readonly query: QueryOptions.QueryOptions
  readonly display: Display.Options
  /** Decides the tool calls Claude Code asks about; the run then goes through a session (the control protocol). */
  readonly policy?: Policy.Policy | undefined
}

// A session's messages as the lines the display reads: re-encoded, since a session keeps no line as written.
const sessionRecords = (options: ShowOptions, policy: Policy.Policy) =>
  Stream.unwrap(Effect.gen(function*() {
    // `ask` has no one to ask here: those calls are denied, with a message saying so.
    const session = yield* ClaudeCli.session({ ...options.query, canUseTool: Policy.canUseTool(policy) })
    return Stream.zipWithIndex(session.turn(options.prompt)).pipe(
      Stream.map(([message, i]) => ({ line: i + 1, raw: JSON.stringify(Message.encodeMessage(message)), message }))
    )
  })).pipe(Stream.mapError((error) =>
    error._tag === "SessionError" ? CliFailure.make("CliFailed", (error as SessionError.SessionError).message, error) : fromClaudeCliError(error)
  ))

/**
 * Runs the CLI and displays its output as it comes. The CLI is started through the `ChildProcessSpawner` in
 * context (Node's in the tool; a fake or a spy in tests).
 *
 * @since 0.1.0
 * @category running
 */
export const show = (options: ShowOptions) =>
  Effect.gen(function*() {
    const cli = yield* ClaudeCli.ClaudeCli
    // The library's ending: after an error result (max turns, an API error) the CLI's exit 1 ends the run
    // normally, the result saying what happened; a run without a result fails (MissingResult).
    const run = yield* CliRun.runnerOf(cli)
    const records = options.policy !== undefined
      ? sessionRecords(options, options.policy)
      : Stream.unwrap(Effect.map(run(options.prompt, options.query), (started) =>
        CliRun.decodeRunRecords(started, "emit"))).pipe(Stream.mapError(fromClaudeCliError))
    return yield* Live.display(records, options.display)
  }).pipe(Effect.provide(LiveLayer.layerWith({ executable: options.executable, env: options.env })))
