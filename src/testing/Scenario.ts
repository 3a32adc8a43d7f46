/**
 * A scenario: a prompt (or a stream-json input session), CLI flags, files in the working directory and
 * the script the model follows; and `run`, which plays it with the real `claude` binary against a
 * {@link ScriptedServer} inside a {@link ClaudeSandbox}. Used by fixture recording, tests and the demo.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ChildProcess from "effect/process/ChildProcess"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as ClaudeSandbox from "./ClaudeSandbox.ts"
import type * as Script from "./Script.ts"
import * as ScriptedServer from "./ScriptedServer.ts"

/**
 * What a script may depend on: the sandbox's absolute paths (tools such as Read want absolute paths).
 *
 * @since 0.1.0
 * @category models
 */
export interface Context {
  readonly cwd: string
  readonly home: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Scenario {
  readonly name: string
  /** One line saying what the scenario shows (goes into fixtures/README.md). */
  readonly description: string
  /** The `-p` prompt; ignored when `input` is set. */
  readonly prompt: string
  /**
   * User messages for a `--input-format stream-json` session: each is written to stdin after the
   * previous one's `result`, and stdin closes after the last.
   */
  readonly input?: ReadonlyArray<string> | undefined
  /** Extra CLI flags (`--permission-mode plan`, `--max-turns 1`, `--allowedTools Write`, ...). */
  readonly args?: ReadonlyArray<string> | undefined
  /** Files written into the working directory first. */
  readonly files?: Readonly<Record<string, string>> | undefined
  /** Extra environment for the CLI (e.g. output limits). */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly script: (context: Context) => Script.Script
}

/**
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  /** Adds `--include-partial-messages`. */
  readonly partial?: boolean | undefined
  readonly executable?: string | undefined
  /** Extra flags after the scenario's own. */
  readonly args?: ReadonlyArray<string> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Run {
  readonly args: ReadonlyArray<string>
  /** stdout as written, one stream-json message per line. */
  readonly stdout: string
  /** The stdout lines parsed as JSON (a line that is not JSON is kept as its string). */
  readonly messages: ReadonlyArray<Record<string, any>>
  readonly stderr: string
  readonly exitCode: number
  /** What the scripted server received. */
  readonly requests: ReadonlyArray<ScriptedServer.RecordedRequest>
  readonly sandbox: ClaudeSandbox.Sandbox
}

/**
 * The CLI arguments for a scenario.
 *
 * @since 0.1.0
 * @category constructors
 */
const cliArgs = (scenario: Scenario, options: RunOptions = {}): ReadonlyArray<string> => [
  ...(scenario.input === undefined ? ["-p", scenario.prompt] : ["-p", "--input-format", "stream-json"]),
  "--output-format",
  "stream-json",
  "--verbose",
  ...(options.partial === true ? ["--include-partial-messages"] : []),
  ...(scenario.args ?? []),
  ...(options.args ?? [])
]

/**
 * A stream-json user message line for stdin.
 *
 * @since 0.1.0
 * @category constructors
 */
const userMessageLine = (text: string): string =>
  JSON.stringify({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null }) + "\n"

const parseLine = (line: string): Record<string, any> => {
  try {
    return JSON.parse(line)
  } catch {
    return { type: "unparsed", line }
  }
}

/**
 * Play a scenario with the real CLI. The sandbox (and its files) lives until the scope closes, so the
 * caller can inspect what the tools did; the process is killed if the scope closes early.
 *
 * @since 0.1.0
 * @category running
 */
export const run = Effect.fnUntraced(function*(
  scenario: Scenario,
  options: RunOptions = {}
): Effect.fn.Return<
  Run,
  ClaudeSandbox.SandboxError | ScriptedServer.ScriptedServerError | PlatformError.PlatformError,
  ChildProcessSpawner.ChildProcessSpawner | FileSystem.FileSystem | Path.Path | Scope.Scope
> {
  const bare = yield* ClaudeSandbox.make({
    executable: options.executable,
    files: scenario.files,
    env: scenario.env
  })
  const server = yield* ScriptedServer.make(scenario.script({ cwd: bare.cwd, home: bare.home }))
  const sandbox = ClaudeSandbox.withBaseUrl(bare, server.url)
  const args = cliArgs(scenario, options)
  const pending = [...(scenario.input ?? [])]
  const stdin = yield* Queue.unbounded<Uint8Array, Cause.Done>()
  const feed = Effect.gen(function*() {
    const next = pending.shift()
    if (next !== undefined) yield* Queue.offer(stdin, new TextEncoder().encode(userMessageLine(next)))
    if (pending.length === 0) yield* Queue.end(stdin)
  })
  if (scenario.input !== undefined) yield* feed

  const handle = yield* ChildProcess.make(sandbox.executable, args, {
    cwd: sandbox.cwd,
    env: sandbox.env,
    extendEnv: false,
    stdin: scenario.input === undefined ? "ignore" : Stream.fromQueue(stdin)
  })
  const stderr = yield* handle.stderr.pipe(Stream.decodeText(), Stream.mkString, Effect.forkScoped)
  const lines = yield* handle.stdout.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.tap((line) => scenario.input !== undefined && parseLine(line).type === "result" ? feed : Effect.void),
    Stream.runCollect
  )
  const exitCode = yield* handle.exitCode
  const messages = lines.filter((l) => l.trim() !== "").map(parseLine)
  return {
    args,
    stdout: lines.map((l) => l + "\n").join(""),
    messages,
    stderr: yield* Fiber.join(stderr),
    exitCode,
    requests: yield* server.requests,
    sandbox
  }
})
