/**
 * Effect AI programs run on Claude Code: `ClaudeCodeLanguageModel` is a `LanguageModel` like any provider's,
 * and the tools you define once with `effect/ai` reach Claude Code's agent as an in-process MCP server.
 * A `Chat` keeps one Claude Code session; `generateObject` decodes the CLI's structured output.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Console, Effect, Schema } from "effect"
import { Chat, LanguageModel, Tool, Toolkit } from "effect/ai"
import { ClaudeCodeLanguageModel } from "../src/ai/index.ts"
import { Live } from "../src/layers/index.ts"

// A tool, defined once for every Effect AI provider: schemas, annotations, and a handler layer.
const GetInventory = Tool.make("GetInventory", {
  description: "How many units of a product are in stock",
  parameters: Schema.Struct({ productId: Schema.String }),
  success: Schema.Struct({ productId: Schema.String, available: Schema.Number })
}).annotate(Tool.Readonly, true)

export const Inventory = Toolkit.make(GetInventory)

export const InventoryHandlers = Inventory.toLayer({
  GetInventory: ({ productId }) => Effect.succeed({ productId, available: productId === "p-1" ? 42 : 0 })
})

// Written against `LanguageModel` alone: which model answers is the layer's business.
export const stockReport = Effect.gen(function*() {
  const chat = yield* Chat.empty
  const first = yield* chat.generateText({ prompt: "How many p-1 are in stock?", toolkit: Inventory })
  // The second turn sees the first (on Claude Code: the same session, resumed).
  const second = yield* chat.generateText({ prompt: "Is that enough for an order of 50?" })
  return { answer: first.text, followUp: second.text, lookups: first.toolResults.map((r) => r.result) }
})

const Restock = Schema.Struct({ productId: Schema.String, quantity: Schema.Int })

export const restockPlan = LanguageModel.generateObject({ prompt: "Plan a restock of p-1", schema: Restock }).pipe(
  Effect.map((response) => response.value)
)

// Claude Code as the model: settings are a session's (model, permission mode, allowed tools, cwd, ...).
export const ClaudeCode = ClaudeCodeLanguageModel.layer({ model: "sonnet", config: { permissionMode: "default" } })

// `node examples/language-model.ts` runs it on the `claude` on your PATH.
if (import.meta.main) {
  stockReport.pipe(
    Effect.tap(Console.log),
    Effect.provide(InventoryHandlers),
    Effect.provide(ClaudeCode),
    Effect.provide(Live.layer()),
    NodeRuntime.runMain
  )
}
