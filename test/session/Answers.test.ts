/**
 * What the CLI answers the control requests that the SDK types an answer for, against the real CLI on the
 * scripted model: the permission mode in effect, the interrupt's receipt, whether a task went to the
 * background, and an MCP call's options and typed result. Each is checked where the CLI shows its effect
 * (the model's requests, the tool's calls, the files on disk).
 */
import { assert, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Session from "../../src/session/Session.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { collect, resultOf, setup, toolResults, waitUntil } from "./support/Real.ts"

// A turn that streams for 20 s unless interrupted, then the reply to the prompt that includes `next` (an
// interrupted turn adds no assistant message, so the main conversation would answer it with its first turn).
const slowThen = (next: string, reply: string) =>
  Script.make([Script.turn("c".repeat(40), { eventDelay: "500 millis", chunkSize: 1 })], {
    subagents: [Script.conversation(next, (r) => MessagesRequest.lastUserText(r).includes(next), [Script.turn(reply)])]
  })

// Whether the model was asked to answer a prompt with this text (its last user message).
const asked = (server: ScriptedServer.Shape, text: string) =>
  Effect.map(server.requests, (all) =>
    ScriptedServer.turnRequests(all).some((r) =>
      Option.exists(MessagesRequest.decode(r.body), (request) => MessagesRequest.lastUserText(request).includes(text))
    ))

// The processes whose command line holds this text, from the process table.
const running = (text: string) =>
  fs.readdirSync("/proc").filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text)
    } catch {
      return false
    }
  })

const turnsAsked = (server: ScriptedServer.Shape) =>
  Effect.map(server.requests, (all) => ScriptedServer.turnRequests(all).length)

layer(NodeServices.layer, { excludeTestServices: true })("setPermissionMode's answer (real CLI)", (it) => {
  it.effect("is the mode now in effect", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([Script.turn(Script.toolUse("Write", { file_path: "a.txt", content: "x" })), Script.turn("written")])
      const session = yield* Session.make(base)
      assert.strictEqual(yield* session.setPermissionMode("plan"), "plan")
      assert.strictEqual(yield* session.setPermissionMode("acceptEdits"), "acceptEdits")
      yield* collect(session.turn("write a.txt"))
      assert.strictEqual(fs.readFileSync(path.join(sandbox.cwd, "a.txt"), "utf8"), "x")
    }), 60_000)
})

layer(NodeServices.layer, { excludeTestServices: true })("interrupt's receipt (real CLI)", (it) => {
  it.effect("lists a queued prompt, which then runs", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup(slowThen("second", "second reply"))
      const session = yield* Session.make(base)
      const output = yield* session.subscribe
      yield* session.send("first")
      yield* waitUntil(Effect.map(turnsAsked(server), (n) => n >= 1))
      const queued = yield* session.send("second")
      const receipt = yield* session.interrupt
      assert.deepStrictEqual(receipt?.still_queued, [queued])
      assert.isUndefined(receipt?.cancelled)
      const results = yield* output.pipe(Stream.filter((m) => m.type === "result"), Stream.take(2), Stream.runCollect)
      assert.strictEqual(resultOf(results).result, "second reply")
      assert.isTrue(yield* asked(server, "second"))
    }), 60_000)

  it.effect("with cancelQueued withdraws the queued prompt; the session goes on", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup(slowThen("third", "third reply"))
      const session = yield* Session.make(base)
      yield* session.send("first")
      yield* waitUntil(Effect.map(turnsAsked(server), (n) => n >= 1))
      const queued = yield* session.send("second")
      const receipt = yield* session.interruptAndCancelQueued
      assert.deepStrictEqual(receipt?.cancelled, [queued])
      assert.deepStrictEqual(receipt?.still_queued, [])
      const third = yield* collect(session.turn("third"))
      assert.strictEqual(resultOf(third).result, "third reply")
      assert.isFalse(yield* asked(server, "second"))
    }), 60_000)
})

layer(NodeServices.layer, { excludeTestServices: true })("backgroundTasks' answer (real CLI)", (it) => {
  it.effect("true for a running command, which goes to the background; false for no task", () =>
    Effect.gen(function*() {
      const marker = `late-${crypto.randomUUID()}`
      const { base, server } = yield* setup([
        Script.turn(Script.toolUse("Bash", { command: `sleep 20; echo ${marker}` })),
        Script.turn("moved on")
      ])
      const session = yield* Session.make({ ...base, allowedTools: ["Bash"] })
      assert.isFalse(yield* session.backgroundTasks("toolu_none"))
      const output = yield* session.subscribe
      yield* session.send("run it")
      // The command runs once the model's request that asked for it has been answered.
      const calls = yield* output.pipe(
        Stream.map((m) => m._tag === "AssistantMessage" ? m.message.content.find((b) => b.type === "tool_use") : undefined),
        Stream.filter((b) => b !== undefined),
        Stream.take(1),
        Stream.runCollect
      )
      const id = calls[0]?._tag === "ToolUseBlock" ? calls[0].id : ""
      // A foreground command is registered as it starts: retried until the CLI knows it.
      let backgrounded = false
      yield* waitUntil(Effect.orDie(Effect.map(session.backgroundTasks(id), (b) => (backgrounded = b))))
      assert.isTrue(backgrounded)
      const rest = yield* output.pipe(Stream.takeUntil((m) => m.type === "result"), Stream.runCollect)
      assert.include(JSON.stringify(toolResults(rest)[0]?.content), "background")
      assert.strictEqual(yield* turnsAsked(server), 2)
      // The command ran on in the background, until the session ended.
      assert.isNotEmpty(running(marker))
      yield* session.close
      assert.deepStrictEqual(running(marker), [])
    }), 60_000)
})

layer(NodeServices.layer, { excludeTestServices: true })("callMcpTool's options (real CLI)", (it) => {
  // A stdio server (the CLI refuses mcp_call for in-process ones), logging each call it runs to a file.
  const withCalc = (cwd: string) => {
    const log = path.join(cwd, "..", "calc-calls.txt")
    const calc = { type: "stdio", command: process.execPath, args: [path.join(import.meta.dirname, "support", "calc-mcp-server.mjs"), log] }
    const calls = () => fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter((l) => l !== "") : []
    return { mcpConfig: [{ mcpServers: { calc } }], calls }
  }
  const connected = (session: Session.Session) =>
    waitUntil(Effect.orDie(Effect.map(session.mcpServerStatus, (all) => all.some((s) => s.name === "calc" && s.status === "connected"))))

  it.effect("softErrorResult answers the tool's own error; without it the call fails", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("unused")])
      const { mcpConfig } = withCalc(base.cwd!)
      const session = yield* Session.make({ ...base, mcpConfig })
      yield* connected(session)
      const soft = yield* session.callMcpTool("mcp__calc__broken", {}, { softErrorResult: true, resultNotForModel: true })
      assert.isTrue(soft.isError)
      assert.include(JSON.stringify(soft.content), "it broke")
      const hard = yield* Effect.flip(session.callMcpTool("mcp__calc__broken", {}))
      assert.include(hard.message, "it broke")
    }), 60_000)

  it.effect("resultNotForModel answers the server's own content and structuredContent; a timeout goes through", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("unused")])
      const { calls, mcpConfig } = withCalc(base.cwd!)
      const session = yield* Session.make({ ...base, mcpConfig })
      yield* connected(session)
      const result = yield* session.callMcpTool("mcp__calc__add", { a: 2, b: 3 }, { resultNotForModel: true, timeout: "30 seconds" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "sum=5" }])
      assert.deepStrictEqual(result.structuredContent, { sum: 5 })
      assert.deepStrictEqual(calls(), ["add"])
    }), 60_000)

  it.effect("checkPermissions asks canUseTool; a denial keeps the tool from running", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("unused")])
      const { calls, mcpConfig } = withCalc(base.cwd!)
      const asks: Array<string> = []
      const session = yield* Session.make({
        ...base,
        mcpConfig,
        canUseTool: (toolName) => Effect.sync(() => (asks.push(toolName), CanUseTool.deny("not now")))
      })
      yield* connected(session)
      const refused = yield* Effect.flip(session.callMcpTool("mcp__calc__add", { a: 1, b: 1 }, { checkPermissions: true }))
      assert.include(refused.message, "The tool did not run")
      assert.deepStrictEqual(asks, ["mcp__calc__add"])
      assert.deepStrictEqual(calls(), [])
      // Unchecked, the same call runs without asking.
      yield* session.callMcpTool("mcp__calc__add", { a: 1, b: 1 })
      assert.deepStrictEqual(asks, ["mcp__calc__add"])
      assert.deepStrictEqual(calls(), ["add"])
    }), 60_000)
})
