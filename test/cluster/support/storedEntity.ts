/**
 * An `AgentSession` entity type on a test runner whose conversations are kept in the context's `SessionStore`
 * (a fencing one, the memory store's leases, in the tests that use it), the real CLI answered by one scripted
 * conversation.
 */
import * as TestRunner from "effect/cluster/TestRunner"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AgentSession from "../../../src/cluster/AgentSession.ts"
import * as TurnLog from "../../../src/cluster/TurnLog.ts"
import * as SessionStore from "../../../src/store/SessionStore.ts"
import type * as Script from "../../../src/testing/Script.ts"
import * as Scripted from "../../../src/testing/Scripted.ts"

// `turnLog`: the runner's turn log (the memory one, as `Cluster.layerTest` has, by default).
export const layer = (
  conversation: Script.Conversation,
  options: AgentSession.Options = {},
  turnLog: Layer.Layer<TurnLog.TurnLog> = TurnLog.layerMemory
) =>
  Layer.unwrap(Effect.gen(function*() {
    const sandbox = yield* Scripted.Sandbox
    const store = yield* SessionStore.SessionStore
    return AgentSession.layer({ ...options, cwd: sandbox.cwd, sessionStore: { store, configDir: sandbox.env.CLAUDE_CONFIG_DIR! } })
  })).pipe(
    Layer.provideMerge(Layer.merge(TestRunner.layer, turnLog)),
    Layer.provideMerge(Scripted.layer({ conversations: [conversation], sideReply: "Scripted session" }))
  )
