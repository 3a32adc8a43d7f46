/**
 * The watchdog of a CLI's stdout: a run ends once the CLI has exited and its pipe has drained (a descendant may
 * hold it open), and, opt-in, fails when the CLI, still running, writes nothing for too long.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import * as CliError from "../../ClaudeCliError.ts"

/**
 * How long a run waits in all, once the CLI has exited, for more output on a pipe before taking it as
 * drained: 500 ms. A process the CLI started (a tool, a helper of a wrapper script) may keep stdout or stderr
 * open, and even write to it, after the CLI is gone; the run ends all the same (the time counts in total, not
 * per silence; only time spent waiting on the pipe counts, so what the CLI wrote before its exit is all read),
 * and with a guarded spawner (see `Process.nodeSpawner`) every descendant of the CLI is ended with it.
 *
 */
export const drainGracePeriod: Duration.Duration = Duration.millis(500)

/** What the watchdog reads of a started CLI (see `Running` in `spawn.ts`). */
export interface Exiting {
  readonly handle: ChildProcessSpawner.ChildProcessHandle
  /** Completes with the clock time at which the CLI was seen to exit. */
  readonly exited: Effect.Effect<number>
  /** The clock time at which the CLI was seen to exit; `undefined` while it runs. */
  readonly exitTime: () => number | undefined
}

// Once the CLI has exited, the stream ends when its pulls have waited on the pipe for `drainGracePeriod` in
// all: a total, so that a descendant writing now and then does not hold the run open for ever, and only time
// spent waiting, so that what the CLI wrote before its exit is read however slowly the consumer pulls. With
// `idle`, a pull fails when the CLI, still running, wrote nothing for that long. Only time spent waiting
// counts, never the time between pulls (a slow consumer).
export const endWhenDrained = <A, R>(
  self: Stream.Stream<A, CliError.ClaudeCliError, R>,
  cli: Exiting,
  idle: { readonly timeout: Duration.Input; readonly onIdle: () => CliError.ClaudeCliError } | undefined
): Stream.Stream<A, CliError.ClaudeCliError, R> =>
  Stream.transformPull(self, (pull) => {
    const handle = cli.handle
    const grace = Duration.toMillis(drainGracePeriod)
    // Milliseconds pulls have waited since the exit.
    let waited = 0
    const waitedSince = (started: number) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const at = cli.exitTime()
        return at === undefined ? 0 : Math.max(0, now - Math.max(at, started))
      })
    const idleFail = idle === undefined ? Effect.never : Effect.sleep(idle.timeout).pipe(
      Effect.andThen(Effect.orElseSucceed(handle.isRunning, () => false)),
      // Once the CLI has exited, silence is a descendant holding the pipe: the drain ends the stream.
      Effect.flatMap((running) => running ? Effect.fail(idle.onIdle()) : Effect.never)
    )
    const timedPull = Effect.flatMap(Clock.currentTimeMillis, (started) => {
      const end = cli.exited.pipe(
        Effect.andThen(waitedSince(started)),
        Effect.flatMap((now) => Effect.sleep(Math.max(0, grace - waited - now))),
        Effect.andThen(Cause.done())
      )
      // Without an idle timeout, no third fiber per pull that would never finish.
      return (idle === undefined ? Effect.raceFirst(pull, end) : Effect.raceAllFirst([pull, end, idleFail])).pipe(
        Effect.ensuring(Effect.map(waitedSince(started), (w) => {
          waited += w
        }))
      )
    })
    return Effect.succeed(timedPull)
  })

/**
 * The error of a CLI that wrote nothing on stdout for `timeout` (see `Config.idleTimeout`) after line
 * `lastLine` (0: none).
 */
export const idleTimeoutError = (timeout: Duration.Input, lastLine: number, stderrTail: string): CliError.ClaudeCliError =>
  CliError.make(new CliError.IdleTimeout({ timeoutMillis: Duration.toMillis(timeout), lastLine, stderrTail }))

