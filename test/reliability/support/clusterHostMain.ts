/**
 * A host on `Cluster.layerSqlite`, for the crash-restart test: a SingleRunner on the SQLite file `RESTART_DB`
 * running agent sessions on the CLI sandbox `RESTART_SANDBOX` (JSON). It asks entity `RESTART_ENTITY` for one
 * turn with `RESTART_PROMPT`, writes a JSON line with the turn's result (`{"result": ...}`) and ends.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as AgentSession from "../../../src/cluster/AgentSession.ts"
import * as Cluster from "../../../src/cluster/Cluster.ts"
import * as Live from "../../../src/layers/Live.ts"
import type * as ClaudeSandbox from "../../../src/testing/ClaudeSandbox.ts"

const sandbox: ClaudeSandbox.Sandbox = JSON.parse(process.env.RESTART_SANDBOX!)
const say = (line: unknown) => Effect.sync(() => process.stdout.write(JSON.stringify(line) + "\n"))

const layer = AgentSession.layer().pipe(
  Layer.provideMerge(Cluster.layerSqlite({ filename: process.env.RESTART_DB! })),
  Layer.provideMerge(
    Live.layer({ executable: sandbox.executable, env: sandbox.env, envMode: "replace", cwd: sandbox.cwd })
  )
)

const entity = process.env.RESTART_ENTITY!

AgentSession.client.pipe(
  Effect.flatMap((client) =>
    Stream.runCollect(client(entity).Turn({ turnId: `${entity}-1`, prompt: process.env.RESTART_PROMPT! }))
  ),
  Effect.flatMap((events) => {
    const last = events.at(-1)
    return say({ result: last?._tag === "TurnMessage" && last.message._tag === "ResultSuccess" ? last.message.result : last?._tag })
  }),
  Effect.provide(layer),
  NodeRuntime.runMain
)
