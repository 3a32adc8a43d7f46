/**
 * Claude Code as an effect/ai LanguageModel: the real CLI against the scripted model.
 */
import { assert, describe, it } from "@effect/vitest"
import { AiError, Chat, LanguageModel, Model, Tool, Toolkit } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as path from "node:path"
import { ClaudeCodeLanguageModel, ClaudeCodeTool } from "../../src/ai/index.ts"
import * as Live from "../../src/layers/Live.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"

const scripted = (script: Scripted.ScriptInput, options?: Scripted.Options) =>
  ClaudeCodeLanguageModel.layer().pipe(Layer.provideMerge(Scripted.layer(script, options)))

/** The Messages API requests of the model's turns, decoded. */
const turnRequests = Effect.gen(function*() {
  const server = yield* ScriptedServer.ScriptedServer
  return ScriptedServer.turnRequests(yield* server.requests).flatMap((r) => {
    const decoded = MessagesRequest.decode(r.body)
    return decoded._tag === "Some" ? [decoded.value] : []
  })
})

/** The run's metadata, as the module augmentation types it: no cast. */
const claudeCode = (response: LanguageModel.GenerateTextResponse<any, any>): ClaudeCodeLanguageModel.RunMetadata => {
  const run = response.content.find((p) => p.type === "finish")?.metadata[ClaudeCodeLanguageModel.metadataKey]
  assert.isDefined(run)
  assert.isNotNull(run)
  return run!
}

/** The model reads data.txt (which the sandbox holds), then answers. */
const readingData = scripted(({ cwd }) =>
  Script.make([
    Script.turn([Script.text("Reading data.txt."), Script.toolUse("Read", { file_path: path.join(cwd, "data.txt") })]),
    Script.turn("data.txt holds the secret.")
  ]), { files: { "data.txt": "s3cr3t\n" } })

describe("ClaudeCodeLanguageModel", () => {
  describe("generateText", () => {
    it.live("text, Claude Code's tool calls, usage and cost", () =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({
          prompt: "What is in data.txt?",
          toolkit: Toolkit.make(ClaudeCodeTool.Read)
        })
        const { cwd } = yield* Scripted.Sandbox
        assert.deepStrictEqual(
          response.content.filter((p) => p.type === "text").map((p) => p.text),
          ["Reading data.txt.", "data.txt holds the secret."]
        )
        assert.deepStrictEqual(
          response.toolCalls.map((c) => [c.name, c.params, c.providerExecuted]),
          [["Read", { file_path: path.join(cwd, "data.txt") }, true]]
        )
        // The call's input decodes through the provider tool's parameters (`ToolInput.Read`): typed, no cast.
        const params = yield* Schema.decodeUnknownEffect(ClaudeCodeTool.Read.parametersSchema)(response.toolCalls[0].params)
        const filePath: string = params.file_path
        assert.strictEqual(filePath, path.join(cwd, "data.txt"))
        const [result] = response.toolResults
        assert.strictEqual(result.id, response.toolCalls[0].id)
        assert.isFalse(result.isFailure)
        assert.include(String(result.result), "s3cr3t")
        assert.strictEqual(response.finishReason, "stop")
        assert.strictEqual(response.usage.inputTokens.uncached, 200)
        assert.strictEqual(response.usage.outputTokens.total, 40)
        const meta = claudeCode(response)
        assert.isAbove(meta.costUsd, 0)
        assert.strictEqual(meta.numTurns, 2)
        assert.deepStrictEqual(meta.toolCalls, [])
      }).pipe(Effect.provide(readingData)))

    it.live("keeps undeclared tool calls in the finish metadata", () =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({ prompt: "What is in data.txt?" })
        assert.deepStrictEqual(response.toolCalls, [])
        const [call] = claudeCode(response).toolCalls
        assert.strictEqual(call.name, "Read")
        assert.isFalse(call.isError)
        assert.include(call.result ?? "", "s3cr3t")
        assert.strictEqual(response.text, "data.txt holds the secret.")
      }).pipe(Effect.provide(scripted(({ cwd }) =>
        Script.make([
          Script.turn(Script.toolUse("Read", { file_path: path.join(cwd, "data.txt") })),
          Script.turn("data.txt holds the secret.")
        ]), { files: { "data.txt": "s3cr3t\n" } }))))

    it.live("a call its tool's parameters reject goes to the metadata, the response decodes", () =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({
          prompt: "What is in data.txt?",
          toolkit: Toolkit.make(ClaudeCodeTool.Read)
        })
        assert.deepStrictEqual(response.toolCalls, [])
        assert.deepStrictEqual(response.toolResults, [])
        const [call] = claudeCode(response).toolCalls
        assert.deepStrictEqual([call.name, call.input, call.isError], ["Read", { path: "data.txt" }, true])
        assert.strictEqual(response.text, "No file_path, no file.")
      }).pipe(Effect.provide(scripted(Script.make([
        Script.turn(Script.toolUse("Read", { path: "data.txt" })),
        Script.turn("No file_path, no file.")
      ])))))

    it.live("typed: tool call parameters, cost and session id", () =>
      Effect.gen(function*() {
        // Without tool call resolution (Claude Code resolved them), calls keep their parameters' type.
        const response = yield* LanguageModel.generateText({
          prompt: "What is in data.txt?",
          toolkit: Toolkit.make(ClaudeCodeTool.Read),
          disableToolCallResolution: true
        })
        const { cwd } = yield* Scripted.Sandbox
        const filePath: string = response.toolCalls[0].params.file_path
        assert.strictEqual(filePath, path.join(cwd, "data.txt"))
        const finish = response.content.find((p) => p.type === "finish")
        const run = finish?.metadata["claude-code"]
        const cost: number | undefined = run?.costUsd
        const sessionId: string | undefined = run?.sessionId
        assert.isAbove(cost ?? 0, 0)
        const started = response.content.find((p) => p.type === "response-metadata")
        assert.isDefined(sessionId)
        assert.strictEqual(sessionId, started?.id)
      }).pipe(Effect.provide(readingData)))
  })

  describe("streamText", () => {
    it.live("text deltas in order, each once, with partial messages", () =>
      Effect.gen(function*() {
        const parts = yield* Stream.runCollect(LanguageModel.streamText({ prompt: "Greet me" }))
        const deltas = parts.flatMap((p) => p.type === "text-delta" ? [p.delta] : [])
        assert.isAbove(deltas.length, 2)
        assert.strictEqual(deltas.join(""), "Hello there, world. Nice to meet you.")
        assert.strictEqual(parts.filter((p) => p.type === "text-start").length, 1)
        assert.strictEqual(parts.filter((p) => p.type === "text-end").length, 1)
        assert.deepStrictEqual(parts.map((p) => p.type).filter((t) => t !== "text-delta"), [
          "response-metadata",
          "text-start",
          "text-end",
          "finish"
        ])
      }).pipe(Effect.provide(scripted(Script.make([
        Script.turn("Hello there, world. Nice to meet you.", { chunkSize: 5 })
      ])))))

    it.live("reasoning, text and tool calls in order", () =>
      Effect.gen(function*() {
        const parts = yield* Stream.runCollect(LanguageModel.streamText({
          prompt: "What is in data.txt?",
          toolkit: Toolkit.make(ClaudeCodeTool.Read)
        }))
        const kinds = parts.map((p) => p.type).filter((t) => !t.endsWith("-delta"))
        assert.deepStrictEqual(kinds, [
          "response-metadata",
          "reasoning-start",
          "reasoning-end",
          "text-start",
          "text-end",
          "tool-call",
          "tool-result",
          "text-start",
          "text-end",
          "finish"
        ])
        const joined = (type: string) => parts.flatMap((p) => p.type === type ? [(p as any).delta] : []).join("")
        assert.strictEqual(joined("reasoning-delta"), "The file will say.")
        assert.strictEqual(joined("text-delta"), "Reading it.It says s3cr3t.")
      }).pipe(Effect.provide(scripted(({ cwd }) =>
        Script.make([
          Script.turn([
            Script.thinking("The file will say."),
            Script.text("Reading it."),
            Script.toolUse("Read", { file_path: path.join(cwd, "data.txt") })
          ]),
          Script.turn("It says s3cr3t.")
        ]), { files: { "data.txt": "s3cr3t\n" } }))))
  })

  it.live("an API error the CLI gives up on is an AiError by its status", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(LanguageModel.generateText({ prompt: "Hello" }))
      assert.strictEqual(error.reason._tag, "InvalidRequestError")
      // The CLI's own words for the 400 it got.
      assert.include(error.message, "Prompt is too long")
      assert.strictEqual((error.reason as any).metadata[ClaudeCodeLanguageModel.metadataKey].numTurns, 1)
    }).pipe(Effect.provide(scripted(Script.make([
      Script.turn("unused", { failures: [Script.invalidRequest("prompt is too long: 250000 tokens > 200000 maximum")] })
    ])))))

  it.live("a run stopped at maxTurns finishes with \"length\" and what it produced", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.generateText({ prompt: "What is in data.txt?" }).pipe(
        ClaudeCodeLanguageModel.withConfigOverride({ maxTurns: 1 })
      )
      assert.strictEqual(response.finishReason, "length")
      assert.strictEqual(response.text, "Reading data.txt.")
    }).pipe(Effect.provide(readingData)))

  it.live("a CLI that cannot run is an AiError naming why", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(LanguageModel.generateText({ prompt: "Hello" }))
      assert.strictEqual(error.reason._tag, "UnknownError")
      assert.deepStrictEqual((error.reason as any).metadata[ClaudeCodeLanguageModel.metadataKey], {
        error: "ExecutableNotFound"
      })
      assert.include(error.message, "/nonexistent/claude")
    }).pipe(Effect.provide(
      ClaudeCodeLanguageModel.layer().pipe(Layer.provide(Live.layer({ executable: "/nonexistent/claude" })))
    )))

  it.live("model: an effect/ai Model naming the provider and the model", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Model.ProviderName, "claude-code")
      assert.strictEqual(yield* Model.ModelName, "claude-haiku-4-5")
      yield* LanguageModel.generateText({ prompt: "Hello" })
      const server = yield* ScriptedServer.ScriptedServer
      const [request] = ScriptedServer.turnRequests(yield* server.requests)
      assert.strictEqual((request.body as any).model, "claude-haiku-4-5")
    }).pipe(Effect.provide(
      ClaudeCodeLanguageModel.model("claude-haiku-4-5").pipe(
        Layer.provideMerge(Scripted.layer(Script.make([Script.turn("Hello.")])))
      )
    )))

  it.live("withConfigOverride: per-request settings over the layer's", () =>
    Effect.gen(function*() {
      yield* LanguageModel.generateText({ prompt: "Hello" }).pipe(
        ClaudeCodeLanguageModel.withConfigOverride({ model: "claude-haiku-4-5", appendSystemPrompt: "Answer in French." })
      )
      yield* LanguageModel.generateText({ prompt: "Hello again" })
      const server = yield* ScriptedServer.ScriptedServer
      const [first, second] = ScriptedServer.turnRequests(yield* server.requests).map((r) => r.body)
      assert.strictEqual((first as any).model, "claude-haiku-4-5")
      assert.include(JSON.stringify((first as any).system), "Answer in French.")
      assert.strictEqual((second as any).model, "claude-sonnet-4-5")
      assert.notInclude(JSON.stringify((second as any).system), "Answer in French.")
    }).pipe(Effect.provide(
      ClaudeCodeLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(Layer.provideMerge(Scripted.layer(Script.make([
        Script.turn("Bonjour."),
        Script.turn("Hello.")
      ]))))
    )))

  const Person = Schema.Struct({ name: Schema.String, age: Schema.Number })

  describe("generateObject", () => {
    it.live("decodes the CLI's structured output with the Schema", () =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateObject({ prompt: "Who wrote the first program?", schema: Person })
        assert.deepStrictEqual(response.value, { name: "Ada", age: 36 })
        const [request] = yield* turnRequests
        const tool = (request as any).tools.find((t: any) => t.name === "StructuredOutput")
        assert.deepStrictEqual(tool.input_schema.required, ["name", "age"])
      }).pipe(Effect.provide(scripted(Script.make([
        Script.turn(Script.toolUse("StructuredOutput", { name: "Ada", age: 36 })),
        Script.turn("unused")
      ])))))

    it.live("an answer the Schema rejects is a StructuredOutputError", () =>
      Effect.gen(function*() {
        // The check is the Schema's own: the CLI's JSON Schema lets the answer through.
        const Shouting = Schema.Struct({
          name: Schema.String.check(Schema.makeFilter((s: string) => s === s.toUpperCase() || "must be upper case"))
        })
        const error = yield* Effect.flip(LanguageModel.generateObject({ prompt: "Name?", schema: Shouting }))
        assert.instanceOf(error, AiError.AiError)
        assert.strictEqual(error.reason._tag, "StructuredOutputError")
        assert.include((error.reason as AiError.StructuredOutputError).responseText, "\"ada\"")
      }).pipe(Effect.provide(scripted(Script.make([
        Script.turn(Script.toolUse("StructuredOutput", { name: "ada" })),
        Script.turn("unused")
      ])))))

    it.live("answers the JSON Schema rejects until the CLI gives up", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(LanguageModel.generateObject({ prompt: "Who?", schema: Person }))
        assert.strictEqual(error.reason._tag, "StructuredOutputError")
        assert.include(error.message, "/age: must be number")
      }).pipe(Effect.provide(scripted(Script.make(
        Array.from({ length: 5 }, () => Script.turn(Script.toolUse("StructuredOutput", { name: "Ada", age: "old" })))
      )))))
  })

  const GetInventory = Tool.make("GetInventory", {
    description: "Stock level of a product",
    parameters: Schema.Struct({ productId: Schema.String }),
    success: Schema.Struct({ productId: Schema.String, available: Schema.Number })
  }).annotate(Tool.Readonly, true)
  const Inventory = Toolkit.make(GetInventory)
  const calls: Array<string> = []
  const InventoryHandlers = Inventory.toLayer({
    GetInventory: ({ productId }) => Effect.sync(() => (calls.push(productId), { productId, available: 42 }))
  })

  it.live("a Toolkit tool's result reaches the model", () =>
    Effect.gen(function*() {
      const response = yield* LanguageModel.generateText({ prompt: "How many p-1 are left?", toolkit: Inventory })
      assert.deepStrictEqual(calls, ["p-1"])
      assert.deepStrictEqual(response.toolCalls.map((c) => [c.name, c.params, c.providerExecuted]), [
        ["GetInventory", { productId: "p-1" }, true]
      ])
      assert.deepStrictEqual(response.toolResults.map((r) => [r.name, r.result, r.isFailure]), [
        ["GetInventory", { productId: "p-1", available: 42 }, false]
      ])
      assert.strictEqual(response.text, "42 left.")
      const requests = yield* turnRequests
      // The model was offered the tool (the CLI defers MCP tools behind ToolSearch) and got the result back.
      assert.include(JSON.stringify(requests[0]), "mcp__toolkit__GetInventory")
      const [result] = MessagesRequest.toolResults(requests[1])
      assert.isFalse(result.isError)
      assert.deepStrictEqual(JSON.parse(result.text), { productId: "p-1", available: 42 })
    }).pipe(
      Effect.provide(InventoryHandlers),
      Effect.provide(scripted(Script.make([
        Script.turn(Script.toolUse("mcp__toolkit__GetInventory", { productId: "p-1" })),
        Script.turn("42 left.")
      ])))
    ))

  it.live("a resolved toolkit works where its handlers are not provided", () =>
    Effect.gen(function*() {
      // As Effect's docs do: the toolkit yielded when a service is built, used by its methods later.
      const toolkit = yield* Inventory.pipe(Effect.provide(InventoryHandlers))
      calls.length = 0
      const response = yield* LanguageModel.generateText({ prompt: "How many p-2 are left?", toolkit })
      assert.deepStrictEqual(calls, ["p-2"])
      assert.deepStrictEqual(response.toolResults.map((r) => r.result), [{ productId: "p-2", available: 42 }])
    }).pipe(Effect.provide(scripted(Script.make([
      Script.turn(Script.toolUse("mcp__toolkit__GetInventory", { productId: "p-2" })),
      Script.turn("42 left.")
    ])))))

  it.live("a streaming Chat streams tool calls and resumes the session", () =>
    Effect.gen(function*() {
      const chat = yield* Chat.empty
      calls.length = 0
      const first = yield* Stream.runCollect(chat.streamText({ prompt: "How many p-1 are left?", toolkit: Inventory }))
      assert.deepStrictEqual(calls, ["p-1"])
      const result = first.find((p) => p.type === "tool-result")
      assert.deepStrictEqual(result?.type === "tool-result" ? [result.name, result.result] : [], [
        "GetInventory",
        { productId: "p-1", available: 42 }
      ])
      const second = yield* Stream.runCollect(chat.streamText({ prompt: "Thanks!" }))
      const text = second.flatMap((p) => p.type === "text-delta" ? [p.delta] : []).join("")
      assert.strictEqual(text, "You are welcome.")
      const requests = yield* turnRequests
      assert.strictEqual(MessagesRequest.assistantTurns(requests[2]), 2)
      assert.strictEqual(MessagesRequest.lastUserText(requests[2]).trim(), "Thanks!")
    }).pipe(
      Effect.provide(InventoryHandlers),
      Effect.provide(scripted(Script.make([
        Script.turn(Script.toolUse("mcp__toolkit__GetInventory", { productId: "p-1" })),
        Script.turn("42 left."),
        Script.turn("You are welcome.")
      ])))
    ))

  it.live("a Chat of two turns resumes one session, history not resent", () =>
    Effect.gen(function*() {
      const chat = yield* Chat.fromPrompt([{ role: "system", content: "Answer in one sentence." }])
      const first = yield* chat.generateText({ prompt: "My name is Ada." })
      const second = yield* chat.generateText({ prompt: "What is my name?" })
      assert.strictEqual(second.text, "Your name is Ada.")
      assert.strictEqual(claudeCode(second).sessionId, claudeCode(first).sessionId)
      const requests = yield* turnRequests
      assert.strictEqual(requests.length, 2)
      // The second request holds the first turn, from the session the CLI resumed...
      assert.strictEqual(MessagesRequest.assistantTurns(requests[1]), 1)
      assert.include(JSON.stringify(requests[1].messages), "Nice to meet you, Ada.")
      // ...and the CLI was sent only the new message, not a transcript of the chat.
      assert.strictEqual(MessagesRequest.lastUserText(requests[1]).trim(), "What is my name?")
      assert.notInclude(JSON.stringify(requests[1].messages), "The conversation so far")
      // Both processes run with the chat's system message.
      const server = yield* ScriptedServer.ScriptedServer
      const systems = ScriptedServer.turnRequests(yield* server.requests).map((r) => JSON.stringify((r.body as any).system))
      assert.deepStrictEqual(systems.map((system) => system.includes("Answer in one sentence.")), [true, true])
    }).pipe(Effect.provide(scripted(Script.make([
      Script.turn("Nice to meet you, Ada."),
      Script.turn("Your name is Ada.")
    ])))))
})
