/**
 * Options the SDK names, against the real CLI on the scripted model: CLI 2.1.330 accepts the flags they
 * become, and the model's requests show their effect.
 */
import { assert, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as fs from "node:fs"
import * as path from "node:path"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Session from "../../src/session/Session.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { collect, resultOf, setup } from "./support/Real.ts"

const turnRequests = (server: ScriptedServer.Shape) => Effect.map(server.requests, ScriptedServer.turnRequests)

layer(NodeServices.layer, { excludeTestServices: true })("options (real CLI)", (it) => {
  // The warnings a session logs as it starts, with their `code` annotation.
  const warningsOf = (options: Partial<Session.Options>) =>
    Effect.gen(function*() {
      const warnings: Array<{ readonly message: unknown; readonly code: unknown }> = []
      const logger = Logger.make((o) => {
        if (o.logLevel !== "Warn") return
        const message = Array.isArray(o.message) ? o.message[0] : o.message
        warnings.push({ message, code: o.fiber.getRef(References.CurrentLogAnnotations).code })
      })
      const { base } = yield* setup([Script.turn("one")])
      const session = yield* Session.make({ ...base, canUseTool: () => Effect.succeed(CanUseTool.allow()), ...options }).pipe(
        Effect.provide(Logger.layer([logger]))
      )
      assert.strictEqual(resultOf(yield* collect(session.turn("hi"))).result, "one")
      return warnings
    })

  it.effect("canUseTool shadowed by bare allowedTools: the SDK's warning is logged at start", () =>
    Effect.gen(function*() {
      const warnings = yield* warningsOf({ allowedTools: ["Bash", "Read(./src/**)", "Edit"] })
      assert.deepStrictEqual(warnings.map((w) => w.code), ["CLAUDE_SDK_CAN_USE_TOOL_SHADOWED"])
      assert.include(String(warnings[0].message), "canUseTool will not be invoked for: Bash, Edit.")
    }), 60_000)

  it.effect("canUseTool shadowed by bypassPermissions is warned of; rules alone are not", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* warningsOf({ allowedTools: ["Bash(ls:*)"] }), [])
      assert.deepStrictEqual(yield* warningsOf({ canUseTool: undefined, allowedTools: ["Bash"] }), [])
      const shadowed = CanUseTool.shadowed({ canUseTool: () => {}, permissionMode: "bypassPermissions" })
      assert.include(shadowed?.message, "permissionMode 'bypassPermissions' auto-approves every tool call")
    }), 60_000)

  it.effect("preset system prompt, effort, betas and thinking reach the request", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([Script.turn("one")])
      const session = yield* Session.make({
        ...base,
        model: "claude-sonnet-4-20250514",
        systemPrompt: { type: "preset", preset: "claude_code", append: "APPENDED-MARK-7", snapshot: false },
        effort: "low",
        betas: ["context-1m-2025-08-07"],
        thinking: { type: "enabled", budgetTokens: 2048 },
        stderr: () => {}
      })
      assert.strictEqual(resultOf(yield* collect(session.turn("hi"))).result, "one")
      const [request] = yield* turnRequests(server)
      const body = request.body as Record<string, any>
      assert.include(JSON.stringify(body.system), "APPENDED-MARK-7")
      assert.include(JSON.stringify(body.system), "You are an agent working with the user")
      assert.deepStrictEqual([body.thinking.type, body.thinking.budget_tokens], ["enabled", 2048])
      assert.include(String(request.headers["anthropic-beta"]), "context-1m-2025-08-07")
    }), 60_000)

  it.effect("a custom system prompt replaces Claude Code's", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([Script.turn("one")])
      const session = yield* Session.make({
        ...base,
        systemPrompt: { type: "custom", prompt: ["CUSTOM-A", "CUSTOM-B"] },
        effort: "low"
      })
      yield* collect(session.turn("hi"))
      const [request] = yield* turnRequests(server)
      const system = JSON.stringify((request.body as Record<string, unknown>).system)
      assert.include(system, "CUSTOM-A\\n\\nCUSTOM-B")
      assert.notInclude(system, "You are an agent working with the user")
      assert.deepStrictEqual((request.body as Record<string, unknown>).output_config, { effort: "low" })
    }), 60_000)

  it.effect("verbatimPrompts: a slash command is sent to the model as written", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([Script.turn("one"), Script.turn("two")])
      fs.mkdirSync(path.join(base.cwd!, ".claude", "commands"), { recursive: true })
      fs.writeFileSync(path.join(base.cwd!, ".claude", "commands", "greet.md"), "---\ndescription: Greets\n---\nEXPANDED-GREETING $ARGUMENTS\n")
      const expanded = yield* Session.make({ ...base, settingSources: ["project"] })
      yield* collect(expanded.turn("/greet bob"))
      const verbatim = yield* Session.make({ ...base, settingSources: ["project"], verbatimPrompts: true })
      yield* collect(verbatim.turn("/greet bob"))
      const [first, second] = (yield* turnRequests(server)).map((r) => JSON.stringify((r.body as any).messages))
      assert.include(first, "EXPANDED-GREETING bob")
      assert.notInclude(second, "EXPANDED-GREETING")
      assert.include(second, "/greet bob")
    }), 60_000)

  it.effect("stderr is passed to the callback as the CLI writes it", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("one")])
      const chunks: Array<string> = []
      const session = yield* Session.make({ ...base, extraArgs: ["--debug-to-stderr"], stderr: (text) => chunks.push(text) })
      yield* collect(session.turn("hi"))
      assert.isAbove(chunks.join("").length, 0)
    }), 60_000)
})
