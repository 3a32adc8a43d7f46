/**
 * `demo` (and `npm start`): the real Claude Code CLI against the scripted model server on loopback, playing
 * the bundled `demo` scenario (a small tool chain with a denial), shown live. No network, no API key.
 * Without a `claude` binary it says so and replays the bundled recording instead.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Path from "effect/Path"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as Decode from "../stream/Decode.ts"
import * as ClaudeSandbox from "../testing/ClaudeSandbox.ts"
import { demo } from "../testing/internal/scenarios/demo.ts"
import * as ScriptedServer from "../testing/ScriptedServer.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Input from "./Input.ts"
import * as Live from "./Live.ts"
import * as Session from "./Session.ts"

/**
 * The recording replayed when no `claude` binary is available.
 *
 * @since 0.1.0
 * @category constants
 */
export const recordingPath = (path: Path.Path): string =>
  path.resolve(import.meta.dirname, "..", "..", "fixtures", "recorded", "demo.partial.jsonl")

/**
 * Pause between replayed lines, so the replay reads like a live session.
 *
 * @since 0.1.0
 * @category constants
 */
export const replayDelay = "15 millis"

const say = (text: string) => Effect.flatMap(Stdio.Stdio, (stdio) => Stream.run(Stream.make(text), stdio.stderr()))

const replay = Effect.gen(function*() {
  const path = yield* Path.Path
  const file = recordingPath(path)
  yield* say(`No claude executable found (install @anthropic-ai/claude-code or set CLAUDE_CODE_EXECUTABLE);\n` +
    `replaying the bundled recording ${path.relative(process.cwd(), file)} instead.\n\n`)
  const records = Input.bytes(file).pipe(
    Decode.records({ onBadLine: "emit" }),
    Stream.tap(() => Effect.sleep(replayDelay))
  )
  return yield* Live.display(records, { format: "pretty" })
})

/**
 * What the demo shows, said once before it starts: the real CLI (its version, as `claude --version` prints
 * it) against a scripted model, offline and free.
 *
 * @since 0.1.0
 * @category formatting
 */
export const introduction = (version: string | undefined): string =>
  `This is the real Claude Code CLI${version === undefined ? "" : ` ${version}`} talking to a built-in scripted ` +
  `model on loopback: no network, no API key, nothing billed.\n\n`

// "2.1.330 (Claude Code)" -> "2.1.330"; undefined when the CLI does not answer as expected.
const versionOf = (executable: string) =>
  Effect.flatMap(ChildProcessSpawner.ChildProcessSpawner, (spawner) =>
    spawner.string(ChildProcess.make(executable, ["--version"]))).pipe(
      Effect.map((out) => /^\s*(\d+\.\d+\.\d+\S*)/.exec(out)?.[1]),
      Effect.timeout("10 seconds"),
      Effect.orElseSucceed(() => undefined)
    )

const live = (executable: string) =>
  Effect.gen(function*() {
    yield* say(introduction(yield* versionOf(executable)))
    const bare = yield* ClaudeSandbox.make({ executable, files: demo.files })
    const server = yield* ScriptedServer.make(demo.script({ cwd: bare.cwd, home: bare.home }))
    const sandbox = ClaudeSandbox.withBaseUrl(bare, server.url)
    return yield* Session.show({
      executable: sandbox.executable,
      prompt: demo.prompt,
      display: { format: "pretty" },
      query: {
        cwd: sandbox.cwd,
        env: sandbox.env,
        envMode: "replace",
        includePartialMessages: true,
        extraArgs: demo.args
      }
    })
  }).pipe(
    Effect.scoped,
    Effect.catchTags({
      SandboxError: (e) => Effect.fail(CliFailure.make("CliFailed", `The demo sandbox failed: ${e.message}`, e)),
      ScriptedServerError: (e) => Effect.fail(CliFailure.make("CliFailed", `The scripted model server failed: ${e.message}`, e))
    })
  )

/**
 * The `demo` command's program.
 *
 * @since 0.1.0
 * @category running
 */
export const run = Effect.gen(function*() {
  const found = yield* Effect.result(ClaudeSandbox.findExecutable())
  const outcome = found._tag === "Success" ? yield* live(found.success) : yield* replay
  if (outcome.failed > 0) return yield* new CliFailure.SilentExit({ code: CliFailure.ExitCode.StreamProblem })
})
