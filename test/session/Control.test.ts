import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as Hooks from "../../src/session/Hooks.ts"
import * as McpServer from "../../src/session/McpServer.ts"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as Session from "../../src/session/Session.ts"
import * as SessionError from "../../src/session/SessionError.ts"
import { collect, settle } from "./support/Collect.ts"
import * as FakeCli from "./support/FakeCli.ts"

const { requestsOf, responseTo } = FakeCli

describe("Session control (fake CLI)", () => {
  it.effect("initialize runs first; user frames carry the session id", () => {
    const fake = FakeCli.make(FakeCli.serve({ onUser: (_, io) => FakeCli.writeAll(io, FakeCli.helloLines) }))
    return Effect.gen(function*() {
      const session = yield* Session.make()
      assert.deepStrictEqual(session.rawInitialization, { commands: [], models: [] })
      // Typed, with the lists a CLI leaves out as empty lists.
      assert.deepStrictEqual(session.initialization, { commands: [], models: [], agents: [], available_output_styles: [] })
      assert.strictEqual(session.pid, FakeCli.pid)
      yield* collect(session.turn("one"))
      yield* collect(session.turn("two"))
      const id = yield* session.sessionId
      assert.strictEqual(id, "a4c79bab-3a68-425c-988e-0aa6b9151a63")
      assert.strictEqual(fake.received[0].request.subtype, "initialize")
      const users = fake.received.filter((f) => f.type === "user")
      assert.deepStrictEqual(users.map((u) => [u.message.content, u.session_id]), [["one", ""], ["two", id]])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("an initialize answer that does not fit fails with InvalidResponse", () => {
    const fake = FakeCli.make(FakeCli.serve({ initialize: { commands: "none", models: [] } }))
    return Effect.gen(function*() {
      const error = yield* Effect.flip(Session.make())
      assert.instanceOf(error, SessionError.SessionError)
      const reason = (error as SessionError.SessionError).reason
      assert.instanceOf(reason, SessionError.InvalidResponse)
      assert.strictEqual((reason as SessionError.InvalidResponse).subtype, "initialize")
      assert.include(error.message, "commands")
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("hooks for every event are registered and called back by id", () => {
    const events: ReadonlyArray<Hooks.HookEvent> = [
      "PreToolUse",
      "PostToolUse",
      "UserPromptSubmit",
      "Stop",
      "SubagentStop",
      "PreCompact",
      "Notification",
      "SessionStart",
      "SessionEnd"
    ]
    const calls: Array<string> = []
    const hooks = Object.fromEntries(events.map((event) => [event, [{
      ...(event.endsWith("ToolUse") ? { matcher: "Bash|Write" } : {}),
      timeout: 30,
      hooks: [(input: Hooks.HookInput, toolUseId: string | undefined) =>
        Effect.sync(() => {
          calls.push(`${event}:${input.hook_event_name}:${toolUseId}`)
          return Hooks.additionalContext("SessionStart", `from ${event}`)
        })]
    }]]))
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) =>
        Effect.gen(function*() {
          const registered = fake.received[0].request.hooks
          for (const event of ["PreCompact", "SessionStart"]) {
            yield* io.write({
              type: "control_request",
              request_id: event,
              request: {
                subtype: "hook_callback",
                callback_id: registered[event][0].hookCallbackIds[0],
                input: { hook_event_name: event },
                tool_use_id: `tu_${event}`
              }
            })
            yield* io.read
          }
          yield* FakeCli.writeAll(io, FakeCli.helloLines)
        })
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ hooks, mcpServers: [McpServer.make("calc", [])] })
      yield* collect(session.turn("hello"))
      const initialize = fake.received[0].request
      assert.deepStrictEqual(Object.keys(initialize.hooks).sort(), [...events].sort())
      assert.deepStrictEqual(initialize.hooks.PreToolUse, [{ matcher: "Bash|Write", hookCallbackIds: ["hook_0"], timeout: 30 }])
      assert.deepStrictEqual(initialize.sdkMcpServers, ["calc"])
      const ids = events.map((event) => initialize.hooks[event][0].hookCallbackIds[0])
      assert.strictEqual(new Set(ids).size, events.length)
      assert.deepStrictEqual(calls, ["PreCompact:PreCompact:tu_PreCompact", "SessionStart:SessionStart:tu_SessionStart"])
      assert.deepStrictEqual(responseTo(fake, "SessionStart")?.response, {
        hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "from SessionStart" }
      })
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("turns from several fibers run one at a time", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (frame, io) => FakeCli.writeAll(io, FakeCli.helloAnswering(`echo: ${frame.message.content}`))
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make()
      const prompts = ["a", "b", "c", "d"]
      const results = yield* Effect.forEach(
        prompts,
        (prompt) => Effect.map(collect(session.turn(prompt)), (messages) => messages.map((m) => m._tag === "ResultSuccess" ? m.result : m._tag)),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(results, prompts.map((p) => ["SystemInit", "AssistantMessage", `echo: ${p}`]))
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("a turn read only in part leaves nothing behind for the next turn", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (frame, io) => FakeCli.writeAll(io, FakeCli.helloAnswering(`echo: ${frame.message.content}`))
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make()
      const first = yield* collect(session.turn("one").pipe(Stream.take(1)))
      assert.deepStrictEqual(first.map((m) => m._tag), ["SystemInit"])
      const second = yield* collect(session.turn("two"))
      assert.deepStrictEqual(second.map((m) => m._tag === "ResultSuccess" ? m.result : m._tag), [
        "SystemInit",
        "AssistantMessage",
        "echo: two"
      ])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("unknown and unreadable requests get an error", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) =>
        Effect.gen(function*() {
          yield* io.write({ type: "control_request", request_id: "unknown", request: { subtype: "mystery" } })
          // A can_use_tool without its tool: not a request this side can read.
          yield* io.write({ type: "control_request", request_id: "broken", request: { subtype: "can_use_tool" } })
          // Hooks and MCP servers that were never registered.
          yield* io.write({
            type: "control_request",
            request_id: "hook",
            request: { subtype: "hook_callback", callback_id: "hook_9", input: {} }
          })
          yield* io.write({
            type: "control_request",
            request_id: "mcp",
            request: { subtype: "mcp_message", server_name: "nope", message: { jsonrpc: "2.0", id: 1, method: "tools/list" } }
          })
          for (let i = 0; i < 4; i++) yield* io.read
          yield* FakeCli.writeAll(io, FakeCli.helloLines)
        })
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ mcpServers: [McpServer.make("calc", [])] })
      yield* collect(session.turn("hello"))
      const errors = ["unknown", "broken", "hook", "mcp"].map((id) => responseTo(fake, id))
      assert.deepStrictEqual(errors.map((r) => r?.subtype), ["error", "error", "error", "error"])
      assert.strictEqual(errors[0].error, "Unsupported control request subtype: mystery")
      assert.include(errors[1].error, "invalid control request")
      assert.strictEqual(errors[2].error, "unknown hook callback id hook_9")
      assert.strictEqual(errors[3].error, "unknown MCP server nope")
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("control_cancel_request stops the permission callback", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const fake = FakeCli.make(FakeCli.serve({
        onUser: (_, io) =>
          Effect.gen(function*() {
            yield* io.write({
              type: "control_request",
              request_id: "perm",
              request: { subtype: "can_use_tool", tool_name: "Bash", input: { command: "ls" } }
            })
            yield* Deferred.await(started)
            yield* io.write({ type: "control_cancel_request", request_id: "perm" })
            yield* Deferred.await(interrupted)
            yield* FakeCli.writeAll(io, FakeCli.helloLines)
          })
      }))
      yield* Effect.gen(function*() {
        const session = yield* Session.make({
          canUseTool: () =>
            Deferred.succeed(started, undefined).pipe(
              Effect.andThen(Effect.never),
              Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
            )
        })
        yield* collect(session.turn("hello"))
        assert.isUndefined(responseTo(fake, "perm"))
      }).pipe(Effect.scoped, Effect.provide(fake.layer))
    }))

  it.effect("canUseTool's answer carries the tool use id", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onUser: (_, io) =>
        Effect.gen(function*() {
          for (const [id, command] of [["ok", "ls"], ["boom", "rm -rf /"]]) {
            yield* io.write({
              type: "control_request",
              request_id: id,
              request: { subtype: "can_use_tool", tool_name: "Bash", input: { command }, tool_use_id: `tu_${id}` }
            })
            yield* io.read
          }
          yield* FakeCli.writeAll(io, FakeCli.helloLines)
        })
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make({
        canUseTool: (_tool, input) =>
          input.command === "ls"
            ? Effect.succeed(CanUseTool.allow({ updatedPermissions: [{ type: "setMode", mode: "acceptEdits" }] }))
            : Effect.die(new Error("refusing to think about it"))
      })
      yield* collect(session.turn("hello"))
      assert.deepStrictEqual(responseTo(fake, "ok")?.response, {
        behavior: "allow",
        updatedInput: { command: "ls" },
        updatedPermissions: [{ type: "setMode", mode: "acceptEdits" }],
        toolUseID: "tu_ok"
      })
      assert.deepStrictEqual(responseTo(fake, "boom")?.response, {
        behavior: "deny",
        message: "Permission callback failed: refusing to think about it",
        toolUseID: "tu_boom"
      })
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("an unanswered control request fails with ControlTimeout", () => {
    const fake = FakeCli.make(FakeCli.serve({ onRequest: () => Effect.void }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ controlTimeout: "2 seconds" })
      const fiber = yield* Effect.forkChild(Effect.flip(session.setModel("opus")))
      yield* settle
      yield* TestClock.adjust("3 seconds")
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error.reason, SessionError.ControlTimeout)
      assert.strictEqual(error.reason.subtype, "set_model")
      yield* settle
      const [request] = requestsOf(fake, "set_model")
      assert.strictEqual(request.request.model, "opus")
      assert.isTrue(fake.received.some((f) => f.type === "control_cancel_request" && f.request_id === request.request_id))
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("an error answer from the CLI is a typed ControlRequestFailed", () => {
    const fake = FakeCli.make(FakeCli.serve({
      onRequest: (frame, io) => io.write(FakeCli.failure(frame, "mode not available"))
    }))
    return Effect.gen(function*() {
      const session = yield* Session.make()
      const error = yield* Effect.flip(session.setPermissionMode("plan"))
      assert.instanceOf(error.reason, SessionError.ControlRequestFailed)
      assert.strictEqual(error.reason.error, "mode not available")
      assert.strictEqual(requestsOf(fake, "set_permission_mode")[0].request.mode, "plan")
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("an interrupt acknowledged but never settled ends by force", () => {
    // Starts the turn, acknowledges the interrupt, and never writes the turn's result.
    const fake = FakeCli.make(FakeCli.serve({ onUser: (_, io) => FakeCli.writeAll(io, FakeCli.helloLines.slice(0, 2)) }))
    return Effect.gen(function*() {
      const session = yield* Session.make({ interruptTimeout: "5 seconds" })
      const turn = yield* Effect.forkChild(Effect.flip(collect(session.turn("hello"))))
      yield* settle
      const interrupt = yield* Effect.forkChild(Effect.flip(session.interrupt))
      yield* settle
      yield* TestClock.adjust("5 seconds")
      const error = yield* Fiber.join(interrupt)
      assert.instanceOf(error.reason, SessionError.InterruptTimeout)
      assert.strictEqual(error.reason.timeoutMillis, 5000)
      const turnError = yield* Fiber.join(turn)
      assert.instanceOf(turnError, SessionError.SessionError)
      assert.instanceOf((turnError as SessionError.SessionError).reason, SessionError.InterruptTimeout)
      assert.deepStrictEqual(fake.signals, ["SIGTERM"])
      assert.isTrue(fake.exited())
      assert.strictEqual(requestsOf(fake, "interrupt").length, 1)
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("an unanswered interrupt with SIGTERM ignored ends in SIGKILL", () => {
    const fake = FakeCli.make(
      FakeCli.serve({
        onUser: (_, io) => FakeCli.writeAll(io, FakeCli.helloLines.slice(0, 2)),
        onRequest: () => Effect.void
      }),
      { ignoreSigterm: true }
    )
    return Effect.gen(function*() {
      const session = yield* Session.make({ interruptTimeout: "5 seconds", killGracePeriod: "2 seconds" })
      const turn = yield* Effect.forkChild(Effect.flip(collect(session.turn("hello"))))
      yield* settle
      const interrupt = yield* Effect.forkChild(Effect.flip(session.interrupt))
      yield* settle
      yield* TestClock.adjust("5 seconds")
      yield* settle
      assert.deepStrictEqual(fake.signals, ["SIGTERM"])
      assert.isFalse(fake.exited())
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(interrupt)
      assert.instanceOf(error.reason, SessionError.InterruptTimeout)
      assert.instanceOf(((yield* Fiber.join(turn)) as SessionError.SessionError).reason, SessionError.InterruptTimeout)
      assert.deepStrictEqual(fake.signals, ["SIGTERM", "SIGKILL"])
      // The withdrawn interrupt request was cancelled on the wire.
      const [request] = requestsOf(fake, "interrupt")
      assert.isTrue(fake.received.some((f) => f.type === "control_cancel_request" && f.request_id === request.request_id))
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("close ends stdin and waits for the CLI to exit on its own", () => {
    const fake = FakeCli.make(FakeCli.serve({}))
    return Effect.gen(function*() {
      const session = yield* Session.make()
      yield* session.close
      assert.isTrue(fake.exited())
      assert.deepStrictEqual(fake.signals, [])
      assert.deepStrictEqual(yield* collect(session.messages), [])
    }).pipe(Effect.provide(fake.layer))
  })

  it.effect("close terminates a CLI that does not exit within the grace period", () => {
    let stdinEnded = false
    // Sees stdin end, and keeps running.
    const watched = FakeCli.make((io) =>
      FakeCli.serve({ onStdinEnd: "hang" })({
        ...io,
        read: io.read.pipe(Effect.tapError(() => Effect.sync(() => (stdinEnded = true))))
      })
    )
    return Effect.gen(function*() {
      const session = yield* Session.make({ killGracePeriod: "3 seconds" })
      const close = yield* Effect.forkChild(session.close)
      yield* settle
      assert.isTrue(stdinEnded)
      assert.deepStrictEqual(watched.signals, [])
      yield* TestClock.adjust("3 seconds")
      yield* Fiber.join(close)
      assert.deepStrictEqual(watched.signals, ["SIGTERM"])
      assert.isTrue(watched.exited())
    }).pipe(Effect.provide(watched.layer))
  })

  it.effect("closing the scope ends the CLI", () => {
    const fake = FakeCli.make(FakeCli.serve({ onStdinEnd: "hang" }))
    return Effect.gen(function*() {
      yield* Effect.scoped(Session.make())
      assert.isTrue(fake.exited())
      assert.deepStrictEqual(fake.signals, ["SIGTERM"])
    }).pipe(Effect.provide(fake.layer))
  })

  describe("incompatible options fail before the CLI starts", () => {
    const cases: ReadonlyArray<[string, Session.Options, string]> = [
      ["canUseTool with bypassPermissions", {
        canUseTool: () => Effect.succeed(CanUseTool.allow()),
        permissionMode: "bypassPermissions"
      }, "bypassPermissions"],
      ["canUseTool with --dangerously-skip-permissions in extraArgs", {
        canUseTool: () => Effect.succeed(CanUseTool.allow()),
        extraArgs: ["--dangerously-skip-permissions"]
      }, "--dangerously-skip-permissions"],
      ["canUseTool with --permission-mode bypassPermissions in extraArgs", {
        canUseTool: () => Effect.succeed(CanUseTool.allow()),
        extraArgs: ["--verbose", "--permission-mode", "bypassPermissions"]
      }, "--permission-mode bypassPermissions"],
      ["canUseTool with --permission-mode=dontAsk in extraArgs", {
        canUseTool: () => Effect.succeed(CanUseTool.allow()),
        extraArgs: ["--permission-mode=dontAsk"]
      }, "--permission-mode=dontAsk"],
      ["canUseTool with permissionMode dontAsk", {
        canUseTool: () => Effect.succeed(CanUseTool.allow()),
        permissionMode: "dontAsk"
      }, "dontAsk"],
      ["canUseTool with a permission prompt tool", {
        canUseTool: () => Effect.succeed(CanUseTool.allow()),
        extraArgs: ["--permission-prompt-tool", "mcp__x__y"]
      }, "--permission-prompt-tool"],
      ["an input format in extraArgs", { extraArgs: ["--input-format=text"] }, "--input-format"],
      ["forkSession without resume", { forkSession: true }, "forkSession needs resume"],
      ["resume with continue", { resume: "abc", continue: true }, "resume and continue"],
      ["two MCP servers with one name", { mcpServers: [McpServer.make("a", []), McpServer.make("a", [])] }, "\"a\""]
    ]
    for (const [name, options, text] of cases) {
      it.effect(name, () => {
        const fake = FakeCli.make(FakeCli.serve({}))
        return Effect.gen(function*() {
          const error = yield* Effect.flip(Session.make(options))
          assert.instanceOf(error, SessionError.SessionError)
          assert.instanceOf((error as SessionError.SessionError).reason, SessionError.InvalidOptions)
          assert.include(error.message, text)
          assert.strictEqual(fake.spawned(), 0)
        }).pipe(Effect.provide(fake.layer))
      })
    }
  })
})
