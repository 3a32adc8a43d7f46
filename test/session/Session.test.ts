import { assert, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Session from "../../src/session/Session.ts"
import * as UserContent from "../../src/session/UserContent.ts"
import type * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { settle } from "./support/Collect.ts"
import { collect, isAlive, resultOf, setup, toolResults, turnBodies, waitUntil, watchingSpawner } from "./support/Real.ts"

// A 1x1 PNG.
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

layer(NodeServices.layer, { excludeTestServices: true })("Session (real CLI)", (it) => {
  it.effect("two turns in one process, the second seeing the first", () =>
    Effect.gen(function*() {
      const { server, base } = yield* setup([Script.turn("Noted: 7"), Script.turn("It was 7")])
      const session = yield* Session.make(base)
      // The initialize answer, typed: what CLI 2.1.332 reports about itself.
      const init = session.initialization
      assert.strictEqual(init.claude_code_version, "2.1.332")
      assert.isTrue(init.commands.some((c) => c.name === "compact"))
      assert.isTrue(init.models.some((m) => m.value === "default"))
      assert.isAbove(init.agents.length, 0)
      assert.strictEqual(init.account?.apiKeySource, "ANTHROPIC_API_KEY")
      assert.strictEqual(init.output_style, "default")
      assert.strictEqual(init.current_permission_mode, "default")
      // Keys the schema does not name are kept.
      assert.strictEqual(init.session_state, session.rawInitialization.session_state)
      assert.isDefined(init.session_state)
      const first = yield* collect(session.turn("Remember the number 7"))
      const second = yield* collect(session.turn("Which number?"))
      assert.strictEqual(resultOf(first).result, "Noted: 7")
      assert.strictEqual(resultOf(second).result, "It was 7")
      const turns = yield* turnBodies(server)
      assert.strictEqual(turns.length, 2)
      const body = JSON.stringify(turns[1].messages)
      assert.include(body, "Remember the number 7")
      assert.include(body, "Noted: 7")
      const id = yield* session.sessionId
      assert.match(id, /^[0-9a-f-]{36}$/)
      assert.strictEqual(resultOf(second).session_id, id)
    }))

  it.effect("a resumed session sees the first conversation; a fork gets a new id", () =>
    Effect.gen(function*() {
      const { server, base } = yield* setup([Script.turn("Noted: 7"), Script.turn("It was 7"), Script.turn("Still 7")])
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Session.make(base)
        yield* collect(session.turn("Remember the number 7"))
        return yield* session.sessionId
      }))
      const resumed = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Session.make({ ...base, resume: first })
        assert.strictEqual(resultOf(yield* collect(session.turn("Which number?"))).result, "It was 7")
        return yield* session.sessionId
      }))
      const forked = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Session.make({ ...base, resume: first, forkSession: true })
        assert.strictEqual(resultOf(yield* collect(session.turn("And now?"))).result, "Still 7")
        return yield* session.sessionId
      }))
      assert.strictEqual(resumed, first)
      assert.notStrictEqual(forked, first)
      const turns = yield* turnBodies(server)
      assert.strictEqual(turns.length, 3)
      // Each later process sent the model what the earlier ones said.
      assert.include(JSON.stringify(turns[1].messages), "Remember the number 7")
      assert.include(JSON.stringify(turns[1].messages), "Noted: 7")
      assert.include(JSON.stringify(turns[2].messages), "Which number?")
      assert.include(JSON.stringify(turns[2].messages), "It was 7")
    }))

  it.effect("setModel changes the model of the next request", () =>
    Effect.gen(function*() {
      const { server, base } = yield* setup([Script.turn("one"), Script.turn("two"), Script.turn("three")])
      const session = yield* Session.make({ ...base, model: "claude-scripted-model-a" })
      yield* collect(session.turn("first"))
      yield* session.setModel("claude-scripted-model-b")
      yield* collect(session.turn("second"))
      yield* session.setModel(undefined)
      yield* collect(session.turn("third"))
      const models = (yield* turnBodies(server)).map((t) => t.model)
      assert.strictEqual(models[0], "claude-scripted-model-a")
      assert.strictEqual(models[1], "claude-scripted-model-b")
      assert.notStrictEqual(models[2], "claude-scripted-model-b")
    }))

  it.effect("setPermissionMode decides whether a Write is allowed", () =>
    Effect.gen(function*() {
      const { base, sandbox } = yield* setup([
        Script.turn(Script.toolUse("Write", { file_path: "before.txt", content: "x" })),
        Script.turn("denied"),
        Script.turn(Script.toolUse("Write", { file_path: "after.txt", content: "y" })),
        Script.turn("written")
      ])
      const session = yield* Session.make(base)
      const before = yield* collect(session.turn("write before.txt"))
      yield* session.setPermissionMode("acceptEdits")
      const after = yield* collect(session.turn("write after.txt"))
      assert.isFalse(fs.existsSync(path.join(sandbox.cwd, "before.txt")))
      assert.isTrue(toolResults(before)[0].isError)
      assert.strictEqual(fs.readFileSync(path.join(sandbox.cwd, "after.txt"), "utf8"), "y")
      assert.isFalse(toolResults(after)[0].isError)
    }))

  it.effect("an image sent as a content block reaches the model", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([Script.turn("A single pixel")])
      const session = yield* Session.make(base)
      const messages = yield* collect(session.turn([
        UserContent.text("What is this?"),
        UserContent.image(Buffer.from(png, "base64"), "image/png")
      ]))
      assert.strictEqual(resultOf(messages).result, "A single pixel")
      const [turn] = yield* turnBodies(server)
      const blocks = turn.messages.flatMap((m) => typeof m.content === "string" ? [] : m.content)
      const image = blocks.find((b) => b.type === "image") as { source?: Record<string, unknown> } | undefined
      assert.deepStrictEqual(image?.source, { type: "base64", media_type: "image/png", data: png })
      assert.include(JSON.stringify(blocks), "What is this?")
    }))

  it.effect("interrupt ends a turn whose model request is streaming", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([
        // Would stream for well over a minute.
        Script.turn("a".repeat(600), { eventDelay: "500 millis", chunkSize: 3 })
      ])
      const session = yield* Session.make({ ...base, includePartialMessages: true, interruptTimeout: "15 seconds" })
      const messages = yield* Effect.forkChild(collect(session.turn("talk slowly")))
      yield* waitUntil(Effect.map(server.requests, (all) => ScriptedServer.turnRequests(all).length === 1))
      yield* session.interrupt
      const collected = yield* Fiber.join(messages)
      const result = collected.at(-1)
      assert.strictEqual(result?._tag, "ResultError")
      assert.strictEqual(result?._tag === "ResultError" ? result.subtype : undefined, "error_during_execution")
      assert.isTrue(collected.some((m) => m._tag === "UserMessage" && m.text.includes("[Request interrupted by user")))
      assert.isFalse(collected.some((m) => m._tag === "AssistantMessage"))
      assert.isTrue(isAlive(session.pid))
    }))

  it.effect("interrupt outside a turn only tells the CLI", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("one"), Script.turn("two")])
      // A deadline the old behaviour (waiting for a turn that never comes) would run into.
      const session = yield* Session.make({ ...base, interruptTimeout: "3 seconds" })
      yield* session.interrupt
      assert.strictEqual(resultOf(yield* collect(session.turn("first"))).result, "one")
      yield* session.interrupt
      assert.strictEqual(resultOf(yield* collect(session.turn("second"))).result, "two")
      assert.isTrue(isAlive(session.pid))
    }))

  it.effect("concurrent readers each get the whole turn", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("one")])
      const session = yield* Session.make(base)
      const readers = yield* Effect.forEach([1, 2], () =>
        Effect.forkChild(collect(session.messages.pipe(Stream.takeUntil((m) => m.type === "result")))))
      // Both readers are running (subscribed) before the prompt goes out.
      yield* settle
      const turn = yield* collect(session.turn("hello"))
      assert.strictEqual(resultOf(turn).result, "one")
      assert.strictEqual(turn[0]._tag, "SystemInit")
      for (const reader of readers) assert.deepStrictEqual((yield* Fiber.join(reader)).map((m) => m._tag), turn.map((m) => m._tag))
    }))

  it.effect("concurrent sends: each prompt once and whole, each turn a result", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup(Array.from({ length: 4 }, (_, i) => Script.turn(`answer ${i}`)))
      const session = yield* Session.make(base)
      const all = yield* session.subscribe
      // Larger than a pipe's atomic write, so that interleaved writes would show.
      const prompts = ["alpha", "beta", "gamma"].map((word) => Array.from({ length: 4000 }, (_, i) => `${word}${i}`).join(" "))
      yield* Effect.forEach(prompts, session.send, { concurrency: "unbounded", discard: true })
      // Ends after all of them: the CLI takes prompts in order (and may run those that queued up as one turn).
      const last = yield* collect(session.turn("omega-final"))
      const turns = yield* turnBodies(server)
      assert.isAtLeast(turns.length, 2)
      assert.strictEqual(resultOf(last).result, `answer ${turns.length - 1}`)
      const results = yield* collect(all.pipe(Stream.filter((m) => m.type === "result"), Stream.take(turns.length)))
      assert.deepStrictEqual(results.map((m) => m._tag === "ResultSuccess" ? m.result : m._tag), turns.map((_, i) => `answer ${i}`))
      const history = JSON.stringify(turns.at(-1)!.messages)
      for (const prompt of [...prompts, "omega-final"]) assert.strictEqual(history.split(prompt).length, 2, prompt.slice(0, 10))
      // Nothing is owed any more.
      yield* session.interrupt
    }))

  it.effect("a prompt sent during a Bash command joins the turn", () =>
    Effect.gen(function*() {
      const { base, sandbox, server } = yield* setup([
        // Runs until the test creates `go`: the turn is busy until then, whatever the machine's load.
        Script.turn(Script.toolUse("Bash", { command: "while [ ! -e go ]; do sleep 0.05; done; echo went" })),
        Script.turn("done, and noted"),
        Script.turn("next")
      ])
      // The CLI says when it has queued a prompt (an acknowledgement the session keeps to itself).
      let queued = 0
      const watching = watchingSpawner((line) => {
        if (line.includes(`"type":"command_lifecycle"`) && line.includes(`"state":"queued"`)) queued++
      })
      const session = yield* Effect.provide(Session.make({ ...base, allowedTools: ["Bash"], interruptTimeout: "3 seconds" }), watching)
      const watch = yield* session.subscribe
      const first = yield* Effect.forkChild(collect(session.turn("run it")))
      yield* Stream.runHead(watch.pipe(Stream.filter((m) => m._tag === "AssistantMessage")))
      yield* session.send("also note this")
      // Held by the CLI while the command still waits: it goes to the model with the command's result.
      yield* waitUntil(Effect.sync(() => queued === 2))
      fs.writeFileSync(path.join(sandbox.cwd, "go"), "")
      const turn = yield* Fiber.join(first)
      assert.strictEqual(resultOf(turn).result, "done, and noted")
      assert.strictEqual(turn.filter((m) => m.type === "result").length, 1)
      const bodies = yield* turnBodies(server)
      assert.strictEqual(bodies.length, 2)
      assert.include(JSON.stringify(bodies[1].messages), "also note this")
      // Nothing is owed: the interrupt only tells the CLI (a wait for a turn would run into the 3 s deadline).
      yield* session.interrupt
      assert.strictEqual(resultOf(yield* collect(session.turn("and now?"))).result, "next")
    }))

  it.effect("a queued prompt starts its turn with its own init", () =>
    Effect.gen(function*() {
      const { base, server } = yield* setup([
        Script.turn("a".repeat(10), { eventDelay: "300 millis", chunkSize: 1 }),
        Script.turn("queued answer"),
        Script.turn("queued answer")
      ])
      const session = yield* Session.make(base)
      yield* session.send("first")
      yield* waitUntil(Effect.map(server.requests, (all) => ScriptedServer.turnRequests(all).length === 1))
      // The CLI takes both up together, and replays the second only with the answer.
      yield* session.send("waiting one")
      const turn = yield* collect(session.turn("waiting two"))
      assert.strictEqual(turn[0]._tag, "SystemInit")
      assert.strictEqual(resultOf(turn).result, "queued answer")
      assert.include(JSON.stringify((yield* turnBodies(server)).at(-1)!.messages), "waiting two")
    }))

  it.effect("an interrupt right after a send ends that turn", () =>
    Effect.gen(function*() {
      // Each would stream for 9 s. An interrupted turn may end before its model request, so the last prompt has
      // a conversation of its own.
      const slow = Script.turn("b".repeat(30), { eventDelay: "300 millis", chunkSize: 1 })
      const isLast = (request: MessagesRequest.MessagesRequest) => JSON.stringify(request.messages).includes("the last one")
      const { base } = yield* setup(Script.make([slow, slow, slow], {
        subagents: [Script.conversation("last", isLast, Array.from({ length: 4 }, () => Script.turn("fine")))]
      }))
      const session = yield* Session.make({ ...base, interruptTimeout: "4 seconds" })
      const all = yield* session.subscribe
      for (let i = 0; i < 3; i++) {
        yield* session.send(`prompt ${i}`)
        yield* session.interrupt
      }
      const results = yield* collect(all.pipe(Stream.filter((m) => m.type === "result"), Stream.take(3)))
      assert.deepStrictEqual(results.map((m) => m._tag === "ResultError" ? m.subtype : m._tag), Array(3).fill("error_during_execution"))
      assert.strictEqual(resultOf(yield* collect(session.turn("the last one"))).result, "fine")
      assert.isTrue(isAlive(session.pid))
    }))

  it.effect("a slow reader interrupting from its stream: settled, nothing killed", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("a".repeat(2000), { eventDelay: "2 millis", chunkSize: 1 }), Script.turn("two")])
      const session = yield* Session.make({ ...base, includePartialMessages: true, interruptTimeout: "5 seconds" })
      let read = 0
      // 20 ms a message: the CLI is paced, its output waits in the pipe behind this reader.
      const messages = yield* collect(session.turn("talk").pipe(
        Stream.tap(() => ++read === 100 ? Effect.asVoid(session.interrupt) : read < 100 ? Effect.sleep("20 millis") : Effect.void)
      ))
      const result = messages.at(-1)
      assert.strictEqual(result?._tag === "ResultError" ? result.subtype : result?._tag, "error_during_execution")
      assert.isTrue(isAlive(session.pid))
      assert.strictEqual(resultOf(yield* collect(session.turn("again"))).result, "two")
    }))

  it.effect("close ends stdin; the CLI exits and the output ends", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("hi")])
      const session = yield* Session.make(base)
      yield* collect(session.turn("hello"))
      yield* session.close
      assert.isFalse(isAlive(session.pid))
      assert.deepStrictEqual(yield* collect(session.messages), [])
    }))

  it.effect("closing the scope mid-turn ends the process and its callback", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn(Script.toolUse("Write", { file_path: "x.txt", content: "x" })), Script.turn("done")])
      const asked = yield* Deferred.make<void>()
      let interrupted = false
      const pid = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Session.make({
          ...base,
          canUseTool: () =>
            Deferred.succeed(asked, undefined).pipe(
              Effect.andThen(Effect.never),
              Effect.onInterrupt(() => Effect.sync(() => (interrupted = true)))
            )
        })
        yield* Effect.forkChild(collect(session.turn("write")))
        yield* Deferred.await(asked)
        return session.pid
      }))
      assert.isFalse(isAlive(pid))
      assert.isTrue(interrupted)
    }))

  it.effect("closing the scope ends the process", () =>
    Effect.gen(function*() {
      const { base } = yield* setup([Script.turn("hi")])
      const pid = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* Session.make(base)
        assert.isTrue(isAlive(session.pid))
        return session.pid
      }))
      assert.isFalse(isAlive(pid))
    }))
})
