import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import type * as CliError from "../../src/ClaudeCliError.ts"
import * as Live from "../../src/layers/Live.ts"
import { CanUseToolRequest } from "../../src/schema/Control.ts"
import * as Dialogs from "../../src/session/Dialogs.ts"
import * as Hooks from "../../src/session/Hooks.ts"
import * as McpServer from "../../src/session/McpServer.ts"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Session from "../../src/session/Session.ts"
import type * as SessionError from "../../src/session/SessionError.ts"
import { collect, settle } from "./support/Collect.ts"
import * as FakeCli from "./support/FakeCli.ts"

class Policy extends Context.Service<Policy, { readonly allowed: string }>()("test/Policy") {}
class Audit extends Context.Service<Audit, { readonly log: Array<string> }>()("test/Audit") {}

// On the first prompt: asks permission for `ls` and `rm`, runs the first PreToolUse hook, calls calc's `add`,
// reading the session's answer to each; then ends the turn.
const asking = () => {
  const fake: FakeCli.Fake = FakeCli.make(FakeCli.serve({
    onUser: (_, io) =>
      Effect.gen(function*() {
        const requests = [
          ...["ls", "rm"].map((command) => ({ subtype: "can_use_tool", tool_name: "Bash", input: { command } })),
          {
            subtype: "hook_callback",
            callback_id: fake.received[0].request.hooks.PreToolUse[0].hookCallbackIds[0],
            input: { hook_event_name: "PreToolUse", tool_name: "Bash" }
          },
          {
            subtype: "mcp_message",
            server_name: "calc",
            message: { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2 } } }
          }
        ]
        for (const [i, request] of requests.entries()) yield* io.write({ type: "control_request", request_id: `r${i}`, request })
        for (const _ of requests) yield* io.read
        yield* FakeCli.writeAll(io, FakeCli.helloLines)
      })
  }))
  return fake
}

const numbers = Schema.Struct({ a: Schema.Number, b: Schema.Number })

describe("Session callbacks' services and deadline (fake CLI)", () => {
  it.effect("callbacks use the services of the context Session.make runs in", () => {
    const fake = asking()
    const log: Array<string> = []
    const make = Session.make({
      canUseTool: (_tool, input) =>
        Effect.map(
          Effect.service(Policy),
          (policy) => input.command === policy.allowed ? CanUseTool.allow() : CanUseTool.deny(`only ${policy.allowed}`)
        ),
      hooks: {
        PreToolUse: [{
          hooks: [(input) => Effect.map(Effect.service(Audit), (audit) => (audit.log.push(String(input.tool_name)), Hooks.proceed))]
        }]
      },
      mcpServers: [McpServer.make("calc", [
        McpServer.tool("add", "Adds", numbers, ({ a, b }) => Effect.map(Effect.service(Policy), (p) => `${p.allowed}:${a + b}`))
      ])]
    })
    // The requirement is inferred from the callbacks, each service once.
    const typed: Effect.Effect<
      Session.Session,
      CliError.ClaudeCliError | SessionError.SessionError,
      Scope.Scope | ChildProcessSpawner.ChildProcessSpawner | Policy | Audit
    > = make
    return Effect.gen(function*() {
      const session = yield* typed
      yield* collect(session.turn("hello"))
      const answers = ["r0", "r1", "r2", "r3"].map((id) => FakeCli.responseTo(fake, id)?.response)
      assert.strictEqual(answers[0].behavior, "allow")
      assert.deepStrictEqual([answers[1].behavior, answers[1].message], ["deny", "only ls"])
      assert.deepStrictEqual(answers[2], {})
      assert.deepStrictEqual(answers[3].mcp_response.result.content, [{ type: "text", text: "ls:3" }])
      assert.deepStrictEqual(log, ["Bash"])
    }).pipe(
      Effect.provideService(Policy, { allowed: "ls" }),
      Effect.provideService(Audit, { log }),
      Effect.provide(fake.layer)
    )
  })

  it.effect("callbacks on the Live layer get the caller's services", () => {
    const fake: FakeCli.Fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) =>
        Effect.gen(function*() {
          for (const [i, command] of ["ls", "rm"].entries()) {
            yield* io.write({
              type: "control_request",
              request_id: `r${i}`,
              request: { subtype: "can_use_tool", tool_name: "Bash", input: { command } }
            })
          }
          yield* io.read
          yield* io.read
          yield* FakeCli.writeAll(io, FakeCli.helloLines)
        })
    }))
    const started = ClaudeCli.session({
      canUseTool: (_tool, input) =>
        Effect.map(Effect.service(Policy), (policy) => input.command === policy.allowed ? CanUseTool.allow() : CanUseTool.deny("no"))
    })
    const typed: Effect.Effect<
      Session.Session,
      CliError.ClaudeCliError | SessionError.SessionError,
      ClaudeCli.ClaudeCli | Scope.Scope | Policy
    > = started
    return Effect.gen(function*() {
      const session = yield* typed
      yield* collect(session.turn("hello"))
      const answers = ["r0", "r1"].map((id) => FakeCli.responseTo(fake, id)?.response)
      assert.deepStrictEqual(answers.map((a) => a.behavior), ["deny", "allow"])
    }).pipe(
      Effect.provideService(Policy, { allowed: "rm" }),
      Effect.provide(Live.layerWith().pipe(Layer.provide(fake.layer)))
    )
  })

  it.effect("a callback past callbackTimeout is interrupted", () => {
    const fake = asking()
    const interrupted: Array<string> = []
    const stuck = <A>(name: string) => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => interrupted.push(name)))) as Effect.Effect<A>
    return Effect.gen(function*() {
      const session = yield* Session.make({
        callbackTimeout: "5 seconds",
        canUseTool: (_tool, input) => input.command === "ls" ? Effect.succeed(CanUseTool.allow()) : stuck("canUseTool"),
        hooks: { PreToolUse: [{ hooks: [() => stuck("hook")] }] },
        mcpServers: [McpServer.make("calc", [McpServer.tool("add", "Adds", numbers, () => stuck("add"))])]
      })
      const turn = yield* Effect.forkChild(collect(session.turn("hello")))
      yield* settle
      assert.isUndefined(FakeCli.responseTo(fake, "r1"))
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(turn)
      const [allowed, denied, hook, mcp] = ["r0", "r1", "r2", "r3"].map((id) => FakeCli.responseTo(fake, id))
      assert.strictEqual(allowed.response.behavior, "allow")
      assert.deepStrictEqual(denied.response.behavior, "deny")
      assert.strictEqual(
        denied.response.message,
        "Permission callback failed: canUseTool did not answer within 5000 ms (callbackTimeout)"
      )
      assert.deepStrictEqual(hook, {
        subtype: "error",
        request_id: "r2",
        error: "the PreToolUse hook did not answer within 5000 ms (callbackTimeout)"
      })
      assert.strictEqual(mcp.error, "the MCP server \"calc\" did not answer within 5000 ms (callbackTimeout)")
      assert.deepStrictEqual(interrupted.sort(), ["add", "canUseTool", "hook"])
    }).pipe(Effect.provide(fake.layer))
  })
})

// A callback that ends by its own interruption, in the two ways issue 24 met: `Effect.interrupt`, and joining a
// fiber that was interrupted.
const interrupting = <A>(how: "interrupt" | "join"): Effect.Effect<A> =>
  how === "interrupt"
    ? Effect.interrupt
    : Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Effect.never)
      yield* Fiber.interrupt(fiber)
      return yield* Fiber.join(fiber)
    })

describe("Session callbacks that interrupt themselves (fake CLI)", () => {
  it.effect("CanUseTool.decide makes a deny of it", () =>
    Effect.gen(function*() {
      const request = new CanUseToolRequest({ subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" } })
      for (const how of ["interrupt", "join"] as const) {
        const answer = yield* CanUseTool.decide(() => interrupting(how), request)
        assert.deepStrictEqual([answer.behavior, answer.message], [
          "deny",
          "Permission callback failed: the callback was interrupted before it answered"
        ], how)
      }
    }))

  it.effect("every kind of request is answered", () => {
    const requests = [
      { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" } },
      { subtype: "can_use_tool", tool_name: "AskUserQuestion", input: { questions: [{ question: "Color?", options: [] }] } },
      { subtype: "hook_callback", callback_id: "", input: { hook_event_name: "PreToolUse", tool_name: "Bash" } },
      {
        subtype: "mcp_message",
        server_name: "calc",
        message: { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2 } } }
      },
      { subtype: "elicitation", mcp_server_name: "auth", message: "Your name?" },
      { subtype: "request_user_dialog", dialog_kind: "k", payload: {} }
    ]
    const fake: FakeCli.Fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) =>
        Effect.gen(function*() {
          const hookId = fake.received[0].request.hooks.PreToolUse[0].hookCallbackIds[0]
          for (const [i, request] of requests.entries()) {
            yield* io.write({
              type: "control_request",
              request_id: `r${i}`,
              request: request.subtype === "hook_callback" ? { ...request, callback_id: hookId } : request
            })
          }
          // The turn ends only once every request is answered.
          for (const _ of requests) yield* io.read
          yield* FakeCli.writeAll(io, FakeCli.helloLines)
        })
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({
        canUseTool: () => interrupting("interrupt"),
        onAskUserQuestion: () => interrupting("join"),
        hooks: { PreToolUse: [{ hooks: [() => interrupting("join")] }] },
        mcpServers: [McpServer.make("calc", [McpServer.tool("add", "Adds", numbers, () => interrupting("interrupt"))])],
        onElicitation: () => interrupting("interrupt"),
        supportedDialogKinds: ["k"],
        onUserDialog: () => interrupting("join")
      })
      const errors = yield* Effect.forkChild(Stream.runCollect(Stream.take(session.errors, 2)))
      yield* collect(session.turn("hello"))
      const [bash, ask, hook, mcp, elicitation, dialog] = requests.map((_, i) => FakeCli.responseTo(fake, `r${i}`))
      assert.deepStrictEqual([bash.response.behavior, bash.response.message], [
        "deny",
        "Permission callback failed: canUseTool was interrupted before it answered"
      ])
      assert.strictEqual(ask.response.behavior, "deny")
      assert.include(ask.response.message, "interrupted")
      assert.deepStrictEqual([hook.subtype, hook.error], ["error", "the PreToolUse hook was interrupted before it answered"])
      assert.deepStrictEqual(mcp.response.mcp_response.result, {
        content: [{ type: "text", text: "add was interrupted before it answered" }],
        isError: true
      })
      assert.deepStrictEqual(elicitation.response, { action: "decline" })
      assert.deepStrictEqual(dialog.response, Dialogs.cancelled)
      const reported = yield* Fiber.join(errors)
      assert.deepStrictEqual(reported.map((e) => e.message).sort(), [
        "canUseTool failed and the CLI was answered with an error: canUseTool was interrupted before it answered",
        "the PreToolUse hook failed and the CLI was answered with an error: the PreToolUse hook was interrupted before it answered"
      ])
    }).pipe(Effect.provide(fake.layer))
  })
})
