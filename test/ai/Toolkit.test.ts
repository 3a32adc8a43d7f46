/**
 * An effect/ai Toolkit served as a session's in-process MCP server: the JSON-RPC the CLI sends through
 * `mcp_message`, answered by effect/ai's own McpServer.
 */
import { assert, layer } from "@effect/vitest"
import { Tool, Toolkit } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as McpServer from "../../src/session/McpServer.ts"

const Divide = Tool.make("Divide", {
  description: "Divides a by b",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ quotient: Schema.Number }),
  failure: Schema.Struct({ problem: Schema.String })
})
  .annotate(Tool.Readonly, true)
  .annotate(Tool.Idempotent, true)
  .annotate(Tool.Destructive, false)
  .annotate(Tool.OpenWorld, false)

const Calc = Toolkit.make(Divide)
const handlers = Calc.toLayer({
  Divide: ({ a, b }) => b === 0 ? Effect.fail({ problem: "division by zero" }) : Effect.succeed({ quotient: a / b })
})

const rpc = (id: number, method: string, params: Record<string, unknown>) => ({ jsonrpc: "2.0", id, method, params })

const connected = Effect.gen(function*() {
  const connection = yield* McpServer.connect(McpServer.fromToolkit("calc", Calc))
  const init = yield* connection.handle(rpc(0, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "claude-code", version: "2.1.330" }
  }))
  yield* connection.handle({ jsonrpc: "2.0", method: "notifications/initialized" })
  return { connection, init: init as any }
})

layer(handlers)("McpServer.fromToolkit", (it) => {
  it.effect("lists the tools with their parameters, success schema and annotations", () =>
    Effect.gen(function*() {
      const { connection, init } = yield* connected
      assert.strictEqual(init.result.protocolVersion, "2025-06-18")
      assert.strictEqual(init.result.serverInfo.name, "calc")
      const listed = (yield* connection.handle(rpc(1, "tools/list", {}))) as any
      const [tool] = listed.result.tools
      assert.strictEqual(tool.name, "Divide")
      assert.strictEqual(tool.description, "Divides a by b")
      assert.deepStrictEqual(tool.inputSchema.required, ["a", "b"])
      assert.deepStrictEqual(Object.keys(tool.outputSchema.properties), ["quotient"])
      assert.deepStrictEqual(tool.annotations, {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false
      })
    }))

  it.effect("calls a tool: result, declared failure, bad parameters", () =>
    Effect.gen(function*() {
      const { connection } = yield* connected
      const ok = (yield* connection.handle(rpc(2, "tools/call", { name: "Divide", arguments: { a: 84, b: 2 } }))) as any
      assert.strictEqual(ok.id, 2)
      assert.deepStrictEqual(ok.result.structuredContent, { quotient: 42 })
      assert.deepStrictEqual(JSON.parse(ok.result.content[0].text), { quotient: 42 })
      const failed = (yield* connection.handle(rpc(3, "tools/call", { name: "Divide", arguments: { a: 1, b: 0 } }))) as any
      assert.isTrue(failed.result.isError)
      assert.deepStrictEqual(JSON.parse(failed.result.content[0].text), { problem: "division by zero" })
      const invalid = (yield* connection.handle(rpc(4, "tools/call", { name: "Divide", arguments: { a: "x", b: 1 } }))) as any
      assert.strictEqual(invalid.id, 4)
      assert.strictEqual(invalid.error.code, -32602)
      const unknown = (yield* connection.handle(rpc(5, "resources/teleport", {}))) as any
      assert.strictEqual(unknown.error.code, -32601)
    }))

  it.effect("a client that calls before its handshake gets one made for it", () =>
    Effect.gen(function*() {
      const connection = yield* McpServer.connect(McpServer.fromToolkit("calc", Calc))
      const ok = (yield* connection.handle(rpc(9, "tools/call", { name: "Divide", arguments: { a: 9, b: 3 } }))) as any
      assert.deepStrictEqual(ok.result.structuredContent, { quotient: 3 })
    }))
})
