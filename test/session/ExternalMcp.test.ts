/**
 * An external stdio MCP server added at run time, against the real CLI on the scripted model: its status,
 * its resources, a reconnect, and an elicitation it sends answered by `onElicitation`.
 */
import { assert, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as path from "node:path"
import * as Dialogs from "../../src/session/Dialogs.ts"
import * as Session from "../../src/session/Session.ts"
import * as Script from "../../src/testing/Script.ts"
import { collect, setup, toolResults } from "./support/Real.ts"
import * as SessionArgs from "../../src/session/internal/options.ts"

const memo = {
  type: "stdio",
  command: process.execPath,
  args: [path.join(import.meta.dirname, "support", "memo-mcp-server.mjs")]
}

const askName = [Script.turn(Script.toolUse("mcp__memo__ask_name", {})), Script.turn("done")]

layer(NodeServices.layer, { excludeTestServices: true })("external MCP servers (real CLI)", (it) => {
  it.effect("setMcpServers adds a stdio server: status, resource read, reconnect", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("one")])
      const session = yield* Session.make(base)
      const changed = yield* session.setMcpServers({ memo })
      assert.deepStrictEqual([changed.added, changed.removed, changed.errors], [["memo"], [], {}])
      const status = (yield* session.mcpServerStatus).find((s) => s.name === "memo")
      assert.strictEqual(status?.status, "connected")
      assert.deepStrictEqual(status?.tools?.map((t) => t.name), ["ask_name"])
      const read = yield* session.readMcpResource("memo", "ui://memo/one")
      assert.strictEqual(read.contents[0].text, "MEMO-TEXT-ONE")
      yield* session.reconnectMcpServer("memo")
      assert.strictEqual((yield* session.mcpServerStatus).find((s) => s.name === "memo")?.status, "connected")
    }), 60_000)

  it.effect("onElicitation answers the server's elicitation", () =>
    Effect.gen(function*() {
      const { base } = yield* setup(askName)
      const asked: Array<Dialogs.Elicitation> = []
      const session = yield* Session.make({
        ...base,
        mcpConfig: [{ mcpServers: { memo } }],
        allowedTools: ["mcp__memo__ask_name"],
        onElicitation: (request) =>
          Effect.sync(() => {
            asked.push(request)
            return { action: "accept", content: { name: "Ada" } }
          })
      })
      const [result] = toolResults(yield* collect(session.turn("ask my name")))
      assert.deepStrictEqual(asked.map((r) => [r.serverName, r.message]), [["memo", "What is your name?"]])
      assert.include(result.text, "name=Ada")
    }), 60_000)

  it.effect("without onElicitation the elicitation is declined", () =>
    Effect.gen(function*() {
      const { base } = yield* setup(askName)
      const options: Session.Options = {
        ...base,
        mcpConfig: [{ mcpServers: { memo } }],
        mcpServersDelivery: "initialize",
        allowedTools: ["mcp__memo__ask_name"]
      }
      // Delivered in `initialize`: the server's command line is not the CLI's.
      const args = yield* SessionArgs.toArgs(options)
      assert.notInclude(args.join(" "), "memo-mcp-server")
      assert.include(args, "--await-initialize")
      const session = yield* Session.make(options)
      const [result] = toolResults(yield* collect(session.turn("ask my name")))
      assert.include(result.text, "elicitation decline")
    }), 60_000)
})
