/**
 * A real pseudo-terminal for terminal tests: runs a command in a detached tmux session of a fixed size and
 * reads the screen back with `capture-pane`, so tests see exactly what a person would (a TTY on stdout,
 * spinner redraws resolved, colors optional). The terminal tests need tmux on PATH (`apt-get install tmux`,
 * `brew install tmux`); without it they fail saying so.
 */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Data from "effect/Data"
import { execFileSync } from "node:child_process"
import * as path from "node:path"

export const root = path.resolve(import.meta.dirname, "..", "..", "..")

/** The node binary running the tests (Node 24 from the devDependency). */
export const node = process.execPath

/** The tool's entry point, run with type stripping as `npm start` does. */
export const main = path.join(root, "src", "cli", "main.ts")

export class ScreenTimeout extends Data.TaggedError("ScreenTimeout")<{
  readonly waitingFor: string
  readonly screen: string
}> {
  override get message(): string {
    return `Timed out waiting for ${this.waitingFor}; the screen was:\n${this.screen}`
  }
}

/** Thrown when tmux is not installed: the terminal tests cannot run without a pseudo-terminal. */
export class TmuxMissing extends Error {
  constructor() {
    super(
      "The terminal tests need tmux, which is not installed (or not on PATH): install it " +
        "(apt-get install tmux, brew install tmux, dnf install tmux) and run them again."
    )
    this.name = "TmuxMissing"
  }
}

const tmux = (...args: ReadonlyArray<string>): string => {
  try {
    return execFileSync("tmux", ["-L", "ecc-test", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new TmuxMissing()
    throw error
  }
}

const isServerExiting = (error: unknown): boolean =>
  /server exited unexpectedly|lost server|no server running/.test(String((error as { stderr?: unknown }).stderr ?? error))

/**
 * The terminal every session starts with, whatever the shell running the tests has: no forced or disabled
 * colors (tests that want none set `NO_COLOR`), a known terminal type. `env` entries override it.
 */
export const terminalEnv: Readonly<Record<string, string | undefined>> = {
  FORCE_COLOR: undefined,
  NO_COLOR: undefined,
  TERM: "xterm-256color",
  COLUMNS: undefined,
  LINES: undefined
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

export interface Pane {
  readonly name: string
  /** The visible screen plus scrollback, trailing blank lines removed. */
  readonly capture: Effect.Effect<string>
  /** The screen with its color escape sequences. */
  readonly captureEscapes: Effect.Effect<string>
  /** Polls the screen until `predicate` holds (every 50 ms, up to `timeoutMs`). */
  readonly waitFor: (
    waitingFor: string,
    predicate: (screen: string) => boolean,
    timeoutMs?: number
  ) => Effect.Effect<string, ScreenTimeout>
  /** Waits for the command to exit and returns its exit code and the final screen. */
  readonly exit: (timeoutMs?: number) => Effect.Effect<{ readonly code: number; readonly screen: string }, ScreenTimeout>
}

let counter = 0

/**
 * Starts `argv` in a new tmux session (`cols` x `rows`), killed when the scope closes. The command's exit
 * code is printed as a marker line after it ends, and the pane stays open so the screen can be read.
 */
export const spawn = (
  argv: ReadonlyArray<string>,
  options: {
    readonly env?: Record<string, string | undefined>
    readonly cols?: number
    readonly rows?: number
    readonly cwd?: string
  } = {}
): Effect.Effect<Pane, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const name = `ecc-${process.pid}-${++counter}`
      const entries = Object.entries({ ...terminalEnv, ...options.env })
      // `env` takes its `-u NAME` options before the assignments.
      const env = [
        ...entries.filter(([, v]) => v === undefined).map(([k]) => `-u ${k}`),
        ...entries.flatMap(([k, v]) => v === undefined ? [] : [`${k}=${shellQuote(v)}`])
      ]
      const command = `env ${env.join(" ")} ${argv.map(shellQuote).join(" ")}; echo "[[exit $?]]"; sleep 3600`
      const size = ["-x", String(options.cols ?? 100), "-y", String(options.rows ?? 40)]
      return Effect.try({
        try: () => tmux("new-session", "-d", "-s", name, ...size, "-c", options.cwd ?? root, command),
        catch: (error) => error
      }).pipe(
        // The server exits when its last session is killed; a session started at that moment meets a dying
        // server and can simply be started again (on a new one).
        Effect.retry({ while: isServerExiting, schedule: Schedule.spaced("100 millis"), times: 10 }),
        Effect.orDie,
        Effect.as(name)
      )
    }),
    (name) => Effect.sync(() => { try { tmux("kill-session", "-t", name) } catch { /* already gone */ } })
  ).pipe(Effect.map((name): Pane => {
    const capture = Effect.sync(() =>
      tmux("capture-pane", "-p", "-J", "-t", name, "-S", "-2000").replace(/\s+$/, "")
    )
    const waitFor = (waitingFor: string, predicate: (screen: string) => boolean, timeoutMs = 30_000) =>
      capture.pipe(
        Effect.filterOrFail(predicate, () => "not yet" as const),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: `${timeoutMs} millis` }))),
        Effect.catch(() => Effect.flatMap(capture, (screen) => Effect.fail(new ScreenTimeout({ waitingFor, screen }))))
      )
    return {
      name,
      capture,
      captureEscapes: Effect.sync(() => tmux("capture-pane", "-p", "-e", "-J", "-t", name, "-S", "-2000")),
      waitFor,
      exit: (timeoutMs) =>
        waitFor("the command to exit", (s) => /\[\[exit \d+\]\]/.test(s), timeoutMs).pipe(
          Effect.map((screen) => ({
            code: Number(/\[\[exit (\d+)\]\]/.exec(screen)![1]),
            screen: screen.replace(/\n?\[\[exit \d+\]\]$/, "")
          }))
        )
    }
  }))
