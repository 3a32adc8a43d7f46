/**
 * The real CLI against the test kit's scripted model server, in a throwaway sandbox (temp HOME and cwd,
 * scrubbed environment). Exposes the server and the sandbox too, so tests can inspect the requests and the
 * files the tools touched.
 *
 * @since 0.1.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as ClaudeSandbox from "./ClaudeSandbox.ts"
import type * as Scenario from "./Scenario.ts"
import type * as Script from "./Script.ts"
import * as ScriptedServer from "./ScriptedServer.ts"
import * as Live from "../layers/Live.ts"
import * as Process from "../process/Process.ts"
import type * as Spawn from "../process/internal/spawn.ts"

/**
 * The sandbox the CLI runs in (its `cwd` is the default working directory of every query and session).
 *
 * @since 0.1.0
 * @category services
 */
export class Sandbox extends Context.Service<Sandbox, ClaudeSandbox.Sandbox>()("effect-claude-code/layers/Scripted/Sandbox") {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options
  extends
    Omit<ClaudeSandbox.Options, "baseUrl">,
    Pick<Spawn.Config, "killGracePeriod" | "maxLineBytes" | "idleTimeout" | "stderrTailBytes">
{}

/**
 * A script, or a script built from the sandbox's paths (tools such as Read want absolute paths).
 *
 * @since 0.1.0
 * @category models
 */
export type ScriptInput = Script.Script | ((context: Scenario.Context) => Script.Script)

/**
 * {@link layer} over whatever `ChildProcessSpawner` (and file system) is provided.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWith = (
  script: ScriptInput,
  options: Options = {}
): Layer.Layer<
  ClaudeCli.ClaudeCli | ScriptedServer.ScriptedServer | Sandbox,
  ClaudeSandbox.SandboxError | ScriptedServer.ScriptedServerError,
  ChildProcessSpawner | FileSystem.FileSystem | Path.Path
> =>
  Layer.effectContext(Effect.gen(function*() {
    const { killGracePeriod, maxLineBytes, idleTimeout, stderrTailBytes, ...sandboxOptions } = options
    const bare = yield* ClaudeSandbox.make(sandboxOptions)
    const server = yield* ScriptedServer.make(
      typeof script === "function" ? script({ cwd: bare.cwd, home: bare.home }) : script
    )
    const sandbox = ClaudeSandbox.withBaseUrl(bare, server.url)
    const cli = Live.make(yield* Effect.service(ChildProcessSpawner), {
      executable: sandbox.executable,
      env: sandbox.env,
      envMode: "replace",
      cwd: sandbox.cwd,
      killGracePeriod,
      maxLineBytes,
      idleTimeout,
      stderrTailBytes
    })
    return Context.make(ClaudeCli.ClaudeCli, cli).pipe(
      Context.add(ScriptedServer.ScriptedServer, server),
      Context.add(Sandbox, sandbox)
    )
  }))

/**
 * `ClaudeCli` running the real CLI on a sandbox whose `ANTHROPIC_BASE_URL` is a `ScriptedServer` playing
 * `script`: offline, deterministic, and the CLI itself does everything else (tools, permissions, retries).
 * The CLI runs on the guarded spawner of `Live.layer` (`Process.nodeSpawner`): it and its tools end with each
 * run and with the host, and so does the sandbox.
 *
 * @since 0.1.0
 * @category layers
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Scripted } from "effect-claude-code/testing"
 * import { Script } from "effect-claude-code/testing"
 *
 * const layer = Scripted.layer(({ cwd }) =>
 *   Script.make([
 *     Script.turn(Script.toolUse("Read", { file_path: `${cwd}/notes.txt` })),
 *     Script.turn("The notes say hello.")
 *   ]), { files: { "notes.txt": "hello" } })
 * const messages = ClaudeCli.query("What do the notes say?").pipe(Stream.runCollect, Effect.provide(layer))
 * ```
 */
export const layer = (
  script: ScriptInput,
  options: Options = {}
): Layer.Layer<
  ClaudeCli.ClaudeCli | ScriptedServer.ScriptedServer | Sandbox,
  ClaudeSandbox.SandboxError | ScriptedServer.ScriptedServerError
> => layerWith(script, options).pipe(Layer.provide(Process.nodeSpawner), Layer.provide(NodeServices.layer))
