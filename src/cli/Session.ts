/**
 * Runs `claude -p` through the library's `ClaudeCli` and shows the session live; CLI failures become
 * {@link CliFailure.CliFailure}s a person can act on.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as CliRun from "../layers/internal/run.ts"
import type * as ClaudeCliError from "../ClaudeCliError.ts"
import * as LiveLayer from "../layers/Live.ts"
import type * as QueryOptions from "../QueryOptions.ts"
import * as CliFailure from "./CliFailure.ts"
import type * as Display from "./Display.ts"
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
 * @since 0.1.0
 * @category models
 */
export interface ShowOptions {
  readonly executable?: string | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly prompt: string
  readonly query: QueryOptions.QueryOptions
  readonly display: Display.Options
}

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
    const records = Stream.unwrap(Effect.map(run(options.prompt, options.query), (started) =>
      CliRun.decodeRunRecords(started, "emit"))).pipe(Stream.mapError(fromClaudeCliError))
    return yield* Live.display(records, options.display)
  }).pipe(Effect.provide(LiveLayer.layerWith({ executable: options.executable, env: options.env })))
