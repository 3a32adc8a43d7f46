/**
 * The typed control requests against the real CLI on the scripted model: each shows its effect where the CLI
 * or the model's next request can show it.
 */
import { assert, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as McpServer from "../../src/session/McpServer.ts"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Session from "../../src/session/Session.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { collect, setup } from "./support/Real.ts"

const calc = McpServer.make("calc", [
  McpServer.tool("add", "Adds two numbers", Schema.Struct({ a: Schema.Number, b: Schema.Number }), ({ a, b }) =>
    Effect.succeed(`sum=${a + b}`))
])

// The model requests as the CLI sent them: deferred tools are named outside `tools`.
const rawBodies = (server: ScriptedServer.Shape) =>
  Effect.map(server.requests, (all) => ScriptedServer.turnRequests(all).map((r) => r.body as Record<string, unknown>))

// A plugin with one command, `greeter:greet`, beside the working directory.
const writePlugin = (cwd: string) => {
  const plugin = path.join(cwd, "..", "greeter-plugin")
  fs.mkdirSync(path.join(plugin, ".claude-plugin"), { recursive: true })
  fs.mkdirSync(path.join(plugin, "commands"), { recursive: true })
  fs.writeFileSync(
    path.join(plugin, ".claude-plugin", "plugin.json"),
    JSON.stringify({ name: "greeter", version: "1.0.0", description: "greets" })
  )
  fs.writeFileSync(path.join(plugin, "commands", "greet.md"), "---\ndescription: Greets someone\n---\nSay hello to $ARGUMENTS\n")
  return plugin
}

layer(NodeServices.layer, { excludeTestServices: true })("Session control requests (real CLI)", (it) => {
  it.effect("mcpServerStatus lists a server; toggleMcpServer hides its tools", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([Script.turn("one"), Script.turn("two"), Script.turn("three")])
      const session = yield* Session.make({ ...base, mcpServers: [calc] })
      yield* collect(session.turn("first"))
      const [status] = yield* session.mcpServerStatus
      assert.strictEqual(status.name, "calc")
      assert.strictEqual(status.status, "connected")
      assert.deepStrictEqual(status.tools?.map((t) => t.name), ["add"])
      yield* session.toggleMcpServer("calc", false)
      assert.strictEqual((yield* session.mcpServerStatus)[0].status, "disabled")
      yield* collect(session.turn("second"))
      yield* session.toggleMcpServer("calc", true)
      yield* collect(session.turn("third"))
      // The model hears of each change in the request after it, beside the history that named the tool.
      const [first, second, third] = (yield* rawBodies(server)).map((b) => JSON.stringify(b.messages))
      const mentions = (text: string) => text.split("mcp__calc__add").length - 1
      assert.strictEqual(mentions(first), 1)
      assert.match(second, /no longer available[^"]*mcp__calc__add/)
      assert.isAbove(mentions(third), mentions(second))
    }), 60_000)

  it.effect("a refused request fails with the CLI's reason", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("one")])
      const session = yield* Session.make(base)
      const error = yield* Effect.flip(session.toggleMcpServer("nowhere", false))
      assert.include(error.message, "Server not found: nowhere")
    }), 60_000)

  it.effect("rewindFiles restores a file written by Write", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Write", { file_path: "notes.txt", content: "rewritten" })),
        Script.turn("written")
      ])
      const file = path.join(sandbox.cwd, "notes.txt")
      fs.writeFileSync(file, "original")
      const session = yield* Session.make({
        ...base,
        enableFileCheckpointing: true,
        canUseTool: () => Effect.succeed(CanUseTool.allow())
      })
      const output = yield* session.subscribe
      const id = yield* session.send("rewrite notes.txt")
      yield* collect(output.pipe(Stream.takeUntil((m) => m.type === "result")))
      assert.strictEqual(fs.readFileSync(file, "utf8"), "rewritten")
      const dry = yield* session.rewindFiles(id, { dryRun: true })
      assert.isTrue(dry.canRewind)
      assert.strictEqual(fs.readFileSync(file, "utf8"), "rewritten")
      const done = yield* session.rewindFiles(id)
      assert.isTrue(done.canRewind, done.error)
      assert.strictEqual(fs.readFileSync(file, "utf8"), "original")
    }), 60_000)

  it.effect("contextUsage counts the conversation's tokens by category", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("one")])
      const session = yield* Session.make(base)
      yield* collect(session.turn("first"))
      const usage = yield* session.contextUsage()
      assert.isAbove(usage.totalTokens, 0)
      assert.isAbove(usage.maxTokens, usage.totalTokens)
      assert.includeMembers(usage.categories.map((c) => c.id), ["system_prompt", "system_tools", "free_space"])
      const cost = yield* session.usage()
      assert.isAbove(cost.session?.total_cost_usd ?? 0, 0)
    }), 60_000)

  // Models with adaptive thinking (all of 2.1.330's aliases) ignore a budget: a model with budgets shows it.
  it.effect("setMaxThinkingTokens: the next model request carries the budget", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([Script.turn("one"), Script.turn("two")])
      const session = yield* Session.make({ ...base, model: "claude-sonnet-4-20250514" })
      yield* collect(session.turn("first"))
      yield* session.setMaxThinkingTokens(3000)
      yield* collect(session.turn("second"))
      const [before, after] = (yield* rawBodies(server)).map((b) => b.thinking as Record<string, unknown>)
      assert.notStrictEqual(before.budget_tokens, 3000)
      assert.strictEqual(after.type, "enabled")
      assert.strictEqual(after.budget_tokens, 3000)
    }), 60_000)

  it.effect("reloadPlugins loads an added plugin's command; initialization follows", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([Script.turn("one")])
      const plugin = writePlugin(sandbox.cwd)
      const session = yield* Session.make(base)
      const names = () => session.initialization.commands.map((c) => c.name)
      assert.notInclude(names(), "greeter:greet")
      const result = yield* session.reloadPlugins({ addPlugins: [{ type: "local", path: plugin }] })
      assert.include(result.plugins.map((p) => p.name), "greeter")
      assert.include(result.commands.map((c) => c.name), "greeter:greet")
      assert.include(names(), "greeter:greet")
    }), 60_000)
})

layer(NodeServices.layer, { excludeTestServices: true })("Session initialization kept current (real CLI)", (it) => {
  it.effect("reloadSkills and commands_changed pick up a new project command", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([Script.turn("one")])
      const session = yield* Session.make({ ...base, settingSources: ["project"] })
      const names = () => session.initialization.commands.map((c) => c.name)
      const notices = yield* session.subscribe
      assert.notInclude(names(), "late")
      fs.mkdirSync(path.join(sandbox.cwd, ".claude", "commands"), { recursive: true })
      fs.writeFileSync(path.join(sandbox.cwd, ".claude", "commands", "late.md"), "---\ndescription: Late\n---\nLATE\n")
      const reloaded = yield* session.reloadSkills
      assert.include(reloaded.skills.map((s) => s.name), "late")
      const notice = yield* notices.pipe(Stream.filter((m) => m._tag === "SystemCommandsChanged"), Stream.take(1), Stream.runCollect)
      assert.include(notice[0]?._tag === "SystemCommandsChanged" ? notice[0].commands.map((c) => c.name) : [], "late")
      assert.include(names(), "late")
    }), 60_000)
})

layer(NodeServices.layer, { excludeTestServices: true })("Session initialize (real CLI)", (it) => {
  it.effect("initialize loads plugins; reinitialize answers the current state", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([Script.turn("one")])
      const plugin = writePlugin(sandbox.cwd)
      const session = yield* Session.make({ ...base, plugins: [{ type: "local", path: plugin }], pluginDelivery: "initialize" })
      assert.strictEqual(session.rawInitialization.plugins_applied, true)
      assert.include(session.initialization.commands.map((c) => c.name), "greeter:greet")
      const again = yield* session.reinitialize
      assert.include(again.commands.map((c) => c.name), "greeter:greet")
      assert.strictEqual(session.initialization, again)
    }), 60_000)

  it.effect("tool aliases route a tool name to another tool", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Scribble", { file_path: "aliased.txt", content: "via alias" })),
        Script.turn("done")
      ])
      const session = yield* Session.make({
        ...base,
        toolAliases: { Scribble: "Write" },
        planModeInstructions: "Plan briefly.",
        agentProgressSummaries: true,
        canUseTool: () => Effect.succeed(CanUseTool.allow())
      })
      yield* collect(session.turn("write via the alias"))
      assert.strictEqual(fs.readFileSync(path.join(sandbox.cwd, "aliased.txt"), "utf8"), "via alias")
    }), 60_000)
})

layer(NodeServices.layer, { excludeTestServices: true })("Session background tasks (real CLI)", (it) => {
  it.effect("stopTask stops a background subagent", () =>
    Effect.gen(function*() {
      // The subagent would stream for 20 s.
      const slow = Script.turn("c".repeat(40), { eventDelay: "500 millis", chunkSize: 1 })
      const { base } = yield* setup(Script.make([
        Script.turn(Script.toolUse("Agent", {
          description: "count slowly",
          prompt: "Count slowly to forty",
          subagent_type: "general-purpose",
          run_in_background: true
        })),
        Script.turn("started it"),
        Script.turn("after the stop")
      ], { subagents: [Script.conversation("counter", MessagesRequest.firstUserTextIncludes("Count slowly"), [slow])] }))
      const session = yield* Session.make({ ...base, allowedTools: ["Agent"], perTaskStopAffordance: true })
      const output = yield* session.subscribe
      yield* session.send("start the counter")
      // Stopped from inside the reader, as soon as the task is announced: the session reads ahead meanwhile.
      const seen = yield* output.pipe(
        Stream.tap((m) => m._tag === "SystemTaskStarted" ? session.stopTask(m.task_id) : Effect.void),
        Stream.takeUntil((m) => m._tag === "SystemTaskNotification"),
        Stream.runCollect,
        Effect.timeout("30 seconds")
      )
      const started = seen.find((m) => m._tag === "SystemTaskStarted")
      const ended = seen.at(-1)
      assert.isTrue(started?._tag === "SystemTaskStarted" && started.is_backgrounded === true)
      assert.strictEqual(ended?._tag === "SystemTaskNotification" ? ended.task_id : "", started?._tag === "SystemTaskStarted" ? started.task_id : "-")
      assert.strictEqual(ended?._tag === "SystemTaskNotification" ? ended.status : "", "stopped")
    }), 60_000)
})
