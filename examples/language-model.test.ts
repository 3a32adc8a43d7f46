/**
 * The Effect AI example on Claude Code (the real CLI against a scripted model), and unchanged on another
 * Effect AI provider: only the layer differs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"
import { MessagesRequest, Script, Scripted, ScriptedServer } from "../src/testing/index.ts"
import { ClaudeCode, InventoryHandlers, restockPlan, stockReport } from "./language-model.ts"

const onClaudeCode = (script: Script.Script) => ClaudeCode.pipe(Layer.provideMerge(Scripted.layer(script)))

const finish: Response.PartEncoded = { type: "finish", reason: "stop", usage: { inputTokens: {}, outputTokens: {} } }

// Another provider, as `LanguageModel.make` builds every one: it asks for the tool, the framework runs it.
const OtherProvider = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.succeed<Array<Response.PartEncoded>>(
        options.tools.length > 0
          ? [{ type: "tool-call", id: "call-1", name: "GetInventory", params: { productId: "p-1" } }, {
            type: "text",
            text: "42 in stock."
          }, finish]
          : [{ type: "text", text: "No, 42 is short of 50." }, finish]
      ),
    streamText: () => Stream.empty
  })
)

const expected = {
  answer: "42 in stock.",
  followUp: "No, 42 is short of 50.",
  lookups: [{ productId: "p-1", available: 42 }]
}

describe("language model", () => {
  it.live("the agent calls the tool; the chat keeps one session", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* stockReport, expected)
      const server = yield* ScriptedServer.ScriptedServer
      const [, , third] = ScriptedServer.turnRequests(yield* server.requests).flatMap((r) => {
        const decoded = MessagesRequest.decode(r.body)
        return decoded._tag === "Some" ? [decoded.value] : []
      })
      // The follow-up went to the resumed session, which holds the tool call and its result.
      assert.include(JSON.stringify(third.messages), "\\\"available\\\":42")
      assert.strictEqual(MessagesRequest.lastUserText(third).trim(), "Is that enough for an order of 50?")
    }).pipe(
      Effect.provide(InventoryHandlers),
      Effect.provide(onClaudeCode(Script.make([
        Script.turn(Script.toolUse("mcp__toolkit__GetInventory", { productId: "p-1" })),
        Script.turn("42 in stock."),
        Script.turn("No, 42 is short of 50.")
      ])))
    ))

  it.live("decodes Claude Code's structured output with the Schema", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* restockPlan, { productId: "p-1", quantity: 8 })
    }).pipe(Effect.provide(onClaudeCode(Script.make([
      Script.turn(Script.toolUse("StructuredOutput", { productId: "p-1", quantity: 8 }))
    ])))))

  it.effect("runs unchanged on another Effect AI provider", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* stockReport, expected)
    }).pipe(Effect.provide(InventoryHandlers), Effect.provide(OtherProvider)))
})
