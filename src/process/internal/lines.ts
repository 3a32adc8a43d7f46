/**
 * One CLI run as a stream of its stdout lines, framed as its newlines arrive, then its exit as a typed error
 * when it failed.
 */
import * as Effect from "effect/Effect"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import * as CliError from "../../ClaudeCliError.ts"
import * as QueryOptions from "../../QueryOptions.ts"
import * as DerivedOptions from "../../internal/queryOptions.ts"
import type * as Redaction from "../../internal/redaction.ts"
import { isJson } from "../../stream/internal/json.ts"
import { type DecodeError, isDecodeError } from "../../stream/DecodeError.ts"
import { cutRaw, redactCutAtEnd, withFields } from "../../stream/internal/cut.ts"
import { applyStepper, type Stepper } from "../../stream/internal/stepper.ts"
import * as Ndjson from "../../stream/Ndjson.ts"
import * as Drain from "./drain.ts"
import * as Spawn from "./spawn.ts"

// Behaviour under faults (each case tested against a real misbehaving process: `FaultCli`, see
// test/reliability/Faults.test.ts):
// - Non-zero exit: every completed message, then `ProcessExited` with the exit code and the last
//   `stderrTailBytes` (default 8 KiB) of stderr, redacted before the tail is cut so no piece of a secret
//   is left at its start. After an error result (max turns, API error) the CLI exits 1; `ClaudeCli.query`
//   then ends normally, the result saying what failed.
// - Killed by a signal: the same, with `signal` set and `exitCode` null.
// - Stopped mid-line: on a failed exit, a last unterminated line that is not whole JSON was cut; it is kept,
//   redacted, as the error's `cause`. On exit 0 it is decoded like any line.
// - Lines split across writes, pauses: a line is emitted as soon as its newline arrives.
// - The stream ends first (take, interruption, timeout): SIGTERM to the process group, SIGKILL after
//   `killGracePeriod` (default 3 s); the scope closes only once the process is gone.
// - Hangs with no output: only `idleTimeout` (no default) ends it, with `IdleTimeout`; the timer runs only
//   while the stream waits for the CLI, never because the consumer is slow.
// - Floods stdout: stdout is read only when the consumer pulls, so backpressure reaches the pipe; memory
//   stays bounded by the buffers plus one line (up to `maxLineBytes`).
// - Heavy stderr: always drained into a bounded tail, so it never blocks the CLI.
// - Never reads stdin: an unread prompt (even larger than the pipe) blocks nothing.
// - Exits while a process it started holds stdout or stderr open (and writes to it): once the CLI has exited
//   and pulls have waited `drainGracePeriod` in all, the pipe counts as drained, the run ends as the exit
//   says, and the rest of the group is ended; with a guarded spawner, every descendant of the CLI too.
// - The run ends (normally, by an error, an interruption, a signal to the bin): with a guarded spawner
//   (`guard`; `nodeSpawner` and so the Live and Scripted layers and the bin are), the CLI's process group and
//   every descendant recorded (tools in sessions of their own) get SIGTERM, SIGKILL after the kill grace
//   period, and the run's scope waits until they are gone.
// - The host dies (SIGKILL, SIGHUP, SIGQUIT, a crash): with a guarded spawner, the CLI's process group and its
//   descendants (recorded, and those still under it) get SIGTERM at once and SIGKILL after `guardGracePeriod`.

/**
 * The stdout of a started CLI as numbered lines, then its exit as a typed error when it failed.
 * Only an unterminated last line waits for the exit status, which says whether it was cut.
 */
export const output = (
  cli: Spawn.Running,
  options: Pick<Spawn.Config, "maxLineBytes" | "idleTimeout"> & { readonly executable: string }
): Stream.Stream<Ndjson.Line | DecodeError, CliError.ClaudeCliError> => {
  let lastLine = 0
  let unterminated: Array<Ndjson.Line | DecodeError> = []
  const stdout = Stream.mapError(cli.handle.stdout, (error) =>
    CliError.make(
      new CliError.SpawnFailed({
        executable: options.executable,
        description: `reading stdout failed: ${error.message}`,
        cause: error
      })
    ))
  const timeout = options.idleTimeout
  const timed = Drain.endWhenDrained(
    stdout,
    cli,
    timeout === undefined ? undefined : { timeout, onIdle: () => Drain.idleTimeoutError(timeout, lastLine, cli.stderrTail()) }
  )
  const body = applyStepper(timed, (): Stepper<Uint8Array, Ndjson.Line | DecodeError, never> => {
    const splitter = Ndjson.makeSplitter({ maxLineBytes: options.maxLineBytes, onBadLine: "emit" })
    return {
      step: (chunks, out) => {
        Ndjson.pushAll(splitter, chunks, out)
        if (out.length > 0) lastLine = out[out.length - 1]!.line
        return undefined
      },
      flush: () => {
        splitter.end(unterminated)
        return undefined
      }
    }
  })
  const end = Stream.unwrap(Effect.gen(function*() {
    const status = yield* cli.exitStatus
    const stderrTail = yield* cli.finalStderrTail
    const [last] = unterminated
    unterminated = []
    if (status.exitCode === 0) return last === undefined ? Stream.empty : Stream.make(redactCut(last, cli.redact))
    // A whole JSON value without its newline is a complete message; anything else was cut by the ending.
    const kept = last !== undefined && !isDecodeError(last) && isJson(last.text)
    const cut = last === undefined || kept ? undefined : last
    const exited = CliError.make(
      new CliError.ProcessExited({
        exitCode: status.exitCode,
        signal: status.signal,
        stderrTail,
        ...(cut === undefined ? {} : {
          // Redacted before it is cut; its end, where the kill or exit cut it, is a cut edge.
          cause: `line ${cut.line} was cut by the ${status.signal === null ? "exit" : "kill"}: ` +
            (isDecodeError(cut) ? redactCutAtEnd(cut.raw, cli.redact) : cutRaw(cli.redact(cut.text, { end: true })))
        })
      })
    )
    return Stream.concat(kept ? Stream.make(last) : Stream.empty, Stream.fail(exited))
  }))
  return Stream.concat(body, end)
}

// A last line without its newline: whole JSON is a message; anything else was cut by the exit, at its end.
const redactCut = (last: Ndjson.Line | DecodeError, redact: Redaction.Redact): Ndjson.Line | DecodeError =>
  isDecodeError(last)
    ? withFields(last, { raw: redactCutAtEnd(last.raw, redact) })
    : isJson(last.text)
    ? last
    : { ...last, text: redact(last.text, { end: true }) }

const mergedEnv = (layer: Spawn.Config["env"], own: Spawn.Config["env"]): Spawn.Config["env"] =>
  layer === undefined && own === undefined ? undefined : { ...layer, ...own }

/**
 * One run of the CLI as a stream of its stdout lines. Bad lines (too long, invalid UTF-8) come in-band as
 * `DecodeError` values so that callers pick what a bad line does (`onBadLine`). The stream fails with `ProcessExited`
 * when the CLI exits non-zero or is killed, after every line it completed; a line cut by the ending is
 * dropped and kept as the error's cause. `redact` is the process's (see `SpawnOptions.redact`).
 */
export const lines = (
  spawner: ChildProcessSpawner.ChildProcessSpawner["Service"],
  config: Spawn.Config = {}
) =>
(prompt: string, options: QueryOptions.QueryOptions = {}, redact?: Redaction.Redact): Stream.Stream<
  Ndjson.Line | DecodeError,
  CliError.ClaudeCliError
> =>
  Stream.unwrap(Effect.gen(function*() {
    const executable = config.executable ?? Spawn.defaultExecutable
    const problem = DerivedOptions.invalid(options)
    if (problem !== undefined) return yield* Effect.fail(CliError.make(new CliError.InvalidOptions({ description: problem })))
    const cli = yield* Spawn.spawn(spawner, {
      executable,
      args: [...(config.executableArgs ?? []), ...QueryOptions.toArgs(options)],
      cwd: options.cwd,
      env: mergedEnv(config.env, DerivedOptions.environment(options)),
      envMode: options.envMode ?? config.envMode,
      onStderr: options.stderr,
      // The prompt goes through stdin: never parsed as a flag, never limited by the argv size.
      stdin: Stream.make(new TextEncoder().encode(prompt)),
      killGracePeriod: config.killGracePeriod,
      stderrTailBytes: config.stderrTailBytes,
      redact
    })
    return output(cli, { ...config, executable })
  }))
