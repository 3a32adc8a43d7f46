/**
 * Entities under a cap on live CLIs (`CliSlots`), on a test runner with the real CLI on the scripted model: an
 * idle entity's CLI makes room, a busy one does not, and a turn that gets no slot says so.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as CliError from "../../src/ClaudeCliError.ts"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Cluster from "../../src/cluster/Cluster.ts"
import * as CliSlots from "../../src/governance/CliSlots.ts"
import * as Process from "../../src/process/Process.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { waitUntil } from "../session/support/Real.ts"
import { cliPids } from "./support/cliPids.ts"

const on = (fragment: string, turns: ReadonlyArray<Script.Turn>) =>
  Script.conversation(fragment, MessagesRequest.firstUserTextIncludes(fragment), turns)

const script: Script.Script = {
  conversations: [
    on("alpha", [Script.turn("Alpha one."), Script.turn("Alpha two.")]),
    on("beta", [Script.turn("Beta one.")]),
    // About 30 seconds of events, unless interrupted.
    on("slow", [Script.turn("x".repeat(300), { eventDelay: "300 millis", chunkSize: 3 })])
  ],
  sideReply: "Scripted session"
}

const env = (slots: CliSlots.Options) =>
  AgentSession.layer({ permissionMode: "default" }).pipe(
    Layer.provideMerge(Cluster.layerTest),
    Layer.provideMerge(Scripted.layerWith(() => script)),
    Layer.provideMerge(CliSlots.layer(slots)),
    Layer.provide(Process.nodeSpawner),
    Layer.provide(NodeServices.layer)
  )

const turn = (entityId: string, turnId: string, prompt: string) =>
  Effect.flatMap(AgentSession.client, (client) => Stream.runCollect(client(entityId).Turn({ turnId, prompt })))

const resultText = (events: ReadonlyArray<AgentSession.TurnEvent>) => {
  const last = events.flatMap((event) => event._tag === "TurnMessage" ? [event.message] : []).at(-1)
  return last?._tag === "ResultSuccess" ? last.result : `no success result: ${last?._tag}`
}

describe("AgentSession under CliSlots (real CLI)", () => {
  it.live("an idle entity's CLI makes room; its next turn resumes the conversation", () =>
    Effect.gen(function*() {
      let most = 0
      const sampler = yield* Effect.forkChild(Effect.forever(Effect.andThen(
        Effect.sync(() => {
          most = Math.max(most, cliPids().length)
        }),
        Effect.sleep("20 millis")
      )))
      assert.strictEqual(resultText(yield* turn("a", "a-1", "alpha: first")), "Alpha one.")
      const idle = cliPids()
      assert.strictEqual(idle.length, 1)
      // The one slot is a's idle CLI: b's turn ends it and gets the slot.
      assert.strictEqual(resultText(yield* turn("b", "b-1", "beta: first")), "Beta one.")
      assert.isFalse(cliPids().includes(idle[0]))
      assert.strictEqual(resultText(yield* turn("a", "a-2", "alpha: second")), "Alpha two.")
      yield* Fiber.interrupt(sampler)
      assert.strictEqual(most, 1)
      // a's second request to the model holds its first turn: the conversation was resumed, not started anew.
      const server = yield* ScriptedServer.ScriptedServer
      const requests = ScriptedServer.turnRequests(yield* server.requests).filter((r) => r.conversation === "alpha")
      assert.include(JSON.stringify(requests.at(-1)?.body), "Alpha one.")
    }).pipe(Effect.provide(env({ max: 1, maxWait: "60 seconds" }))), 180_000)

  it.live("a busy entity keeps its CLI; a turn past the wait fails with NoCliSlot", () =>
    Effect.gen(function*() {
      const slow = yield* Effect.forkChild(turn("s", "s-1", "slow: write a lot"))
      yield* waitUntil(Effect.sync(() => cliPids().length === 1)).pipe(Effect.timeout("60 seconds"))
      const busy = cliPids()
      const exit = yield* Effect.exit(turn("b", "b-1", "beta: first"))
      assert.isTrue(Exit.isFailure(exit))
      const failure = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      const error = failure?._tag === "Fail" ? failure.error : undefined
      assert.instanceOf(error, AgentSession.AgentSessionError)
      const reason = (error as AgentSession.AgentSessionError).reason
      assert.instanceOf(reason, AgentSession.SessionFailed)
      const cliError = (reason as AgentSession.SessionFailed).error
      assert.instanceOf(cliError, CliError.ClaudeCliError)
      assert.instanceOf((cliError as CliError.ClaudeCliError).reason, CliError.NoCliSlot)
      assert.deepStrictEqual(cliPids(), busy)
      yield* Fiber.interrupt(slow)
    }).pipe(Effect.provide(env({ max: 1, maxWait: "2 seconds" }))), 180_000)
})
