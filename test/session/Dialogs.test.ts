/**
 * The model's AskUserQuestion answered from Effect code against the real CLI on the scripted model, and the
 * dialog callbacks' declines.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"
import * as Dialogs from "../../src/session/Dialogs.ts"
import * as Session from "../../src/session/Session.ts"
import { ElicitationRequest, RequestUserDialogRequest } from "../../src/schema/Control.ts"
import * as Script from "../../src/testing/Script.ts"
import * as Callbacks from "../reliability/support/callbacks.ts"
import { settle } from "./support/Collect.ts"
import { collect, resultOf, setup, toolResults, turnBodies } from "./support/Real.ts"

const question = {
  question: "Which color should the button be?",
  header: "Color",
  options: [{ label: "Red", description: "warm" }, { label: "Blue", description: "cool" }],
  multiSelect: false
}

const asking = [Script.turn(Script.toolUse("AskUserQuestion", { questions: [question] })), Script.turn("noted")]

layer(NodeServices.layer, { excludeTestServices: true })("AskUserQuestion (real CLI)", (it) => {
  it.effect("the callback's answer reaches the model in its next request", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup(asking)
      const asked: Array<Dialogs.Question> = []
      const session = yield* Session.make({
        ...base,
        onAskUserQuestion: (questions) =>
          Effect.sync(() => {
            asked.push(...questions)
            return { [questions[0].question]: "Blue" }
          })
      })
      const messages = yield* collect(session.turn("pick a color"))
      assert.strictEqual(resultOf(messages).result, "noted")
      assert.deepStrictEqual(asked.map((q) => [q.question, q.options.map((o) => o.label)]), [[question.question, ["Red", "Blue"]]])
      const [result] = toolResults(messages)
      assert.isFalse(result.isError)
      const [, next] = yield* turnBodies(server)
      const sent = JSON.stringify(next.messages.at(-1))
      assert.include(sent, "Which color should the button be?")
      assert.include(sent, "Blue")
    }), 60_000)

  it.effect("a failing or late callback leaves the question unanswered", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup(asking)
      const session = yield* Session.make({
        ...base,
        dialogTimeout: "200 millis",
        onAskUserQuestion: () => Effect.never
      })
      const messages = yield* collect(session.turn("pick a color"))
      assert.strictEqual(resultOf(messages).result, "noted")
      const [result] = toolResults(messages)
      assert.isTrue(result.isError)
      assert.include(result.text, "did not answer")
      const [, next] = yield* turnBodies(server)
      assert.include(JSON.stringify(next.messages.at(-1)), "dialogTimeout")
    }), 60_000)
})

describe("elicitation and dialog callbacks", () => {
  const elicitation = new ElicitationRequest({ subtype: "elicitation", mcp_server_name: "auth", message: "Your name?" })
  const dialog = new RequestUserDialogRequest({ subtype: "request_user_dialog", dialog_kind: "k", payload: {} })

  it.effect("an elicitation without a working callback is declined", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Dialogs.elicit<never>({}, elicitation), { action: "decline" })
      assert.deepStrictEqual(yield* Dialogs.elicit<never>({ onElicitation: () => Effect.fail("no") }, elicitation), { action: "decline" })
      const accepted = yield* Dialogs.elicit<never>(
        { onElicitation: (r) => Effect.succeed({ action: "accept", content: { name: r.serverName } }) },
        elicitation
      )
      assert.deepStrictEqual(accepted, { action: "accept", content: { name: "auth" } })
    }))

  it.effect("elicitation and dialog callbacks are answered however their Effect ends", () =>
    Effect.gen(function*() {
      for (const outcome of Callbacks.outcomes) {
        const callbacks: Dialogs.Callbacks = {
          dialogTimeout: "1 second",
          onElicitation: () => Callbacks.ending(outcome, { action: "accept" as const, content: { name: "x" } }),
          onUserDialog: () => Callbacks.ending(outcome, { picked: "x" })
        }
        const answers = yield* Effect.forkChild(Effect.all([Dialogs.elicit(callbacks, elicitation), Dialogs.dialog(callbacks, dialog)!], {
          concurrency: 2
        }))
        yield* settle
        yield* TestClock.adjust("1 second")
        const [elicited, dialogged] = yield* Fiber.join(answers)
        const succeeded = outcome === "succeed"
        assert.deepStrictEqual(elicited, succeeded ? { action: "accept", content: { name: "x" } } : { action: "decline" }, outcome)
        assert.deepStrictEqual(dialogged, succeeded ? { picked: "x" } : Dialogs.cancelled, outcome)
      }
    }))

  it.effect("a dialog whose callback fails is cancelled", () =>
    Effect.gen(function*() {
      assert.strictEqual(Dialogs.dialog<never>({}, dialog), undefined)
      assert.deepStrictEqual(yield* Dialogs.dialog<never>({ onUserDialog: () => Effect.die("boom") }, dialog)!, Dialogs.cancelled)
      assert.deepStrictEqual(yield* Dialogs.dialog<never>({ onUserDialog: (d) => Effect.succeed({ kind: d.dialogKind }) }, dialog)!, { kind: "k" })
    }))
})
