/**
 * Sessions by their id alone: a session mirrored into each kind of store from one machine is resumed (the
 * real CLI, another working directory, so another project key), read and forked from another by its id,
 * with no project key given, and the resumed turns stay in its project of the store; the same id in two
 * projects is `AmbiguousSession` naming them. The same for
 * the config directory, `Sessions` through `SessionFiles`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import type * as QueryOptions from "../../src/QueryOptions.ts"
import * as Transcript from "../../src/transcript/Transcript.ts"
import * as ProjectKey from "../../src/store/ProjectKey.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import type * as Sessions from "../../src/store/Sessions.ts"
import type * as SessionStore from "../../src/store/SessionStore.ts"
import * as StoredSessions from "../../src/store/StoredSessions.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { stores } from "./support/stores.ts"
import * as Keys from "../../src/store/internal/keys.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"

const script = Script.make([Script.turn("Nice to meet you, Ada."), Script.turn("Your name is Ada."), Script.turn("Still Ada.")])

// A query's session id and messages.
const run = (prompt: string, options?: QueryOptions.QueryOptions) =>
  Effect.map(Stream.runCollect(ClaudeCli.query(prompt, options)), (out) => ({
    out,
    sessionId: out.flatMap((m) => m._tag === "SystemInit" ? [m.session_id] : [])[0]!
  }))

// The conversation the model was sent on the last turn request.
const lastRequest = Effect.gen(function*() {
  const server = yield* ScriptedServer.ScriptedServer
  const last = ScriptedServer.turnRequests(yield* server.requests).at(-1)!
  return JSON.stringify(Option.getOrThrow(MessagesRequest.decode(last.body)).messages)
})

const texts = (messages: Iterable<Sessions.SessionMessage>) => Array.from(messages, (m) => Transcript.isMessage(m) ? m.text : "")

// A store holding one session id in two projects.
const inTwoProjects = Effect.gen(function*() {
  const store = MemorySessionStore.make()
  const sessionId = "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11"
  for (const projectKey of ["-work-b", "-work-a"]) {
    yield* store.append({ projectKey, sessionId }, [{ type: "user", uuid: "u1", message: { role: "user", content: "hi" } }])
  }
  return { sessionId, store }
})

describe("sessions by id alone", () => {
  for (const kind of stores) {
    it.live(`${kind.name}: resume, read and fork by id from another project`, () =>
      Effect.gen(function*() {
        const store = yield* kind.make
        // One machine: the session, mirrored under its working directory's project key.
        const { projectKey, sessionId } = yield* Effect.gen(function*() {
          const sandbox = yield* Scripted.Sandbox
          const { sessionId } = yield* run("My name is Ada.", { sessionStore: store })
          return { projectKey: ProjectKey.fromPath(sandbox.cwd), sessionId }
        }).pipe(Effect.provide(Scripted.layer(script)))
        assert.deepStrictEqual(yield* Keys.locate(store, sessionId), { projectKey, sessionId })

        // Another machine, another working directory: resumed by its id alone.
        yield* Effect.gen(function*() {
          const sandbox = yield* Scripted.Sandbox
          assert.notStrictEqual(ProjectKey.fromPath(sandbox.cwd), projectKey)
          const { out } = yield* run("What is my name?", { sessionStore: store, resume: sessionId })
          assert.isTrue(out.some((m) => m._tag === "ResultSuccess"))
          assert.include(yield* lastRequest, "My name is Ada.")
        }).pipe(Effect.provide(Scripted.layer(script)))

        // The resumed turns were stored under the session's project: one session, read by its id.
        assert.deepStrictEqual(yield* Keys.locate(store, sessionId), { projectKey, sessionId })
        const stored = yield* StoredSessions.make(store)
        const read = texts(yield* Stream.runCollect(stored.messages(sessionId)))
        assert.deepStrictEqual(read, ["My name is Ada.", "Nice to meet you, Ada.", "What is my name?", "Your name is Ada."])
        assert.strictEqual(Option.getOrThrow(yield* stored.getSessionInfo(sessionId)).sessionId, sessionId)
        const fork = yield* stored.forkSession(sessionId, { title: "Ada again" })
        assert.deepStrictEqual(yield* Keys.locate(store, fork.sessionId), { projectKey, sessionId: fork.sessionId })
        assert.deepStrictEqual(texts(yield* Stream.runCollect(stored.messages(fork.sessionId))), read)
      }).pipe(Effect.provide(NodeServices.layer)), 180_000)
  }

  it.effect("the same id in two projects of a store: AmbiguousSession naming them; an unknown id: SessionNotFound", () =>
    Effect.gen(function*() {
      const { sessionId, store } = yield* inTwoProjects
      const stored = yield* StoredSessions.make(store)
      const error = yield* Effect.flip(Stream.runCollect(stored.messages(sessionId)))
      assert.strictEqual(error.reason._tag, "AmbiguousSession")
      assert.deepStrictEqual((error.reason as SessionStore.AmbiguousSession).projectKeys, ["-work-a", "-work-b"])
      assert.include(error.message, "-work-a, -work-b")
      // With its project key, there is no doubt.
      assert.strictEqual((yield* Stream.runCollect(stored.messages(sessionId, { projectKey: "-work-a" }))).length, 1)
      const unknown = yield* Effect.flip(stored.renameSession(crypto.randomUUID(), "x"))
      assert.strictEqual(unknown.reason._tag, "SessionNotFound")
      // A store without findProjects says so.
      const { findProjects: _, ...sdkStore } = store
      const cannot = yield* Effect.flip(Effect.flatMap(StoredSessions.make(sdkStore), (s) => s.forkSession(sessionId)))
      assert.strictEqual(cannot.reason._tag, "SessionNotFound")
      assert.include(cannot.message, "findProjects")
    }).pipe(Effect.provide(NodeServices.layer)))

  it.live("a resume by id of a session in two projects of the store fails before the CLI starts", () =>
    Effect.gen(function*() {
      const { sessionId, store } = yield* inTwoProjects
      const error = yield* Effect.flip(run("Hello", { sessionStore: store, resume: sessionId }))
      assert.strictEqual(error.reason._tag, "SessionStoreError")
      assert.include(error.message, "is in 2 projects of the store (-work-a, -work-b)")
      const server = yield* ScriptedServer.ScriptedServer
      assert.deepStrictEqual(ScriptedServer.turnRequests(yield* server.requests), [])
    }).pipe(Effect.provide([Scripted.layer(script), NodeServices.layer])), 120_000)

  it.live("config directory: read, fork and resume by id alone; the same id in two projects is AmbiguousSession", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const configDir = sandbox.env.CLAUDE_CONFIG_DIR!
      const { sessionId } = yield* run("My name is Ada.")
      const files = yield* SessionFiles.make({ configDir })
      const read = texts(yield* Stream.runCollect(files.messages(sessionId)))
      assert.deepStrictEqual(read, ["My name is Ada.", "Nice to meet you, Ada."])
      const fork = yield* files.forkSession(sessionId)
      yield* run("What is my name?", { resume: fork.sessionId })
      assert.include(yield* lastRequest, "Nice to meet you, Ada.")

      // The session copied into another project: by id alone it is ambiguous, with `dir` it is not.
      const projects = path.join(configDir, "projects")
      const home = ProjectKey.fromPath(fs.realpathSync(sandbox.cwd))
      fs.mkdirSync(path.join(projects, "-elsewhere"))
      fs.copyFileSync(path.join(projects, home, `${sessionId}.jsonl`), path.join(projects, "-elsewhere", `${sessionId}.jsonl`))
      const error = yield* Effect.flip(Stream.runCollect(files.messages(sessionId)))
      assert.strictEqual(error.reason._tag, "AmbiguousSession")
      assert.deepStrictEqual(
        (error.reason as SessionStore.AmbiguousSession).directories,
        [path.join(projects, "-elsewhere"), path.join(projects, home)].sort()
      )
      assert.deepStrictEqual(texts(yield* Stream.runCollect(files.messages(sessionId, { dir: sandbox.cwd }))), read)
    }).pipe(Effect.provide([Scripted.layer(script), NodeServices.layer])), 120_000)
})
