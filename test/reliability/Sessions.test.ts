/**
 * The defined behaviour of a session when its own side goes wrong: closed under a turn, callbacks that answer
 * with what cannot be written or with the wrong kind of value, values that cannot be sent. Titles read
 * "<case>: <defined behaviour>"; a script turns them into the README's reliability table.
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Cluster from "../../src/cluster/Cluster.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as Hooks from "../../src/session/Hooks.ts"
import * as McpServer from "../../src/session/McpServer.ts"
import * as Permission from "../../src/session/Permission.ts"
import * as Session from "../../src/session/Session.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as SessionError from "../../src/session/SessionError.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { collect, reasonOf, settle } from "../session/support/Collect.ts"
import * as FakeCli from "../session/support/FakeCli.ts"
import { isAlive, resultOf, setup, toolResults, turnBodies, waitUntil } from "../session/support/Real.ts"
import * as Callbacks from "./support/callbacks.ts"

const real = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.scoped, Effect.provide(NodeServices.layer)) as Effect.Effect<A, E>

// A cyclic object: JSON.stringify refuses it.
const cyclic = () => {
  const value: Record<string, unknown> = { name: "loop" }
  value.self = value
  return value
}

// The first `count` errors the session reported (replayed to this reader if they came first).
const reported = (session: Session.Session, count: number) =>
  Effect.map(Stream.runCollect(Stream.take(session.errors, count)), (errors) =>
    errors.map((error) => {
      assert.instanceOf(error.reason, SessionError.CallbackFailed)
      return error.reason as SessionError.CallbackFailed
    }))

// Every entry the store holds of a session, its transcripts under it included.
const storedEntries = (store: SessionStore.Shape, sessionId: string) =>
  Effect.gen(function*() {
    const key = yield* SessionStore.locate(store, sessionId)
    const keys: Array<SessionStore.SessionKey> = [key, ...(yield* store.listSubkeys(key)).map((subpath) => ({ ...key, subpath }))]
    return yield* Effect.forEach(keys, (k) =>
      Effect.map(store.load(k), (entries) => ({ subpath: k.subpath, entries: Option.getOrElse(entries, () => []) })))
  })

describe("Sessions", () => {
  describe("close during a streaming turn", () => {
    // The CLI is terminated after the grace period; the reader sees SessionClosed, not ProcessExited 143.
    it.effect("the reader gets what was written, then SessionClosed", () => {
      // Starts the turn and never finishes it; reads on after stdin ends, so close has to terminate it.
      const fake = FakeCli.make(FakeCli.serve({
        onUser: (_, io) => FakeCli.writeAll(io, FakeCli.helloLines.slice(0, 2)),
        onStdinEnd: "hang"
      }))
      return Effect.gen(function*() {
        const session = yield* Session.make({ killGracePeriod: "2 seconds" })
        const turn = yield* Effect.forkChild(Effect.flip(collect(session.turn("hello"))))
        yield* settle
        const close = yield* Effect.forkChild(session.close)
        yield* settle
        yield* TestClock.adjust("2 seconds")
        yield* Fiber.join(close)
        assert.deepStrictEqual(fake.signals, ["SIGTERM"])
        const closed = reasonOf(yield* Fiber.join(turn), SessionError.SessionError, SessionError.SessionClosed)
        assert.strictEqual(closed.exitCode, 143)
      }).pipe(Effect.provide(fake.layer))
    })
  })

  describe("canUseTool answering what is not JSON or not an Effect (real CLI)", () => {
    // A BigInt, a cyclic object in updatedInput, a Promise, a plain value: each turn ends with the model seeing the deny.
    it.live("a deny naming why, CallbackFailed, next turn works", () =>
      real(Effect.gen(function*() {
        const cases = ["bigint", "cyclic", "promise", "plain"] as const
        const { base, sandbox, server } = yield* setup([
          ...cases.flatMap((name, i) => [Script.turn(Script.toolUse("Write", { file_path: `${name}.txt`, content: "x" })), Script.turn(`done ${i}`)]),
          Script.turn(Script.toolUse("Write", { file_path: "fine.txt", content: "x" })),
          Script.turn("fine")
        ])
        const session = yield* Session.make({
          ...base,
          canUseTool: (_tool, input): any => {
            const name = path.basename(String(input.file_path), ".txt")
            return name === "bigint"
              ? Effect.succeed(Permission.allow({ updatedInput: { ...input, size: 1n } }))
              : name === "cyclic"
              ? Effect.succeed(Permission.allow({ updatedInput: cyclic() }))
              : name === "promise"
              ? Promise.resolve(Permission.allow())
              : name === "plain"
              ? Permission.allow()
              : Effect.succeed(Permission.allow())
          }
        })
        const why = ["BigInt", "circular", "returned a Promise", "returned a plain object"]
        for (const [i, name] of cases.entries()) {
          const messages = yield* collect(session.turn(`write ${name}`))
          assert.strictEqual(resultOf(messages).result, `done ${i}`)
          const [denied] = toolResults(messages)
          assert.isTrue(denied.isError, name)
          assert.include(denied.text, why[i], name)
          assert.isFalse(fs.existsSync(path.join(sandbox.cwd, `${name}.txt`)), name)
        }
        // The model got each deny with its tool result.
        const bodies = yield* turnBodies(server)
        for (const [i] of cases.entries()) assert.include(JSON.stringify(bodies[2 * i + 1]!.messages), why[i])
        const errors = yield* reported(session, cases.length)
        assert.deepStrictEqual(errors.map((e) => e.callback), cases.map(() => "canUseTool"))
        for (const [i] of cases.entries()) assert.include(errors[i]!.detail, why[i])
        assert.strictEqual(resultOf(yield* collect(session.turn("write fine"))).result, "fine")
        assert.isTrue(fs.existsSync(path.join(sandbox.cwd, "fine.txt")))
      })), 120_000)
  })

  describe("send, turn or request with a value that is not JSON (real CLI)", () => {
    // A BigInt, a cyclic object: the error names what the call tried.
    it.live("Unserializable, nothing written, session goes on", () =>
      real(Effect.gen(function*() {
        const { base } = yield* setup([Script.turn("still here")])
        const session = yield* Session.make(base)
        const block = (extra: unknown) => [{ type: "text", text: "hi", extra }]
        const failures = [
          yield* Effect.flip(session.send(block(1n))),
          yield* Effect.flip(collect(session.turn(block(cyclic())))),
          yield* Effect.flip(session.request({ subtype: "set_model", model: 1n }))
        ]
        for (const failure of failures) {
          const reason = reasonOf(failure, SessionError.SessionError, SessionError.Unserializable)
          assert.match(reason.operation, /^write a (user|control_request) frame$/)
          assert.match(reason.detail, /BigInt|circular/)
        }
        assert.strictEqual(resultOf(yield* collect(session.turn("are you there?"))).result, "still here")
      })), 60_000)
  })

  describe("an MCP tool answering what is not JSON or not an Effect (real CLI)", () => {
    // A BigInt, a cyclic object, undefined, or undefined where an Effect is due: the turn ends.
    it.live("an error result naming why, CallbackFailed, next turn works", () =>
      real(Effect.gen(function*() {
        const cases = ["bigint", "cyclic", "nothing", "noEffect"] as const
        const { base, server } = yield* setup([
          ...cases.map((name) => Script.turn(Script.toolUse("mcp__odd__answer", { case: name }))),
          Script.turn("done"),
          Script.turn(Script.toolUse("mcp__odd__answer", { case: "fine" })),
          Script.turn("fine")
        ])
        const odd = McpServer.make("odd", [
          McpServer.tool("answer", "Answers oddly", Schema.Struct({ case: Schema.String }), (input): any =>
            input.case === "bigint"
              ? Effect.succeed({ content: [{ type: "text", text: "n", n: 1n }] })
              : input.case === "cyclic"
              ? Effect.succeed({ content: [cyclic()] })
              : input.case === "nothing"
              ? Effect.succeed(undefined)
              : input.case === "noEffect"
              ? undefined
              : Effect.succeed("fine result"))
        ])
        const session = yield* Session.make({ ...base, mcpServers: [odd], allowedTools: ["mcp__odd__answer"] })
        const messages = yield* collect(session.turn("call them"))
        assert.strictEqual(resultOf(messages).result, "done")
        const why = ["BigInt", "circular", "returned undefined where text or a ToolResult is due", "returned undefined where an Effect is due"]
        const results = toolResults(messages)
        assert.deepStrictEqual(results.map((r) => r.isError), cases.map(() => true))
        for (const [i] of cases.entries()) assert.include(results[i]!.text, why[i])
        const bodies = yield* turnBodies(server)
        for (const [i] of cases.entries()) assert.include(JSON.stringify(bodies[i + 1]!.messages), why[i])
        const errors = yield* reported(session, cases.length)
        assert.deepStrictEqual(errors.map((e) => e.callback), cases.map(() => `the MCP server "odd"`))
        for (const [i] of cases.entries()) assert.include(errors[i]!.detail, why[i])
        const fine = yield* collect(session.turn("call the fine one"))
        assert.strictEqual(resultOf(fine).result, "fine")
        assert.include(toolResults(fine)[0]!.text, "fine result")
      })), 120_000)
  })

  describe("a PreToolUse hook answering what is not JSON or not an Effect (real CLI)", () => {
    // The hook has onFailure block; a BigInt, a cyclic object, or a Promise: the model sees the hook error.
    it.live("the tool is blocked, CallbackFailed, next turn works", () =>
      real(Effect.gen(function*() {
        const cases = ["bigint", "cyclic", "promise"] as const
        const { base, server, sandbox } = yield* setup([
          ...cases.flatMap((name, i) => [Script.turn(Script.toolUse("Write", { file_path: `${name}.txt`, content: "x" })), Script.turn(`done ${i}`)]),
          Script.turn("fine")
        ])
        const session = yield* Session.make({
          ...base,
          allowedTools: ["Write"],
          hooks: {
            PreToolUse: [{
              matcher: "Write",
              onFailure: "block",
              hooks: [(input): any => {
                const name = path.basename(String((input.tool_input as { file_path: string }).file_path), ".txt")
                return name === "bigint"
                  ? Effect.succeed({ ...Hooks.proceed, systemMessage: 1n })
                  : name === "cyclic"
                  ? Effect.succeed({ hookSpecificOutput: cyclic() })
                  : Promise.resolve(Hooks.proceed)
              }]
            }]
          }
        })
        const why = ["BigInt", "circular", "returned a Promise"]
        for (const [i, name] of cases.entries()) {
          const messages = yield* collect(session.turn(`write ${name}`))
          assert.strictEqual(resultOf(messages).result, `done ${i}`)
          // The CLI reports the failed hook in the tool's result; with onFailure "block" the tool does not run.
          const [blocked] = toolResults(messages)
          assert.isTrue(blocked.isError, name)
          assert.include(blocked.text, "PreToolUse:Write hook error", name)
          assert.isFalse(fs.existsSync(path.join(sandbox.cwd, `${name}.txt`)), name)
        }
        const bodies = yield* turnBodies(server)
        for (const [i] of cases.entries()) assert.include(JSON.stringify(bodies[2 * i + 1]!.messages), "PreToolUse:Write hook error")
        const errors = yield* reported(session, cases.length)
        assert.deepStrictEqual(errors.map((e) => e.callback), cases.map(() => "the PreToolUse hook"))
        for (const [i] of cases.entries()) assert.include(errors[i]!.detail, why[i])
        assert.strictEqual(resultOf(yield* collect(session.turn("still there?"))).result, "fine")
      })), 120_000)
  })

  describe("an uninterruptible canUseTool past callbackTimeout (real CLI)", () => {
    // The callback is left to finish in the background.
    it.live("a deny on time, CallbackFailed, closing does not wait for it", () =>
      Effect.gen(function*() {
        let finished = false
        const turn = yield* real(Effect.gen(function*() {
          const { base } = yield* setup([Script.turn(Script.toolUse("Write", { file_path: "slow.txt", content: "x" })), Script.turn("done")])
          const session = yield* Session.make({
            ...base,
            callbackTimeout: "1 second",
            canUseTool: () =>
              Effect.uninterruptible(Effect.andThen(Effect.sleep("60 seconds"), Effect.sync(() => (finished = true)))).pipe(
                Effect.as(Permission.allow())
              )
          })
          const messages = yield* collect(session.turn("write slowly"))
          const errors = yield* reported(session, 1)
          return { messages, errors }
        })).pipe(Effect.timeoutOrElse({ duration: "30 seconds", orElse: () => Effect.die(new Error("the turn or the scope waited for the callback")) }))
        assert.strictEqual(resultOf(turn.messages).result, "done")
        assert.include(toolResults(turn.messages)[0]!.text, "canUseTool did not answer within 1000 ms")
        assert.include(turn.errors[0]!.detail, "did not answer within 1000 ms")
        assert.isFalse(finished, "the session ended before the callback did")
      }), 60_000)
  })

  describe("a callback that succeeds, fails, dies, interrupts itself or never ends (real CLI)", () => {
    // canUseTool, a PreToolUse hook, an MCP tool and AskUserQuestion under each outcome (see support/callbacks.ts):
    // one session per kind, one turn per outcome, each checked in the model's next request.
    it.live("session: every request answered, every turn ends", () =>
      Effect.gen(function*() {
        const server = yield* ScriptedServer.ScriptedServer
        const { cwd } = yield* Scripted.Sandbox
        yield* Effect.forEach(Callbacks.kinds, (kind) =>
          Effect.scoped(Effect.gen(function*() {
            const session = yield* ClaudeCli.session(Callbacks.options)
            for (const outcome of Callbacks.outcomes) {
              const messages = yield* collect(session.turn(Callbacks.prompt(kind, outcome)))
              Callbacks.check(kind, outcome, Callbacks.resultText(messages), yield* server.requests, cwd)
            }
          })), { concurrency: "unbounded" })
      }).pipe(Effect.provide(Scripted.layer(Callbacks.script))), 180_000)

    // The same, each kind an entity id of an AgentSession on the test runner.
    it.live("AgentSession entity: every request answered, every turn ends", () =>
      Effect.gen(function*() {
        const server = yield* ScriptedServer.ScriptedServer
        const { cwd } = yield* Scripted.Sandbox
        const client = yield* AgentSession.client
        yield* Effect.forEach(Callbacks.kinds, (kind) =>
          Effect.gen(function*() {
            for (const outcome of Callbacks.outcomes) {
              const events = yield* Stream.runCollect(
                client(kind).Turn({ turnId: `${kind}-${outcome}`, prompt: Callbacks.prompt(kind, outcome) })
              )
              const messages = events.flatMap((event) => event._tag === "TurnMessage" ? [event.message] : [])
              Callbacks.check(kind, outcome, Callbacks.resultText(messages), yield* server.requests, cwd)
            }
          }), { concurrency: "unbounded" })
      }).pipe(
        Effect.provide(AgentSession.layer(Callbacks.options).pipe(
          Layer.provideMerge(Cluster.layerTest),
          Layer.provideMerge(Scripted.layer(Callbacks.script))
        ))
      ), 180_000)
  })

  describe("an AgentSession's lease taken by another holder while its CLI runs a Bash tool (real CLI)", () => {
    // What a runner paused past its shards' expiry finds when it wakes: the conversation went on elsewhere.
    it.live("its appends refused (Fenced), nothing stored after; its CLI and tool end", () =>
      Effect.gen(function*() {
        const store = SessionStore.makeMemory()
        const script = Script.make([
          Script.turn([Script.text("Running it."), Script.toolUse("Bash", { command: "echo $$ > tool.pid; exec sleep 300" })]),
          Script.turn("Done.")
        ])
        const sandboxed = Layer.unwrap(Effect.map(Effect.service(Scripted.Sandbox), (sandbox) =>
          AgentSession.layer({
            cwd: sandbox.cwd,
            allowedTools: ["Bash"],
            sessionStore: { store, configDir: sandbox.env.CLAUDE_CONFIG_DIR as string }
          })))
        yield* Effect.gen(function*() {
          const { cwd } = yield* Scripted.Sandbox
          const client = yield* AgentSession.client
          const pidFile = path.join(cwd, "tool.pid")
          const turn = yield* Effect.forkChild(Effect.exit(Stream.runCollect(client("e").Turn({ turnId: "t1", prompt: "Run it" }))))
          yield* waitUntil(Effect.sync(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n")))
          const tool = Number(fs.readFileSync(pidFile, "utf8"))
          const info = yield* client("e").Info()
          const cli = info.pid!
          // Another holder takes the lease: from now on nothing of this CLI may land.
          yield* store.leases!.acquire(AgentSession.logKey("AgentSession", "e"))
          const stored = yield* storedEntries(store, info.sessionId!)
          assert.isAbove(stored[0]!.entries.length, 0)
          yield* waitUntil(Effect.sync(() => !isAlive(cli) && !isAlive(tool))).pipe(Effect.timeout("60 seconds"))
          const ended = yield* Fiber.join(turn)
          assert.isTrue(ended._tag === "Failure", "the turn cut off with its CLI fails")
          // A CLI that ends writes its last entries (the killed tool's result, its cost): all refused.
          assert.deepStrictEqual(yield* storedEntries(store, info.sessionId!), stored)
        }).pipe(Effect.provide(sandboxed.pipe(Layer.provideMerge(Cluster.layerTest), Layer.provideMerge(Scripted.layer(script)))))
      }), 120_000)
  })
})
