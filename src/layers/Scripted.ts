/**
 * The real CLI against the test kit's scripted model server, in a throwaway sandbox (temp HOME and cwd,
 * scrubbed environment). Exposes the server too, so tests can inspect the requests.
 *
 * @since 0.1.0
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import * as ClaudeCli from "../ClaudeCli.ts"
import * as ClaudeSandbox from "../testing/ClaudeSandbox.ts"
import type * as Script from "../testing/Script.ts"
import * as ScriptedServer from "../testing/ScriptedServer.ts"
import * as Process from "./Process.ts"

/**
 * `ClaudeCli` running the real CLI on a sandbox whose `ANTHROPIC_BASE_URL` is a `ScriptedServer` playing
 * `script`. Each query runs in the sandbox's working directory unless it sets `cwd`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  script: Script.Script,
  options: Omit<ClaudeSandbox.Options, "baseUrl"> & Pick<Process.Config, "killGracePeriod"> = {}
): Layer.Layer<ClaudeCli.ClaudeCli | ScriptedServer.ScriptedServer, unknown> =>
  Layer.effect(
    ClaudeCli.ClaudeCli,
    Effect.gen(function*() {
      const server = yield* Effect.service(ScriptedServer.ScriptedServer)
      const sandbox = yield* ClaudeSandbox.make({ ...options, baseUrl: server.url })
      const spawner = yield* Effect.service(ChildProcessSpawner)
      const lines = Process.lines(spawner, {
        executable: sandbox.executable,
        env: sandbox.env,
        envMode: "replace",
        killGracePeriod: options.killGracePeriod
      })
      return ClaudeCli.make((prompt, queryOptions) => lines(prompt, { cwd: sandbox.cwd, ...queryOptions }))
    })
  ).pipe(
    Layer.provideMerge(ScriptedServer.layer(script)),
    Layer.provide(NodeServices.layer)
  )
