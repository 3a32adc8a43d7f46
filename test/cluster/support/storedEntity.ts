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

/**
 * The memory turn log, but the moment a `begin` starts attempt 2 of turn "t2", another runner acts on the turn
 * first (as one still running it would, before this runner claims the log): it takes the conversation's lease
 * from `store`, claims the log with it, and does `meanwhile` (what that runner wrote, under its fence).
 */
export const racingLog = (
  store: SessionStore.Shape,
  key: string,
  meanwhile: (log: TurnLog.Shape, entityId: string, turnId: string, fence: SessionStore.Fence) => Effect.Effect<void, SessionStore.SessionStoreError>
): Layer.Layer<TurnLog.TurnLog> =>
  Layer.effect(TurnLog.TurnLog, Effect.map(TurnLog.makeMemory, (log): TurnLog.Shape => ({
    ...log,
    begin: (entityId, turnId, prompt, limit) =>
      Effect.tap(log.begin(entityId, turnId, prompt, limit), (begun) =>
        begun._tag === "Start" && begun.attempt === 2 && turnId === "t2"
          ? Effect.orDie(Effect.gen(function*() {
            const fence = yield* store.leases!.acquire(key)
            yield* log.claim(entityId, fence)
            yield* meanwhile(log, entityId, turnId, fence)
          }))
          : Effect.void)
  })))
