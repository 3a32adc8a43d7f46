import { assert, describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Hooks from "../../src/session/Hooks.ts"
import * as McpServer from "../../src/session/McpServer.ts"
import * as Permission from "../../src/session/Permission.ts"
import * as Session from "../../src/session/Session.ts"
import * as ClaudeSandbox from "../../src/testing/ClaudeSandbox.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"

const setup = (turns: ReadonlyArray<Script.Turn>) =>
  Effect.gen(function*() {
    const server = yield* ScriptedServer.make(Script.make(turns))
    const sandbox = yield* ClaudeSandbox.make({ baseUrl: server.url })
    const base: Session.Options = {
      executable: sandbox.executable,
      cwd: sandbox.cwd,
      env: sandbox.env,
      envMode: "replace"
    }
    return { server, sandbox, base }
  })

const collect = (stream: Stream.Stream<Session.Message, unknown>) =>
  Effect.map(Stream.runCollect(stream), (chunk) => Array.from(chunk))

const toolResults = (messages: ReadonlyArray<Session.Message>) =>
  messages.flatMap((m) => {
    const content = (m.message as { content?: unknown } | undefined)?.content
    return m.type === "user" && Array.isArray(content) ? content.filter((b) => b.type === "tool_result") : []
  })

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("Session (real CLI)", () => {
  it.live("two turns in one process, the second seeing the first", () =>
    Effect.gen(function*() {
      const { server, base } = yield* setup([Script.turn("Noted: 7"), Script.turn("It was 7")])
      const session = yield* Session.make(base)
      assert.isTrue(Array.isArray(session.initialization.commands))
      const first = yield* collect(session.turn("Remember the number 7"))
      const second = yield* collect(session.turn("Which number?"))
      assert.strictEqual(first.at(-1)?.type, "result")
      assert.strictEqual(second.at(-1)?.type, "result")
      assert.strictEqual(second.at(-1)?.result, "It was 7")
      const turns = ScriptedServer.turnRequests(yield* server.requests)
      assert.strictEqual(turns.length, 2)
      const body = JSON.stringify(turns[1].body)
      assert.include(body, "Remember the number 7")
      assert.include(body, "Noted: 7")
      assert.match(yield* session.sessionId, /^[0-9a-f-]{36}$/)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("canUseTool allows one Write and denies another", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        // Denied first: once a Write is allowed, the CLI stops asking for later edits in the same directory.
        Script.turn(Script.toolUse("Write", { file_path: "denied.txt", content: "no" })),
        Script.turn(Script.toolUse("Write", { file_path: "allowed.txt", content: "yes" })),
        Script.turn("done")
      ])
      const asked: Array<string> = []
      const session = yield* Session.make({
        ...base,
        canUseTool: (tool, input) =>
          Effect.sync(() => {
            asked.push(`${tool}:${path.basename(String(input.file_path))}`)
            return String(input.file_path).includes("denied")
              ? Permission.deny("not that one")
              : Permission.allow()
          })
      })
      const messages = yield* collect(session.turn("write two files"))
      assert.deepStrictEqual(asked, ["Write:denied.txt", "Write:allowed.txt"])
      assert.isTrue(fs.existsSync(path.join(sandbox.cwd, "allowed.txt")))
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "denied.txt")))
      const results = toolResults(messages)
      assert.strictEqual(results.length, 2)
      assert.strictEqual(results[0].is_error, true)
      assert.include(JSON.stringify(results[0].content), "not that one")
      assert.notStrictEqual(results[1].is_error, true)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("canUseTool rewrites the input; a failing callback becomes a deny", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Write", { file_path: "boom.txt", content: "x" })),
        Script.turn(Script.toolUse("Write", { file_path: "draft.txt", content: "original" })),
        Script.turn("done")
      ])
      const session = yield* Session.make({
        ...base,
        canUseTool: (_tool, input) =>
          String(input.file_path).endsWith("boom.txt")
            ? Effect.fail("callback exploded")
            : Effect.succeed(Permission.allow({ updatedInput: { ...input, content: "rewritten" } }))
      })
      const messages = yield* collect(session.turn("write"))
      assert.strictEqual(fs.readFileSync(path.join(sandbox.cwd, "draft.txt"), "utf8"), "rewritten")
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "boom.txt")))
      const results = toolResults(messages)
      assert.strictEqual(results[0].is_error, true)
      assert.include(JSON.stringify(results[0].content), "callback exploded")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("a PreToolUse hook blocks a Bash command", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Bash", { command: "touch hooked.txt" })),
        Script.turn("done")
      ])
      const seen: Array<unknown> = []
      const session = yield* Session.make({
        ...base,
        allowedTools: ["Bash"],
        hooks: {
          PreToolUse: [{
            matcher: "Bash",
            hooks: [(input) => Effect.sync(() => (seen.push(input.tool_input), Hooks.block("no shell today")))]
          }]
        }
      })
      const messages = yield* collect(session.turn("run it"))
      assert.deepStrictEqual(seen, [{ command: "touch hooked.txt" }])
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "hooked.txt")))
      const results = toolResults(messages)
      assert.strictEqual(results[0].is_error, true)
      assert.include(JSON.stringify(results[0].content), "no shell today")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("an in-process MCP tool is called by the model", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([
        Script.turn(Script.toolUse("mcp__calc__add", { a: 20, b: 22 })),
        Script.turn("The sum is 42")
      ])
      const add = McpServer.tool(
        "add",
        "Adds two numbers",
        Schema.Struct({ a: Schema.Number, b: Schema.Number }),
        ({ a, b }) => Effect.succeed(`sum=${a + b}`)
      )
      const session = yield* Session.make({
        ...base,
        mcpServers: [McpServer.make("calc", [add])],
        allowedTools: ["mcp__calc__add"]
      })
      const messages = yield* collect(session.turn("add 20 and 22"))
      const results = toolResults(messages)
      assert.strictEqual(results.length, 1)
      assert.include(JSON.stringify(results[0].content), "sum=42")
      const turns = ScriptedServer.turnRequests(yield* server.requests)
      assert.include(JSON.stringify(turns[0].body), "mcp__calc__add")
      assert.include(JSON.stringify(turns[1].body), "sum=42")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("interrupt ends a slow turn promptly", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([
        Script.turn("a".repeat(600), { eventDelay: "500 millis", chunkSize: 3 })
      ])
      const session = yield* Session.make({ ...base, interruptTimeout: "15 seconds" })
      const messages = yield* Effect.forkChild(collect(session.turn("talk slowly")))
      yield* Effect.sleep("1500 millis")
      yield* session.interrupt
      const collected = yield* Fiber.join(messages)
      const result = collected.at(-1)
      assert.strictEqual(result?.type, "result")
      // The scripted turn would stream for well over a minute; only an interrupt ends it now.
      assert.notStrictEqual(result?.result, "a".repeat(600))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.live("closing the scope ends the process", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("hi")])
      const pid = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Session.make(base)
        assert.isTrue(isAlive(session.pid))
        return session.pid
      }))
      assert.isFalse(isAlive(pid))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
