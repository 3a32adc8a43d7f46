/**
 * The agent session entity on a test runner, with the real CLI on the scripted model.
 */
import { assert, describe, it } from "@effect/vitest"
import * as MessageStorage from "effect/cluster/MessageStorage"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Cluster from "../../src/cluster/Cluster.ts"
import * as TurnLog from "../../src/cluster/TurnLog.ts"
import * as Telemetry from "../../src/Telemetry.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as PermissionModes from "../../src/internal/permissionMode.ts"
import type * as QueryOptions from "../../src/QueryOptions.ts"
import * as CanUseTool from "../../src/session/CanUseTool.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { recordingTracer } from "../layers/support.ts"
import { isAlive, waitUntil } from "../session/support/Real.ts"
import { cliPids } from "./support/cliPids.ts"
import * as ClaimWire from "./support/ClaimWire.ts"

const on = (fragment: string, turns: ReadonlyArray<Script.Turn>) =>
  Script.conversation(fragment, MessagesRequest.firstUserTextIncludes(fragment), turns)

const script = ({ cwd }: { readonly cwd: string }): Script.Script => ({
  conversations: [
    // Each attempt's shell command kills its CLI: a poison turn. First: its retries' note says "cut short".
    on("poison", Array.from({ length: 4 }, () => Script.turn(Script.toolUse("Bash", { command: "kill -9 $PPID" })))),
    on("alpha", [Script.turn("Alpha one.")]),
    on("beta", [Script.turn("Beta one.")]),
    on("gamma", [Script.turn("Noted: seven."), Script.turn("The number was seven.")]),
    // About a minute of events, unless interrupted.
    on("slow", [Script.turn("x".repeat(600), { eventDelay: "300 millis", chunkSize: 3 })]),
    // About 12 seconds of events: longer than the reaper's rounds of an idle entity (5 seconds).
    on("cut", [Script.turn("y".repeat(120), { eventDelay: "300 millis", chunkSize: 3 }), Script.turn("Cut two.")]),
    on("echo", [Script.turn("Echo one."), Script.turn("Echo two."), Script.turn("Echo four.")]),
    on("crash", [Script.turn("Crash one."), Script.turn("Crash two.")]),
    on("close", [Script.turn("Closing one."), Script.turn("Closing two.")]),
    on("tool", [Script.turn(Script.toolUse("Write", { file_path: `${cwd}/out.txt`, content: "x" })), Script.turn("Not written.")])
  ],
  sideReply: "Scripted session"
})

const env = (options: AgentSession.Options = {}) =>
  AgentSession.layer(options).pipe(
    Layer.provideMerge(Cluster.layerTest),
    Layer.provideMerge(Scripted.layer(script))
  )

const turn = (entityId: string, turnId: string, prompt: string) =>
  Effect.flatMap(AgentSession.client, (client) => Stream.runCollect(client(entityId).Turn({ turnId, prompt })))

const messagesOf = (events: ReadonlyArray<AgentSession.TurnEvent>) =>
  events.flatMap((event) => event._tag === "TurnMessage" ? [event.message] : [])

const resultText = (events: ReadonlyArray<AgentSession.TurnEvent>) => {
  const last = messagesOf(events).at(-1)
  return last?._tag === "ResultSuccess" ? last.result : `no success result: ${last?._tag}`
}

const requestsOf = (server: ScriptedServer.Shape, conversation: string) =>
  Effect.map(server.requests, (requests) =>
    ScriptedServer.turnRequests(requests).filter((r) => r.conversation === conversation))

const modelRequests = (conversation: string) =>
  Effect.flatMap(Effect.service(ScriptedServer.ScriptedServer), (server) => requestsOf(server, conversation))

// Waits until a CLI starts that was not running before.
const newCli = (before: ReadonlyArray<number>) =>
  waitUntil(Effect.sync(() => cliPids().some((pid) => !before.includes(pid)))).pipe(Effect.timeout("20 seconds"))

const info = (entityId: string) => Effect.flatMap(AgentSession.client, (client) => client(entityId).Info())

describe("AgentSession entity (test runner, real CLI)", () => {
  it.live("two entity ids in parallel each get their turn's typed messages, from their own CLI", () =>
    Effect.gen(function*() {
      const [a, b] = yield* Effect.all([turn("a", "a-1", "alpha: hello"), turn("b", "b-1", "beta: hello")], {
        concurrency: 2
      })
      assert.deepStrictEqual(a[0], new AgentSession.TurnStarted({ turnId: "a-1", attempt: 1 }))
      assert.deepStrictEqual(b[0], new AgentSession.TurnStarted({ turnId: "b-1", attempt: 1 }))
      assert.strictEqual(resultText(a), "Alpha one.")
      assert.strictEqual(resultText(b), "Beta one.")
      const texts = messagesOf(a).flatMap((m) => m._tag === "AssistantMessage" ? [m.text] : [])
      assert.deepStrictEqual(texts, ["Alpha one."])
      const [infoA, infoB] = yield* Effect.all([info("a"), info("b")])
      assert.isNotNull(infoA.pid)
      assert.isNotNull(infoB.pid)
      assert.notStrictEqual(infoA.pid, infoB.pid)
      assert.isNotNull(infoA.sessionId)
      assert.notStrictEqual(infoA.sessionId, infoB.sessionId)
    }).pipe(Effect.provide(env())))

  it.live("a turn's steps are spans in the cluster's span of its request, naming the turn and its attempt", () => {
    const { spans, tracer } = recordingTracer()
    return Effect.gen(function*() {
      assert.strictEqual(resultText(yield* turn("spans", "s-1", "alpha: spans")), "Alpha one.")
      const step = (name: string) => {
        const found = spans.filter((span) => span.name === name && span.attributes.get(Telemetry.attributes.turnId) === "s-1")
        assert.strictEqual(found.length, 1, name)
        const [span] = found
        assert.strictEqual(span.status._tag, "Ended", name)
        assert.strictEqual(span.attributes.get("entity.id"), "spans", name)
        assert.strictEqual(span.attributes.get("entity.type"), "AgentSession", name)
        return span
      }
      const [begin, open, stored, finish] = [
        step(AgentSession.spanNames.begin),
        step(AgentSession.spanNames.open),
        step(AgentSession.spanNames.stored),
        step(AgentSession.spanNames.finish)
      ]
      for (const span of [open, stored, finish]) assert.strictEqual(span.attributes.get(Telemetry.attributes.attempt), 1)
      // In the order they happen, one after the other.
      const ended = (span: Tracer.NativeSpan) => span.status._tag === "Ended" ? span.status.endTime : -1n
      assert.isTrue(ended(begin) <= open.startTime && ended(open) <= stored.startTime && ended(stored) <= finish.startTime)
      // Inside the cluster's span of the Turn request on the runner.
      const parent = Option.getOrUndefined(begin.parent)
      assert.strictEqual(parent?._tag === "Span" ? parent.name : undefined, "AgentSession.Turn")
    }).pipe(Effect.provide(env()), Effect.provideService(Tracer.Tracer, tracer))
  })

  it.live("a turn's start goes out in one reply chunk with the CLI's first message", () =>
    Effect.gen(function*() {
      const events = yield* turn("c", "c-1", "alpha: hello")
      // The replies the cluster stored for the request: each chunk is a round of writes and an acknowledgement.
      const driver = yield* MessageStorage.MemoryDriver
      const request = [...driver.requests.values()].find((entry) =>
        entry.envelope._tag === "Request" && (entry.envelope.payload as { turnId?: string }).turnId === "c-1"
      )
      const chunks = (request?.replies ?? []).flatMap((reply) => reply._tag === "Chunk" ? [reply.values] : [])
      assert.deepStrictEqual(
        chunks[0]?.map((value) => (value as { _tag: string })._tag),
        ["TurnStarted", "TurnMessage"]
      )
      assert.strictEqual(chunks.flat().length, events.length)
    }).pipe(Effect.provide(env())))

  it.live("an Interrupt sent while a turn streams ends the turn with the CLI's interrupted result", () =>
    Effect.gen(function*() {
      const running = yield* Effect.forkChild(turn("s", "s-1", "slow: write a lot"))
      // The model is answering: the turn's request reached the scripted server.
      const server = yield* ScriptedServer.ScriptedServer
      yield* waitUntil(Effect.map(requestsOf(server, "slow"), (requests) => requests.length > 0)).pipe(
        Effect.timeout("40 seconds")
      )
      const client = yield* AgentSession.client
      yield* client("s").Interrupt()
      const events = yield* Fiber.join(running)
      const last = messagesOf(events).at(-1)
      assert.strictEqual(last?._tag, "ResultError")
      assert.strictEqual(last?._tag === "ResultError" ? last.subtype : undefined, "error_during_execution")
      assert.isFalse(messagesOf(events).some((m) => m._tag === "AssistantMessage" && m.text.length === 600))
      // The session survives the interrupt: the entity's CLI is still the same process.
      assert.isNotNull((yield* info("s")).pid)
    }).pipe(Effect.provide(env())))

  it.live("an Interrupt sent while the CLI starts ends the turn once it runs", () =>
    Effect.gen(function*() {
      const before = cliPids()
      const running = yield* Effect.forkChild(turn("i", "i-1", "slow: write a lot"))
      yield* newCli(before)
      assert.isNull((yield* info("i")).pid)
      yield* (yield* AgentSession.client)("i").Interrupt()
      const events = yield* Fiber.join(running).pipe(Effect.timeout("30 seconds"))
      const last = messagesOf(events).at(-1)
      assert.strictEqual(last?._tag === "ResultError" ? last.subtype : last?._tag, "error_during_execution")
      assert.isFalse(messagesOf(events).some((m) => m._tag === "AssistantMessage" && m.text.length === 600))
    }).pipe(Effect.provide(env())))

  it.live("SetModel and SetPermissionMode sent while the CLI starts apply to that CLI", () =>
    Effect.gen(function*() {
      const client = yield* AgentSession.client
      const before = cliPids()
      const running = yield* Effect.forkChild(turn("m", "m-1", "echo: one"))
      yield* newCli(before)
      assert.isNull((yield* info("m")).pid)
      yield* client("m").SetModel({ model: "claude-scripted-other" })
      yield* client("m").SetPermissionMode({ mode: "plan" })
      yield* Fiber.join(running)
      const pid = (yield* info("m")).pid
      const second = yield* turn("m", "m-2", "echo: two")
      assert.strictEqual((yield* info("m")).pid, pid)
      const init = messagesOf(second).find((m) => m._tag === "SystemInit")
      assert.strictEqual(init?._tag === "SystemInit" ? init.permissionMode : undefined, "plan")
      const last = (yield* modelRequests("echo")).at(-1)!.body as { readonly model: string }
      assert.strictEqual(last.model, "claude-scripted-other")
    }).pipe(Effect.provide(env())))

  it.live("an idle entity's CLI is gone; its next turn resumes the conversation", () =>
    Effect.gen(function*() {
      const first = yield* turn("g", "g-1", "gamma: remember the number seven")
      assert.strictEqual(resultText(first), "Noted: seven.")
      const before = yield* info("g")
      const pid = before.pid!
      assert.isTrue(isAlive(pid))
      yield* waitUntil(Effect.sync(() => !isAlive(pid))).pipe(Effect.timeout("40 seconds"))
      const second = yield* turn("g", "g-2", "gamma: which number?")
      assert.strictEqual(resultText(second), "The number was seven.")
      const after = yield* info("g")
      assert.notStrictEqual(after.pid, pid)
      assert.strictEqual(after.sessionId, before.sessionId)
      // The model was sent the earlier exchange with the new question.
      const requests = yield* modelRequests("gamma")
      const body = JSON.stringify(requests.at(-1)!.body)
      assert.include(body, "remember the number seven")
      assert.include(body, "Noted: seven.")
      assert.include(body, "which number?")
    }).pipe(Effect.provide(env({ maxIdleTime: "1 second" }))), 90_000)

  it.live("a turn id seen before is answered from the log; a re-delivered one is retried and marked", () =>
    Effect.gen(function*() {
      const first = yield* turn("e", "e-1", "echo: one")
      const requestsAfterFirst = (yield* modelRequests("echo")).length
      const again = yield* turn("e", "e-1", "echo: one")
      assert.deepStrictEqual(again[0], new AgentSession.TurnReplayed({ turnId: "e-1" }))
      assert.deepStrictEqual(messagesOf(again).map((m) => m._tag), messagesOf(first).map((m) => m._tag))
      assert.strictEqual(resultText(again), "Echo one.")
      assert.strictEqual((yield* modelRequests("echo")).length, requestsAfterFirst)

      // A start that never finished, as a runner that died mid-turn leaves it.
      const log = yield* TurnLog.TurnLog
      yield* log.begin(AgentSession.logKey("AgentSession", "e"), "e-2", "echo: two")
      const delivered = Date.now()
      const retried = yield* turn("e", "e-2", "echo: two")
      assert.deepStrictEqual(retried[0], new AgentSession.TurnStarted({ turnId: "e-2", attempt: 2 }))
      // Not before the dead runner's guard has ended what it ran.
      assert.isAtLeast(Date.now() - delivered, Duration.toMillis(AgentSession.takeoverDelay))
      assert.strictEqual(resultText(retried), "Echo two.")

      // Three starts that never finished, as runners that died mid-turn leave them: started a fourth time.
      for (let i = 0; i < 3; i++) yield* log.begin(AgentSession.logKey("AgentSession", "e"), "e-4", "echo: four")
      const fourth = yield* turn("e", "e-4", "echo: four")
      assert.deepStrictEqual(fourth[0], new AgentSession.TurnStarted({ turnId: "e-4", attempt: 4 }))
      assert.strictEqual(resultText(fourth), "Echo four.")

      // Two starts that failed (their runner alive to tell): refused.
      for (const attempt of [1, 2]) {
        yield* log.begin(AgentSession.logKey("AgentSession", "e"), "e-3", "echo: three")
        yield* log.ended(AgentSession.logKey("AgentSession", "e"), "e-3", attempt, "failed")
      }
      const exhausted = yield* Effect.flip(turn("e", "e-3", "echo: three"))
      assert.strictEqual(exhausted._tag, "AgentSessionError")
      assert.deepStrictEqual(exhausted._tag === "AgentSessionError" ? exhausted.reason : exhausted, new AgentSession.TurnRetriesExhausted({ turnId: "e-3", attempts: 3 }))
      // Asked again, it is refused again, and the log still says two starts (refusals are not starts).
      const refusedAgain = yield* Effect.flip(turn("e", "e-3", "echo: three"))
      assert.strictEqual(refusedAgain.message, `Turn "e-3" was started 2 times without finishing; it is not retried again`)
      assert.deepStrictEqual(
        yield* log.begin(AgentSession.logKey("AgentSession", "e"), "e-3", "echo: three", 2),
        { _tag: "Exhausted", attempts: 2 }
      )

      // A finished turn's id with another prompt: neither the old answer nor a model request.
      const reused = yield* Effect.flip(turn("e", "e-1", "echo: something else"))
      assert.deepStrictEqual(reused._tag === "AgentSessionError" ? reused.reason : reused, new AgentSession.TurnIdReused({ turnId: "e-1" }))
      assert.strictEqual((yield* modelRequests("echo")).length, requestsAfterFirst + 2)
    }).pipe(Effect.provide(env())), 60_000)

  it.live("a turn that kills its CLI each time is refused at its third start", () =>
    Effect.gen(function*() {
      for (const attempt of [1, 2]) {
        const failed = yield* Effect.flip(turn("p", "p-1", "poison: go"))
        assert.strictEqual(failed._tag === "AgentSessionError" ? failed.reason._tag : failed._tag, "SessionFailed", `attempt ${attempt}`)
      }
      const refused = yield* Effect.flip(turn("p", "p-1", "poison: go"))
      assert.deepStrictEqual(refused._tag === "AgentSessionError" ? refused.reason : refused, new AgentSession.TurnRetriesExhausted({ turnId: "p-1", attempts: 3 }))
      // The model was asked twice, once an attempt.
      assert.strictEqual((yield* modelRequests("poison")).length, 2)
    }).pipe(Effect.provide(env({ allowedTools: ["Bash"] }))), 60_000)

  it.live("a turn whose caller stops reading still ends (the entity kept alive) and is logged: asked again, it is not re-run", () =>
    Effect.gen(function*() {
      const client = yield* AgentSession.client
      const before = cliPids()
      // Gone once the turn has begun on the CLI (its `system/init`), long before its answer.
      const cut = yield* Stream.runCollect(client("u").Turn({ turnId: "u-1", prompt: "cut: first" }).pipe(Stream.take(2)))
      assert.strictEqual(cut.length, 2)
      const pid = cliPids().find((p) => !before.includes(p))!
      // No request now: the entity idles out once its turn has ended.
      yield* waitUntil(Effect.sync(() => !isAlive(pid))).pipe(Effect.timeout("40 seconds"))
      const again = yield* turn("u", "u-1", "cut: first")
      assert.deepStrictEqual(again[0], new AgentSession.TurnReplayed({ turnId: "u-1" }))
      assert.strictEqual(resultText(again), "y".repeat(120))
      assert.strictEqual(resultText(yield* turn("u", "u-2", "cut: second")), "Cut two.")
      assert.strictEqual((yield* modelRequests("cut")).length, 2)
    }).pipe(Effect.provide(env({ maxIdleTime: "1 second" }))), 60_000)

  it.live("Close ends the CLI; the next turn starts another with the model and mode set meanwhile, resuming", () =>
    Effect.gen(function*() {
      const client = yield* AgentSession.client
      const first = yield* turn("c", "c-1", "close: first")
      assert.strictEqual(resultText(first), "Closing one.")
      const pid = (yield* info("c")).pid!
      yield* client("c").Close()
      yield* waitUntil(Effect.sync(() => !isAlive(pid))).pipe(Effect.timeout("20 seconds"))
      assert.isNull((yield* info("c")).pid)
      yield* client("c").SetModel({ model: "claude-scripted-other" })
      yield* client("c").SetPermissionMode({ mode: "plan" })
      const now = yield* info("c")
      assert.strictEqual(now.model, "claude-scripted-other")
      assert.strictEqual(now.permissionMode, "plan")
      const second = yield* turn("c", "c-2", "close: second")
      assert.strictEqual(resultText(second), "Closing two.")
      const init = messagesOf(second).find((m) => m._tag === "SystemInit")
      assert.strictEqual(init?._tag === "SystemInit" ? init.model : undefined, "claude-scripted-other")
      assert.strictEqual(init?._tag === "SystemInit" ? init.permissionMode : undefined, "plan")
      const requests = yield* modelRequests("close")
      const last = requests.at(-1)!.body as { readonly model: string }
      assert.strictEqual(last.model, "claude-scripted-other")
      assert.include(JSON.stringify(last), "Closing one.")
    }).pipe(Effect.provide(env())))

  const asked: Array<string> = []
  it.live("the entity type's canUseTool decides its sessions' tool uses", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const events = yield* turn("t", "t-1", "tool: write a file")
      assert.strictEqual(resultText(events), "Not written.")
      assert.deepStrictEqual(asked, ["Write"])
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "out.txt")))
    }).pipe(Effect.provide(env({
      canUseTool: (tool) => Effect.sync(() => asked.push(tool)).pipe(Effect.as(CanUseTool.deny("not here")))
    }))))

  const askedWarm: Array<string> = []
  it.live("with spares, a new conversation claims a parked CLI that runs the entity type's canUseTool", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const events = yield* turn("w", "w-1", "tool: write a file")
      const pid = (yield* info("w")).pid!
      // A claimed spare: started parked, not cold.
      assert.include(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0"), "--await-claim")
      assert.strictEqual(resultText(events), "Not written.")
      assert.deepStrictEqual(askedWarm, ["Write"])
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "out.txt")))
    }).pipe(Effect.provide(
      Layer.unwrap(Effect.map(Scripted.Sandbox, (sandbox) =>
        AgentSession.layer({
          cwd: sandbox.cwd,
          spares: 1,
          canUseTool: (tool) => Effect.sync(() => askedWarm.push(tool)).pipe(Effect.as(CanUseTool.deny("not here")))
        }))).pipe(
          Layer.provideMerge(Cluster.layerTest),
          Layer.provideMerge(Scripted.layer(script))
        )
    )))

  const claimWire = ClaimWire.make(script)
  it.live("with spares, a new conversation's first prompt goes to the spare with its claim", () =>
    Effect.gen(function*() {
      claimWire.wire.length = 0
      const events = yield* turn("p", "p-1", "alpha: warm entity")
      assert.strictEqual(resultText(events), "Alpha one.")
      const pid = (yield* info("p")).pid!
      assert.include(fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0"), "--await-claim")
      assert.deepStrictEqual(claimWire.writtenWithClaim("alpha: warm entity"), ["claim_session", "user"])
      assert.isTrue(claimWire.promptBeforeClaimAnswer("alpha: warm entity"))
      assert.lengthOf(yield* modelRequests("alpha"), 1)
    }).pipe(Effect.provide(
      Layer.unwrap(Effect.map(Scripted.Sandbox, (sandbox) => AgentSession.layer({ cwd: sandbox.cwd, spares: 1 }))).pipe(
        Layer.provideMerge(Cluster.layerTest),
        Layer.provideMerge(claimWire.layer)
      )
    )))

  it.live("a turn on a CLI that died fails typed; its retry starts another CLI, resumes, and is marked", () =>
    Effect.gen(function*() {
      assert.strictEqual(resultText(yield* turn("k", "k-1", "crash: first")), "Crash one.")
      const pid = (yield* info("k")).pid!
      process.kill(pid, "SIGKILL")
      yield* waitUntil(Effect.sync(() => !isAlive(pid))).pipe(Effect.timeout("20 seconds"))
      const failed = yield* Effect.flip(turn("k", "k-2", "crash: second"))
      assert.strictEqual(failed._tag === "AgentSessionError" ? failed.reason._tag : failed._tag, "SessionFailed")
      // The session's own error came through: the CLI was gone (no exit code: a signal ended it).
      const cause = failed._tag === "AgentSessionError" && failed.reason._tag === "SessionFailed" ? failed.reason.error : undefined
      assert.strictEqual(cause?._tag === "SessionError" ? cause.reason._tag : cause?._tag, "SessionClosed")
      assert.strictEqual(cause?._tag === "SessionError" && cause.reason._tag === "SessionClosed" ? cause.reason.exitCode : undefined, null)
      const retried = yield* turn("k", "k-2", "crash: second")
      assert.deepStrictEqual(retried[0], new AgentSession.TurnStarted({ turnId: "k-2", attempt: 2 }))
      assert.strictEqual(resultText(retried), "Crash two.")
      assert.notStrictEqual((yield* info("k")).pid, pid)
      assert.include(JSON.stringify((yield* modelRequests("crash")).at(-1)!.body), "Crash one.")
    }).pipe(Effect.provide(env())))
})

const Reviewer = AgentSession.make("Reviewer")

describe("AgentSession.make", () => {
  it.live("another entity type runs beside the default one, with its own options and its own turns", () =>
    Effect.gen(function*() {
      const reviewer = yield* Reviewer.client
      // The same entity id and turn id on both types are two turns.
      const [plain, review] = yield* Effect.all([
        turn("x", "x-1", "alpha: hello"),
        Stream.runCollect(reviewer("x").Turn({ turnId: "x-1", prompt: "beta: hello" }))
      ], { concurrency: 2 })
      assert.strictEqual(resultText(plain), "Alpha one.")
      assert.strictEqual(resultText(review), "Beta one.")
      assert.deepStrictEqual(review[0], new AgentSession.TurnStarted({ turnId: "x-1", attempt: 1 }))
      const [plainInfo, reviewInfo] = yield* Effect.all([info("x"), reviewer("x").Info()])
      assert.notStrictEqual(plainInfo.pid, reviewInfo.pid)
      assert.notStrictEqual(plainInfo.sessionId, reviewInfo.sessionId)
      // Each type's sessions run with its own options.
      const init = messagesOf(review).find((m) => m._tag === "SystemInit")
      assert.strictEqual(init?._tag === "SystemInit" ? init.model : undefined, "claude-scripted-other")
      const plainInit = messagesOf(plain).find((m) => m._tag === "SystemInit")
      assert.notStrictEqual(plainInit?._tag === "SystemInit" ? plainInit.model : undefined, "claude-scripted-other")
    }).pipe(Effect.provide(
      Layer.mergeAll(AgentSession.layer(), Reviewer.layer({ model: "claude-scripted-other" })).pipe(
        Layer.provideMerge(Cluster.layerTest),
        Layer.provideMerge(Scripted.layer(script))
      )
    )))
})

describe("AgentSession schemas", () => {
  it("the permission modes are the session options' own", () => {
    assert.strictEqual(AgentSession.SetPermissionMode.payloadSchema.fields.mode, PermissionModes.PermissionMode)
    assert.strictEqual(AgentSession.EntityInfo.fields.permissionMode.members[0], PermissionModes.PermissionMode)
    // The options' type is the schema's: a mode the options take is a mode the RPC takes, and back.
    const fromOptions: ReadonlyArray<QueryOptions.PermissionMode> = PermissionModes.PermissionMode.literals
    const toOptions: ReadonlyArray<typeof PermissionModes.PermissionMode.Type> = fromOptions
    assert.deepStrictEqual(toOptions, fromOptions)
  })
})

describe("AgentSession.logKey", () => {
  it("two types never share a key, whatever their ids", () => {
    assert.notStrictEqual(AgentSession.logKey("AgentSession", "Reviewer/pr-42"), AgentSession.logKey("Reviewer", "pr-42"))
    assert.throws(() => AgentSession.make("Code/Reviewer"), /cannot contain "\/"/)
  })
})
