import { assert, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Hooks from "../../src/session/Hooks.ts"
import * as McpServer from "../../src/session/McpServer.ts"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Session from "../../src/session/Session.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { collect, resultOf, setup, toolResults, turnBodies } from "./support/Real.ts"

class Reviewer extends Context.Service<Reviewer, { readonly verdict: string }>()("test/Reviewer") {}

layer(NodeServices.layer, { excludeTestServices: true })("Session callbacks (real CLI)", (it) => {
  it.effect("canUseTool allows one Write and denies another", () =>
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
            return String(input.file_path).includes("denied") ? CanUseTool.deny("not that one") : CanUseTool.allow()
          })
      })
      const messages = yield* collect(session.turn("write two files"))
      assert.deepStrictEqual(asked, ["Write:denied.txt", "Write:allowed.txt"])
      assert.isTrue(fs.existsSync(path.join(sandbox.cwd, "allowed.txt")))
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "denied.txt")))
      const results = toolResults(messages)
      assert.strictEqual(results.length, 2)
      assert.isTrue(results[0].isError)
      assert.include(results[0].text, "not that one")
      assert.isFalse(results[1].isError)
    }))

  it.effect("canUseTool rewrites input; failures become a deny", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Write", { file_path: "fails.txt", content: "x" })),
        Script.turn(Script.toolUse("Write", { file_path: "dies.txt", content: "x" })),
        Script.turn(Script.toolUse("Write", { file_path: "draft.txt", content: "original" })),
        Script.turn("done")
      ])
      const session = yield* Session.make({
        ...base,
        canUseTool: (_tool, input) =>
          String(input.file_path).endsWith("fails.txt")
            ? Effect.fail("callback failed")
            : String(input.file_path).endsWith("dies.txt")
            ? Effect.die(new Error("callback died"))
            : Effect.succeed(CanUseTool.allow({ updatedInput: { ...input, content: "rewritten" } }))
      })
      const messages = yield* collect(session.turn("write"))
      assert.strictEqual(fs.readFileSync(path.join(sandbox.cwd, "draft.txt"), "utf8"), "rewritten")
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "fails.txt")))
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "dies.txt")))
      const results = toolResults(messages)
      assert.deepStrictEqual(results.map((r) => r.isError), [true, true, false])
      assert.include(results[0].text, "callback failed")
      assert.include(results[1].text, "callback died")
    }))

  it.effect("a deny with interrupt ends the turn", () =>
    Effect.gen(function*() {
      const { base, sandbox, server } = yield* setup([
        Script.turn(Script.toolUse("Write", { file_path: "x.txt", content: "x" })),
        Script.turn("not reached")
      ])
      const session = yield* Session.make({
        ...base,
        canUseTool: () => Effect.succeed(CanUseTool.deny("stop right here", { interrupt: true }))
      })
      const messages = yield* collect(session.turn("write"))
      const result = messages.at(-1)
      assert.strictEqual(result?._tag === "ResultError" ? result.subtype : result?._tag, "error_during_execution")
      assert.isTrue(toolResults(messages)[0].isError)
      assert.isTrue(messages.some((m) => m._tag === "UserMessage" && m.text.includes("[Request interrupted by user for tool use]")))
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "x.txt")))
      assert.strictEqual(ScriptedServer.turnRequests(yield* server.requests).length, 1)
    }))

  it.effect("an allow with addRules stops the next ask", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Bash", { command: "touch one.txt" })),
        Script.turn(Script.toolUse("Bash", { command: "touch two.txt" })),
        Script.turn("done")
      ])
      const asked: Array<unknown> = []
      const session = yield* Session.make({
        ...base,
        canUseTool: (_tool, input) =>
          Effect.sync(() => {
            asked.push(input.command)
            return CanUseTool.allow({
              updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash" }], behavior: "allow", destination: "session" }]
            })
          })
      })
      const messages = yield* collect(session.turn("touch two files"))
      assert.deepStrictEqual(asked, ["touch one.txt"])
      assert.deepStrictEqual(toolResults(messages).map((r) => r.isError), [false, false])
      assert.isTrue(fs.existsSync(path.join(sandbox.cwd, "one.txt")))
      assert.isTrue(fs.existsSync(path.join(sandbox.cwd, "two.txt")))
    }))

  it.effect("canUseTool gets suggestions, blocked path and reason", () =>
    Effect.gen(function*() {
      const outside = fs.mkdtempSync(path.join(os.tmpdir(), "outside-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(outside, { recursive: true, force: true })))
      const { base } = yield* setup([
        Script.turn(Script.toolUse("Write", { file_path: path.join(outside, "w.txt"), content: "x" })),
        Script.turn(Script.toolUse("Bash", { command: `rm -rf ${path.join(outside, "gone")}` })),
        Script.turn("done")
      ])
      const seen: Array<[string, CanUseTool.Context]> = []
      const session = yield* Session.make({
        ...base,
        canUseTool: (tool, _input, context) =>
          Effect.map(Effect.service(Reviewer), (reviewer) => (seen.push([tool, context]), CanUseTool.deny(reviewer.verdict)))
      }).pipe(Effect.provideService(Reviewer, { verdict: "the reviewer says no" }))
      const messages = yield* collect(session.turn("go"))
      assert.deepStrictEqual(seen.map(([tool]) => tool), ["Write", "Bash"])
      const [[, write], [, bash]] = seen
      assert.match(write.toolUseId ?? "", /^toolu_/)
      assert.strictEqual(write.decisionReason, "Path is outside allowed working directories")
      assert.isUndefined(write.blockedPath)
      assert.isTrue(write.suggestions.some((s) => s.type === "addDirectories" && JSON.stringify(s.directories) === JSON.stringify([outside])))
      assert.strictEqual(bash.blockedPath, path.join(outside, "gone"))
      assert.isTrue(bash.suggestions.some((s) =>
        s.type === "addRules" && JSON.stringify(s.rules).includes(`rm -rf ${path.join(outside, "gone")}`)
      ))
      assert.deepStrictEqual(toolResults(messages).map((r) => r.text.includes("the reviewer says no")), [true, true])
    }))

  it.effect("a late canUseTool is a deny naming the timeout", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Write", { file_path: "late.txt", content: "x" })),
        Script.turn("done")
      ])
      const session = yield* Session.make({ ...base, callbackTimeout: "1 second", canUseTool: () => Effect.never })
      const messages = yield* collect(session.turn("write"))
      assert.strictEqual(resultOf(messages).result, "done")
      const [denied] = toolResults(messages)
      assert.isTrue(denied.isError)
      assert.include(denied.text, "canUseTool did not answer within 1000 ms")
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "late.txt")))
    }))

  it.effect("SessionStart and SessionEnd hooks are registered, never called", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("hi")])
      const calls: Array<string> = []
      const record = (event: string) => [{ hooks: [() => Effect.sync(() => (calls.push(event), Hooks.proceed))] }]
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Session.make({
          ...base,
          hooks: { SessionStart: record("SessionStart"), SessionEnd: record("SessionEnd"), Stop: record("Stop") }
        })
        yield* collect(session.turn("hello"))
        yield* session.close
      }))
      // When this fails, the CLI calls them: update the README's "Sessions in detail".
      assert.deepStrictEqual(calls, ["Stop"])
    }))

  it.effect("a PreToolUse hook blocks a Bash command", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Bash", { command: "touch hooked.txt" })),
        Script.turn("done")
      ])
      const seen: Array<unknown> = []
      const writes: Array<unknown> = []
      const session = yield* Session.make({
        ...base,
        allowedTools: ["Bash"],
        hooks: {
          PreToolUse: [
            { matcher: "Write", hooks: [(input) => Effect.sync(() => (writes.push(input), Hooks.proceed))] },
            {
              matcher: "Bash",
              hooks: [(input) => Effect.sync(() => (seen.push(input.tool_input), Hooks.block("no shell today")))]
            }
          ]
        }
      })
      const messages = yield* collect(session.turn("run it"))
      assert.deepStrictEqual(seen, [{ command: "touch hooked.txt" }])
      assert.deepStrictEqual(writes, [])
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "hooked.txt")))
      const results = toolResults(messages)
      assert.isTrue(results[0].isError)
      assert.include(results[0].text, "no shell today")
    }))

  it.effect("a PostToolUse hook sees the response and adds context", () =>
    Effect.gen(function*() {
      const { base, server, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Write", { file_path: "note.txt", content: "post-tool content" })),
        Script.turn("done")
      ])
      const seen: Array<Hooks.HookInput> = []
      const session = yield* Session.make({
        ...base,
        allowedTools: ["Write"],
        hooks: {
          PostToolUse: [{
            matcher: "Write",
            hooks: [(input) =>
              Effect.sync(() => (seen.push(input), Hooks.additionalContext("PostToolUse", "checked by the post hook")))]
          }]
        }
      })
      yield* collect(session.turn("write a note"))
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(seen[0].hook_event_name, "PostToolUse")
      assert.strictEqual(seen[0].tool_name, "Write")
      assert.include(JSON.stringify(seen[0].tool_response), "post-tool content")
      assert.isTrue(fs.existsSync(path.join(sandbox.cwd, "note.txt")))
      const turns = yield* turnBodies(server)
      assert.include(JSON.stringify(turns[1].messages), "checked by the post hook")
    }))

  it.effect("a UserPromptSubmit hook adds context to the prompt", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([Script.turn("pineapple it is")])
      const prompts: Array<unknown> = []
      const session = yield* Session.make({
        ...base,
        hooks: {
          UserPromptSubmit: [{
            hooks: [(input) =>
              Effect.sync(() => (
                prompts.push(input.prompt), Hooks.additionalContext("UserPromptSubmit", "The secret word is pineapple")
              ))]
          }]
        }
      })
      yield* collect(session.turn("What is the secret word?"))
      assert.deepStrictEqual(prompts, ["What is the secret word?"])
      const [turn] = yield* turnBodies(server)
      assert.include(JSON.stringify(turn.messages), "The secret word is pineapple")
    }))

  it.effect("a Stop hook that blocks makes the model go on with the reason", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([Script.turn("hello"), Script.turn("hello and goodbye")])
      const stops: Array<Hooks.HookInput> = []
      const session = yield* Session.make({
        ...base,
        hooks: {
          Stop: [{
            hooks: [(input) =>
              Effect.sync(() => {
                stops.push(input)
                return input.stop_hook_active === true ? Hooks.proceed : Hooks.block("Say goodbye too")
              })]
          }]
        }
      })
      const messages = yield* collect(session.turn("greet me"))
      assert.strictEqual(resultOf(messages).result, "hello and goodbye")
      assert.deepStrictEqual(stops.map((s) => [s.hook_event_name, s.stop_hook_active]), [["Stop", false], ["Stop", true]])
      const turns = yield* turnBodies(server)
      assert.strictEqual(turns.length, 2)
      assert.include(JSON.stringify(turns[1].messages), "Say goodbye too")
    }))

  it.effect("in-process MCP tools: result, bad input, handler failure", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([
        Script.turn(Script.toolUse("mcp__calc__add", { a: 20, b: 22 })),
        Script.turn(Script.toolUse("mcp__calc__add", { a: "twenty", b: 22 })),
        Script.turn(Script.toolUse("mcp__calc__divide", { a: 1, b: 0 })),
        Script.turn("done")
      ])
      const numbers = Schema.Struct({ a: Schema.Number, b: Schema.Number })
      const calc = McpServer.make("calc", [
        McpServer.tool("add", "Adds two numbers", numbers, ({ a, b }) => Effect.succeed(`sum=${a + b}`)),
        McpServer.tool(
          "divide",
          "Divides a by b",
          numbers,
          ({ a, b }) => b === 0 ? Effect.fail(new Error("division by zero")) : Effect.succeed(String(a / b))
        )
      ])
      const session = yield* Session.make({
        ...base,
        mcpServers: [calc],
        allowedTools: ["mcp__calc__add", "mcp__calc__divide"]
      })
      const messages = yield* collect(session.turn("calculate"))
      assert.strictEqual(resultOf(messages).result, "done")
      const results = toolResults(messages)
      assert.deepStrictEqual(results.map((r) => r.isError), [false, true, true])
      assert.include(results[0].text, "sum=42")
      assert.include(results[1].text, "Invalid input for add")
      assert.include(results[2].text, "divide failed: division by zero")
      // The model saw the tools offered and got their results back.
      const requests = ScriptedServer.turnRequests(yield* server.requests)
      assert.include(JSON.stringify(requests[0].body), "mcp__calc__divide")
      assert.include(JSON.stringify(requests[1].body), "sum=42")
    }))
})
