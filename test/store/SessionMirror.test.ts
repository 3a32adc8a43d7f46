/**
 * SessionMirror: how frames reach the store (`sessionStoreFlush`), and a resume whose store does not answer
 * (`loadTimeout`).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as Message from "../../src/schema/Message.ts"
import * as Context from "effect/Context"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Recording from "../../src/layers/Recording.ts"
import { fixturesDir } from "../support/Corpus.ts"
import * as ProjectKey from "../../src/store/ProjectKey.ts"
import * as SessionMirror from "../../src/store/SessionMirror.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as Script from "../../src/testing/Script.ts"
import * as Scenarios from "../../src/testing/internal/scenarios/index.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"
import * as MirrorFrames from "./support/mirrorFrames.ts"

const { configDir, frame } = MirrorFrames

// A memory store that records the uuids of each append call.
const recording = () => {
  const calls: Array<ReadonlyArray<unknown>> = []
  const memory = MemorySessionStore.make()
  const store: SessionStore.Shape = {
    ...memory,
    append: (key, entries) => Effect.andThen(Effect.sync(() => calls.push(entries.map((e) => e.uuid))), memory.append(key, entries))
  }
  return { store, calls }
}

const realPause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// Three reads, then an answer: a run that writes many frames.
const readingScript = Script.make([
  ...Array.from({ length: 3 }, (_, i) => Script.turn(Script.toolUse("Read", { file_path: "a.txt" }, `toolu_read_${i}`))),
  Script.turn("Read it.")
])
const reads = { allowedTools: ["Read"] }

// How many lines of a session's transcript in the sandbox the CLI mirrors: all but its API request logs.
const mirroredLines = (sessionId: string) =>
  Effect.map(Effect.service(Scripted.Sandbox), (sandbox) => {
    const file = path.join(sandbox.env.CLAUDE_CONFIG_DIR!, "projects", ProjectKey.fromPath(sandbox.cwd), `${sessionId}.jsonl`)
    return fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "")
      .filter((line) => !String(JSON.parse(line).type).startsWith("api-request")).length
  })

describe("SessionMirror", () => {
  it.effect("eager: one append per frame, in order; frames never reach the output", () =>
    Effect.gen(function*() {
      const { store, calls } = recording()
      const out = yield* Stream.make(frame(["a", "b"]), frame(["c"]), frame(["d", "e"])).pipe(
        SessionMirror.mirror({ store, configDir, cwd: "/work/app", flush: "eager" }),
        Stream.runCollect
      )
      assert.deepStrictEqual(out, [])
      assert.deepStrictEqual(calls, [["a", "b"], ["c"], ["d", "e"]])
    }))

  it.effect("batched: the entries of every frame, in order, in at most as many appends", () =>
    Effect.gen(function*() {
      const { store, calls } = recording()
      yield* Stream.make(frame(["a", "b"]), frame(["c"]), frame(["d", "e"])).pipe(
        SessionMirror.mirror({ store, configDir, cwd: "/work/app" }),
        Stream.runDrain
      )
      assert.deepStrictEqual(calls.flat(), ["a", "b", "c", "d", "e"])
      assert.isAtMost(calls.length, 3)
      const stored = Option.getOrThrow(yield* store.load({ projectKey: "-work-app", sessionId: "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11" }))
      assert.deepStrictEqual(stored.map((e) => e.uuid), ["a", "b", "c", "d", "e"])
    }))

  it.live("after an append not stored, the transcript's later frames are reported, not appended; stored fails", () =>
    Effect.gen(function*() {
      const { calls, store } = recording()
      // The second append fails, every retry too; the store would take the third.
      const failingSecond: SessionStore.Shape = {
        ...store,
        append: (key, entries) =>
          entries.some((e) => e.uuid === "c")
            ? Effect.andThen(Effect.sync(() => calls.push(["refused"])), Effect.fail(new SessionStore.SessionStoreError({
              reason: new SessionStore.OperationFailed({ operation: "append", key: "k", cause: new Error("disk on fire") })
            })))
            : store.append(key, entries)
      }
      const { errors, mirroring } = yield* MirrorFrames.eager(failingSecond)
      for (const uuids of [["a", "b"], ["c"], ["d"]]) yield* mirroring.offer(frame(uuids))
      const stored = yield* Effect.flip(mirroring.stored)
      assert.include(stored.message, "disk on fire")
      assert.deepStrictEqual(calls, [["a", "b"], ["refused"], ["refused"], ["refused"]])
      assert.strictEqual(errors.length, 2)
      assert.include(errors[1]!, "an earlier append of this transcript was not stored")
    }).pipe(Effect.scoped))

  describe("a store whose append never answers", () => {
    // Never answers, and ignores interruption: nothing may wait for it to stop.
    const hanging = () => {
      let calls = 0
      const store: SessionStore.Shape = {
        ...MemorySessionStore.make(),
        append: () => Effect.suspend(() => (calls++, Effect.uninterruptible(Effect.never)))
      }
      return { store, calls: () => calls }
    }

    it.live("the stream ends with a mirror_error after appendTimeout, the append not retried", () =>
      Effect.gen(function*() {
        const { calls, store } = hanging()
        const other = new Message.UnknownMessage({ raw: { type: "other" } })
        const out = yield* Stream.make(frame(["a"]), other).pipe(
          SessionMirror.mirror({ store, configDir, cwd: "/work/app", flush: "eager", appendTimeout: "50 millis" }),
          Stream.runCollect
        )
        assert.deepStrictEqual(out.filter((m) => m._tag !== "SystemMirrorError"), [other])
        const errors = out.filter((m) => m._tag === "SystemMirrorError")
        assert.strictEqual(errors.length, 1)
        assert.include(errors[0].error, "appendTimeout")
        assert.include(errors[0].error, "(1 entry not stored)")
        assert.strictEqual(calls(), 1)
      }))

    it.effect("eager: the drain after the run has one appendTimeout in all, every frame not stored reported", () =>
      Effect.gen(function*() {
        const { calls, store } = hanging()
        const frames = Array.from({ length: 20 }, (_, i) => frame([`a${i}`, `b${i}`]))
        const fiber = yield* Stream.fromIterable(frames).pipe(
          SessionMirror.mirror({ store, configDir, cwd: "/work/app", flush: "eager", appendTimeout: "1 second" }),
          Stream.runCollect,
          Effect.forkChild
        )
        // One appendTimeout after the frames ended (twenty, appended one at a time, would need twenty).
        yield* TestClock.adjust("1 second")
        for (let i = 0; i < 100 && fiber.pollUnsafe() === undefined; i++) yield* Effect.yieldNow
        assert.isDefined(fiber.pollUnsafe(), "the stream ended one appendTimeout after its frames")
        const errors = (yield* Fiber.join(fiber)).filter((m) => m._tag === "SystemMirrorError")
        // One mirror_error per frame, each naming its two entries.
        assert.strictEqual(errors.length, frames.length)
        for (const error of errors) assert.include(error.error, "(2 entries not stored)")
        assert.isAtMost(calls(), 2)
      }))

    it.live("a query with it ends, its result and a mirror_error in the output", () =>
      Effect.gen(function*() {
        const { store } = hanging()
        const out = yield* ClaudeCli.query("Hello", { sessionStore: { store, appendTimeout: "100 millis" } }).pipe(Stream.runCollect)
        assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Hi."))
        const errors = out.filter((m) => m._tag === "SystemMirrorError")
        assert.isAbove(errors.length, 0)
        assert.include(errors[0].error, "appendTimeout")
      }).pipe(Effect.provide([Scripted.layer(Script.make([Script.turn("Hi.")])), NodeServices.layer])), 60_000)

    it.live("eager, a query with it ends one appendTimeout after the CLI, every entry reported", () =>
      Effect.gen(function*() {
        const { store } = hanging()
        const appendTimeout = 2000
        const started = Date.now()
        const out = yield* ClaudeCli.query("Hello", { ...reads, sessionStore: { store, appendTimeout }, sessionStoreFlush: "eager" }).pipe(
          Stream.runCollect
        )
        const elapsed = Date.now() - started
        assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Read it."))
        const errors = out.filter((m) => m._tag === "SystemMirrorError")
        const reported = errors.map((m) => Number(/\((\d+) entr(?:y|ies) not stored\)/.exec(m.error)![1]))
        const sessionId = out.flatMap((m) => m._tag === "SystemInit" ? [m.session_id] : [])[0]!
        assert.strictEqual(reported.reduce((a, b) => a + b, 0), yield* mirroredLines(sessionId))
        // One frame an append: appended one after the other, they would have taken an appendTimeout each.
        assert.isAtLeast(errors.length, 8)
        assert.isBelow(elapsed, errors.length * appendTimeout / 2)
      }).pipe(Effect.provide([Scripted.layer(readingScript, { files: { "a.txt": "a\n" } }), NodeServices.layer])), 120_000)

    it.live("eager, a session closed with it reports every entry in its messages", () =>
      Effect.gen(function*() {
        const { store } = hanging()
        const { out, sessionId } = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* ClaudeCli.session({ ...reads, sessionStore: { store, appendTimeout: "500 millis" }, sessionStoreFlush: "eager" })
          const reader = yield* Effect.forkChild(Stream.runCollect(yield* session.subscribe))
          yield* Stream.runDrain(session.turn("Hello"))
          yield* session.close
          return { out: yield* Fiber.join(reader), sessionId: yield* session.sessionId }
        }))
        assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Read it."))
        const reported = out.flatMap((m) => m._tag === "SystemMirrorError" ? [Number(/\((\d+) entr(?:y|ies) not stored\)/.exec(m.error)![1])] : [])
        assert.strictEqual(reported.reduce((a, b) => a + b, 0), yield* mirroredLines(sessionId))
      }).pipe(Effect.provide([Scripted.layer(readingScript, { files: { "a.txt": "a\n" } }), NodeServices.layer])), 120_000)

    it.live("a session with it answers its turns and closes", () =>
      Effect.gen(function*() {
        const { calls, store } = hanging()
        const out = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* ClaudeCli.session({ sessionStore: { store, appendTimeout: "100 millis" } })
          return yield* Stream.runCollect(session.turn("Hello"))
        }))
        assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Hi."))
        assert.isAbove(calls(), 0)
      }).pipe(Effect.provide([Scripted.layer(Script.make([Script.turn("Hi.")])), NodeServices.layer])), 60_000)
  })

  it.live("a session's `stored` waits until what the CLI wrote before it is in the store", () =>
    Effect.gen(function*() {
      // Each append lands half a second late.
      const memory = MemorySessionStore.make()
      const late: SessionStore.Shape = { ...memory, append: (key, entries) => Effect.andThen(Effect.sleep("500 millis"), memory.append(key, entries)) }
      const stored = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* ClaudeCli.session({ sessionStore: late })
        yield* Stream.runDrain(session.turn("Hello"))
        const sessionId = yield* session.sessionId
        yield* session.stored
        const [projectKey] = yield* memory.findProjects!(sessionId)
        return JSON.stringify(Option.getOrElse(yield* memory.load({ projectKey: projectKey!, sessionId }), () => []))
      }))
      assert.include(stored, "Hi.")
    }).pipe(Effect.provide([Scripted.layer(Script.make([Script.turn("Hi.")])), NodeServices.layer])), 60_000)

  it.effect("closing a session waits for its store by appendTimeout, not by a fixed time", () =>
    Effect.gen(function*() {
      // The first append answers after 40 seconds of the test clock (appendTimeout is 60), the others at once.
      const memory = MemorySessionStore.make()
      let appends = 0
      const slow: SessionStore.Shape = {
        ...memory,
        append: (key, entries) => Effect.andThen(appends++ === 0 ? Effect.sleep("40 seconds") : Effect.void, memory.append(key, entries))
      }
      const scope = yield* Scope.make()
      const session = yield* Scope.provide(ClaudeCli.session({ sessionStore: slow }), scope)
      yield* Stream.runDrain(session.turn("Hello"))
      const sessionId = yield* session.sessionId
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      // Once the CLI is gone (real time), the store's time passes.
      while (isAlive(session.pid)) yield* realPause(20)
      // Past the 30 seconds a close once waited at most, then past the store's answer.
      yield* TestClock.adjust("31 seconds")
      yield* realPause(200)
      yield* TestClock.adjust("14 seconds")
      while (closing.pollUnsafe() === undefined) yield* realPause(20)
      const sandbox = yield* Scripted.Sandbox
      const local = fs.readFileSync(path.join(sandbox.env.CLAUDE_CONFIG_DIR!, "projects", ProjectKey.fromPath(sandbox.cwd), `${sessionId}.jsonl`), "utf8")
      const uuids = local.split("\n").flatMap((line) => line.trim() === "" ? [] : [JSON.parse(line).uuid]).filter((u) => u !== undefined)
      const stored = Option.getOrThrow(yield* memory.load({ projectKey: ProjectKey.fromPath(sandbox.cwd), sessionId }))
      assert.deepStrictEqual(stored.flatMap((e) => e.uuid === undefined ? [] : [e.uuid]), uuids)
    }).pipe(Effect.provide([Scripted.layer(Script.make([Script.turn("Hi.")])), NodeServices.layer])), 60_000)

  it.live("a resume whose store does not answer within loadTimeout fails before the CLI starts", () =>
    Effect.gen(function*() {
      const hanging: SessionStore.Shape = { ...MemorySessionStore.make(), load: () => Effect.never }
      const error = yield* ClaudeCli.query("Hello", {
        resume: "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11",
        sessionStore: hanging,
        loadTimeout: "50 millis"
      }).pipe(Stream.runDrain, Effect.flip)
      assert.strictEqual(error.reason._tag, "SessionStoreError")
      assert.strictEqual(error.reason._tag === "SessionStoreError" && error.reason.reason._tag, "Timeout")
      assert.include(error.message, "loadTimeout")
      // The CLI never asked the model anything.
      const server = yield* ScriptedServer.ScriptedServer
      assert.deepStrictEqual(yield* server.requests, [])
    }).pipe(Effect.provide([Scripted.layer(Script.make([Script.turn("Hi.")])), NodeServices.layer])))

  it.live("a store with persistSession: false is InvalidOptions", () =>
    Effect.gen(function*() {
      const error = yield* ClaudeCli.query("Hello", { sessionStore: MemorySessionStore.make(), persistSession: false }).pipe(
        Stream.runDrain,
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "InvalidOptions")
      assert.include(error.message, "persistSession")
    }).pipe(Effect.provide([Scripted.layer(Script.make([Script.turn("Hi.")])), NodeServices.layer])))

  describe("a replayed recording (Fixture)", () => {
    it.live("mirrors its frames into the store as the live run did", () =>
      Effect.gen(function*() {
        const dir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "replay-" })))
        const file = path.join(dir, "run.jsonl")
        const live = MemorySessionStore.make()
        const scripted = yield* Layer.build(Scripted.layer(Script.make([Script.turn("Hi.")])))
        const sandbox = Context.get(scripted, Scripted.Sandbox)
        const recorded = yield* ClaudeCli.query("Hello", { sessionStore: live }).pipe(
          Stream.runCollect,
          Effect.provide(Recording.layer(file)(Layer.succeedContext(scripted)))
        )
        const sessionId = recorded.flatMap((m) => m._tag === "SystemInit" ? [m.session_id] : [])[0]!
        const key = { projectKey: ProjectKey.fromPath(sandbox.cwd), sessionId }
        const stored = Option.getOrThrow(yield* live.load(key))
        assert.isAbove(stored.length, 1)

        // Replayed elsewhere (no sandbox, another config directory): the same entries under the same key.
        const replayed = MemorySessionStore.make()
        const out = yield* ClaudeCli.query("Hello", { sessionStore: replayed, resume: sessionId }).pipe(
          Stream.runCollect,
          Effect.provide(Fixture.layer(file))
        )
        assert.deepStrictEqual(out.filter((m) => m._tag === "SystemMirrorError"), [])
        assert.isFalse(out.some((m) => m.type === "transcript_mirror"))
        assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Hi."))
        assert.deepStrictEqual(Option.getOrThrow(yield* replayed.load(key)), stored)
        assert.deepStrictEqual(
          (yield* replayed.listSessionSummaries(key.projectKey)).map((x) => x.data),
          (yield* live.listSessionSummaries(key.projectKey)).map((x) => x.data)
        )
      }).pipe(Effect.provide(NodeServices.layer)), 120_000)

    it.effect("without frames ends with one mirror_error, and the store is left alone", () =>
      Effect.gen(function*() {
        const { store, calls } = recording()
        const out = yield* ClaudeCli.query("Hello", { sessionStore: store }).pipe(
          Stream.runCollect,
          Effect.provide(Fixture.layer(path.join(fixturesDir, "recorded", "simple_hello.jsonl")))
        )
        const errors = out.filter((m) => m._tag === "SystemMirrorError")
        assert.strictEqual(errors.length, 1)
        assert.include(errors[0].error, "no transcript_mirror frames")
        assert.isTrue(out.some((m) => m._tag === "ResultSuccess"))
        assert.deepStrictEqual(calls, [])
      }))

    it("keys a recorded frame by its path under projects/", () => {
      assert.deepStrictEqual(SessionMirror.recordedKeyOf("/tmp/sandbox/projects/x/config/projects/-work-app/s1.jsonl"), {
        projectKey: "-work-app",
        sessionId: "s1"
      })
      assert.deepStrictEqual(SessionMirror.recordedKeyOf("/c/projects/-work-app/s1/subagents/agent-a.jsonl"), {
        projectKey: "-work-app",
        sessionId: "s1",
        subpath: "subagents/agent-a"
      })
      assert.isUndefined(SessionMirror.recordedKeyOf("/tmp/elsewhere/s1.jsonl"))
    })
  })

  it.live("options are checked before a resume writes the stored session into the config directory", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const store = MemorySessionStore.make()
      const projectKey = ProjectKey.fromPath(sandbox.cwd)
      const sessionId = "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11"
      yield* store.append({ projectKey, sessionId }, [{ type: "user", uuid: "u1", message: { role: "user", content: "Hi" } }])
      const configDir = sandbox.env.CLAUDE_CONFIG_DIR!
      const before = fs.readdirSync(configDir, { recursive: true })
      const error = yield* ClaudeCli.query("Hello", { resume: sessionId, sessionStore: store, persistSession: false }).pipe(
        Stream.runDrain,
        Effect.flip
      )
      assert.strictEqual(error.reason._tag, "InvalidOptions")
      assert.deepStrictEqual(fs.readdirSync(configDir, { recursive: true }), before)
      // A session too.
      const refused = yield* Effect.flip(Effect.scoped(ClaudeCli.session({ resume: sessionId, sessionStore: store, persistSession: false })))
      assert.strictEqual(refused.reason._tag, "InvalidOptions")
      assert.deepStrictEqual(fs.readdirSync(configDir, { recursive: true }), before)
    }).pipe(Effect.provide([Scripted.layer(Script.make([Script.turn("Hi.")])), NodeServices.layer])))

  layer(NodeServices.layer, { excludeTestServices: true })("a subagent's metadata goes with its transcript", (it) => {
    const subagentLayer = () =>
      Scripted.layer(Scenarios.subagent.script({ cwd: "", home: "" }), { files: { "a.txt": "a\n", "b.txt": "b\n" } })
    // The `.meta.json` sidecars under a config directory, by file name.
    const sidecars = (configDir: string) =>
      Object.fromEntries(
        fs.readdirSync(path.join(configDir, "projects"), { recursive: true, encoding: "utf8" })
          .filter((name) => name.endsWith(".meta.json"))
          .map((name) => [path.basename(name), JSON.parse(fs.readFileSync(path.join(configDir, "projects", name), "utf8"))])
      )

    it.effect("mirrored by the CLI, restored on a resume elsewhere; imported, restored by materialize", () =>
      Effect.gen(function*() {
        const store = MemorySessionStore.make()
        const imported = MemorySessionStore.make()
        const first = yield* Effect.gen(function*() {
          const sandbox = yield* Scripted.Sandbox
          const out = yield* ClaudeCli.query(Scenarios.subagent.prompt, { allowedTools: ["Bash", "Task"], sessionStore: store }).pipe(
            Stream.runCollect
          )
          const sessionId = out.flatMap((m) => m._tag === "SystemInit" ? [m.session_id] : [])[0]!
          const configDir = sandbox.env.CLAUDE_CONFIG_DIR!
          const projectKey = ProjectKey.fromPath(fs.realpathSync(sandbox.cwd))
          yield* SessionTransfer.importSession(imported, { configDir, projectKey, sessionId })
          return { sessionId, projectKey, written: sidecars(configDir) }
        }).pipe(Effect.provide(subagentLayer()))
        const written = first.written
        const [name] = Object.keys(written)
        assert.match(name!, /^agent-.+\.meta\.json$/)
        const fields = (meta: Record<string, unknown>) => ({ agentType: meta.agentType, toolUseId: meta.toolUseId, description: meta.description })
        // Resumed on a machine that never saw the session.
        const restored = yield* Effect.gen(function*() {
          const sandbox = yield* Scripted.Sandbox
          yield* ClaudeCli.query("And now?", { resume: first.sessionId, sessionStore: { store, projectKey: first.projectKey } }).pipe(
            Stream.runDrain
          )
          return sidecars(sandbox.env.CLAUDE_CONFIG_DIR!)
        }).pipe(Effect.provide(subagentLayer()))
        assert.deepStrictEqual(Object.keys(restored), [name])
        assert.deepStrictEqual(fields(restored[name!]), fields(written[name!]))
        assert.isString(written[name!].toolUseId)
        // Imported from files and materialized into a fresh config directory: the sidecar as it was.
        const fresh = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "config-" })))
        assert.isTrue(yield* SessionTransfer.materialize(imported, first, { configDir: fresh, projectKey: first.projectKey }))
        assert.deepStrictEqual(sidecars(fresh), written)
        const transcript = path.join(fresh, "projects", first.projectKey, first.sessionId, "subagents", name!.replace(".meta.json", ".jsonl"))
        assert.notInclude(fs.readFileSync(transcript, "utf8"), "agent_metadata")
      }), 180_000)
  })
})
