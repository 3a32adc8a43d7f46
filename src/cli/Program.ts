/**
 * The `effect-claude-code` program: its commands run with the Node services, the guarded spawner and the
 * signal handling ({@link run}), as the executable starts it.
 *
 * @since 0.1.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"
import * as Process from "../process/Process.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Commands from "./Commands.ts"
import * as Signals from "./Signals.ts"

/**
 * Runs the command line of this process to its end (the process's exit code is the command's).
 *
 * @since 0.1.0
 * @category running
 */
export const run = (): void =>
  Effect.flatMap(Commands.version, (version) => Command.run(Commands.command, { version })).pipe(
    // effect/cli already printed the usage error with the help; only the exit code is ours.
    Effect.catchIf(CliError.isCliError, () => Effect.fail(new CliFailure.SilentExit({ code: CliFailure.ExitCode.Usage }))),
    // The guarded spawner: the Claude Code CLI ends with this process however it dies (see Process.nodeSpawner).
    Effect.provide(Process.nodeSpawner),
    Effect.provide(Layer.provideMerge(TerminalCapabilities.layer, NodeServices.layer)),
    Signals.runMain
  )
