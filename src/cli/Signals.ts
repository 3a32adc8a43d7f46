/**
 * How the `effect-claude-code` executable ends on a signal: SIGINT (Ctrl-C), SIGTERM, SIGHUP (its terminal
 * closed) and SIGQUIT interrupt the program, so that the Claude Code CLI it runs is ended (its whole process
 * group) and the display finishes its spinner line; the process then exits with the conventional code of the
 * signal, 128 plus its number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP, 131 for SIGQUIT).
 *
 * @since 0.1.0
 */
import * as Runtime from "effect/Runtime"
import * as os from "node:os"

/**
 * The signals that end the executable in order.
 *
 * @since 0.1.0
 * @category constants
 */
export const handled = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const

/**
 * The exit code of a process ended by `signal`: 128 plus the signal's number.
 *
 * @since 0.1.0
 * @category constants
 */
export const exitCode = (signal: NodeJS.Signals): number => 128 + os.constants.signals[signal]

/**
 * Runs the program as the process's main fiber. The first handled signal interrupts it and decides the exit
 * code; a second one exits at once, with that code, for a person who does not want to wait for the cleanup.
 *
 * @since 0.1.0
 * @category running
 */
export const runMain = Runtime.makeRunMain(({ fiber, teardown }) => {
  let received: NodeJS.Signals | undefined
  const listeners = handled.map((signal) => {
    const listener = () => {
      if (received !== undefined) process.exit(exitCode(received))
      received = signal
      fiber.interruptUnsafe(fiber.id)
    }
    process.on(signal, listener)
    return [signal, listener] as const
  })
  fiber.addObserver((exit) => {
    for (const [signal, listener] of listeners) process.removeListener(signal, listener)
    teardown(exit, (code) => {
      if (received !== undefined) process.exit(exitCode(received))
      if (code !== 0) process.exit(code)
    })
  })
})
