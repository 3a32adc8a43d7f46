/**
 * SessionStore: the contract on each store, then the real CLI (scripted model) mirroring a two-turn session
 * into it, and a fresh config directory and a new process resuming the session from the store alone.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Scripted from "../../src/layers/Scripted.ts"
import type * as QueryOptions from "../../src/QueryOptions.ts"
import * as ProjectKey from "../../src/sessions/ProjectKey.ts"
import * as SessionStore from "../../src/sessions/SessionStore.ts"
import * as SqlSessionStore from "../../src/sessions/SqlSessionStore.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Postgres from "../support/Postgres.ts"
import { rawEntries } from "../transcript/support.ts"

const stores: ReadonlyArray<{
  readonly name: string
  readonly make: Effect.Effect<SessionStore.Shape, never, FileSystem.FileSystem | import("effect/Scope").Scope | import("effect/Path").Path>
}> = [
  { name: "memory", make: Effect.provide(Effect.service(SessionStore.SessionStore), SessionStore.layerMemory) },
  {
    name: "directory",
    make: Effect.gen(function*() {
      const fsx = yield* FileSystem.FileSystem
      const root = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-" }))
      return yield* Effect.provide(Effect.service(SessionStore.SessionStore), SessionStore.layerDirectory(root))
    })
  },
  {
    name: "SQLite",
    make: Effect.gen(function*() {
      const fsx = yield* FileSystem.FileSystem
      const dir = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-" }))
      // Built in the test's scope: the database stays open until the test ends.
      const context = yield* Layer.build(SqlSessionStore.layerSqlite({ filename: path.join(dir, "sessions.db") }))
      return Context.get(context, SessionStore.SessionStore)
    })
  },
  {
    name: "PostgreSQL",
    make: Effect.gen(function*() {
      const server = yield* Postgres.start
      const { database, host, port, username } = server
      const context = yield* Layer.build(PgClient.layer({ host, port, username, database })).pipe(Effect.orDie)
      return yield* SqlSessionStore.make().pipe(Effect.provide(context))
    })
  }
]

const key = { projectKey: "-work-app", sessionId: "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11" }
const entry = (uuid: string | undefined, text: string): SessionStore.Entry => ({ type: uuid === undefined ? "last-prompt" : "user", ...(uuid && { uuid }), text })

const script = Script.make([Script.turn("Hi.")], {
  subagents: [
    Script.conversation("ada", MessagesRequest.firstUserTextIncludes("My name is Ada"), [
      Script.turn("Nice to meet you, Ada."),
      Script.turn("2 + 2 = 4."),
      Script.turn("Your name is Ada.")
    ])
  ]
})

// A query with the CLI's transcript mirrored into `store`.
const mirrored = (store: SessionStore.Shape, prompt: string, options: QueryOptions.QueryOptions & { readonly projectKey?: string } = {}) =>
  Effect.gen(function*() {
    const sandbox = yield* Scripted.Sandbox
    const { projectKey, ...query } = options
    // The config directory comes from the layer's environment, the project from the sandbox's cwd.
    const out = yield* ClaudeCli.query(prompt, { ...query, sessionStore: projectKey === undefined ? store : { store, projectKey } }).pipe(Stream.runCollect)
    const sessionId = out.flatMap((m) => m._tag === "SystemInit" ? [m.session_id] : [])[0]!
    return { out, sessionId, sandbox }
  })

const failing: SessionStore.Shape = {
  ...SessionStore.makeMemory(),
  append: (key) => Effect.fail(new SessionStore.SessionStoreError({ operation: "append", key: SessionStore.keyString(key), cause: new Error("disk on fire") }))
}

describe("SessionStore", () => {
  for (const store of stores) {
    describe(store.name, () => {
      it.effect("append is idempotent by uuid; load, list, subkeys, delete", () =>
        Effect.gen(function*() {
          const s = yield* store.make
          assert.isTrue(Option.isNone(yield* s.load(key)))
          yield* s.append(key, [entry("u1", "a"), entry(undefined, "p"), entry("u2", "b")])
          yield* s.append(key, [entry("u2", "b again"), entry("u1", "a again"), entry("u3", "c")])
          const loaded = Option.getOrThrow(yield* s.load(key))
          assert.deepStrictEqual(loaded.map((e) => e.text), ["a", "p", "b", "c"])
          yield* s.append({ ...key, subpath: "subagents/agent-a1" }, [entry("s1", "sub")])
          assert.deepStrictEqual(yield* s.listSubkeys(key), ["subagents/agent-a1"])
          const sessions = yield* s.listSessions(key.projectKey)
          assert.deepStrictEqual(sessions.map((x) => x.sessionId), [key.sessionId])
          assert.isAbove(sessions[0].mtime, 0)
          yield* s.delete(key)
          assert.isTrue(Option.isNone(yield* s.load(key)))
          assert.deepStrictEqual(yield* s.listSubkeys(key), [])
        }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

      it.live("mirrors a two-turn session of the real CLI; a new process resumes it from the store alone", () =>
        Effect.gen(function*() {
          const s = yield* store.make
          // Machine A: two turns, mirrored.
          const stored = yield* Effect.gen(function*() {
            const first = yield* mirrored(s, "My name is Ada.")
            const second = yield* mirrored(s, "What is 2 + 2?", { resume: first.sessionId })
            assert.strictEqual(second.sessionId, first.sessionId)
            assert.deepStrictEqual([...first.out, ...second.out].filter((m) => m._tag === "SystemMirrorError"), [])
            assert.isFalse([...first.out, ...second.out].some((m) => m._tag === "UnknownMessage" && m.raw.type === "transcript_mirror"))
            const projectKey = ProjectKey.fromPath(first.sandbox.cwd)
            const local = rawEntries(path.join(first.sandbox.env.CLAUDE_CONFIG_DIR!, "projects", projectKey, `${first.sessionId}.jsonl`))
            const sessionKey = { projectKey, sessionId: first.sessionId }
            const loaded = Option.getOrThrow(yield* s.load(sessionKey))
            // Every line the CLI saved is in the store, in order.
            assert.deepStrictEqual(loaded.filter((e) => e.uuid !== undefined).map((e) => e.uuid), local.filter((e) => e.uuid !== undefined).map((e) => e.uuid))
            assert.deepStrictEqual(loaded.find((e) => e.uuid === local.find((l) => l.type === "assistant")!.uuid), local.find((l) => l.type === "assistant"))
            // Replaying the same entries leaves one copy of each.
            yield* s.append(sessionKey, loaded)
            const replayed = Option.getOrThrow(yield* s.load(sessionKey))
            assert.deepStrictEqual(replayed.filter((e) => e.uuid !== undefined).map((e) => e.uuid), loaded.filter((e) => e.uuid !== undefined).map((e) => e.uuid))
            // Its summary from the store alone: the last prompt, the first one, where it ran.
            const [info] = yield* SessionStore.listSessionInfo(s, projectKey)
            assert.strictEqual(info.sessionId, first.sessionId)
            assert.strictEqual(info.summary, "What is 2 + 2?")
            assert.strictEqual(info.firstPrompt, "My name is Ada.")
            assert.strictEqual(info.cwd, first.sandbox.cwd)
            return sessionKey
          }).pipe(Effect.provide(Scripted.layer(script)))

          // Machine B: a fresh config directory; the session comes from the store alone.
          yield* Effect.gen(function*() {
            const sandbox = yield* Scripted.Sandbox
            assert.isFalse(fs.existsSync(path.join(sandbox.env.CLAUDE_CONFIG_DIR!, "projects")))
            const server = yield* ScriptedServer.ScriptedServer
            const { out } = yield* mirrored(s, "What is my name?", { resume: stored.sessionId, projectKey: stored.projectKey })
            assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Your name is Ada."))
            // The resumed session goes on in the store, under this machine's project.
            const here = Option.getOrThrow(yield* s.load({ projectKey: ProjectKey.fromPath(sandbox.cwd), sessionId: stored.sessionId }))
            assert.isTrue(here.some((e) => e.type === "assistant" && JSON.stringify(e).includes("Your name is Ada.")))
            const [request] = ScriptedServer.turnRequests(yield* server.requests).map((r) => Option.getOrThrow(MessagesRequest.decode(r.body)))
            const history = JSON.stringify(request.messages)
            for (const text of ["My name is Ada.", "Nice to meet you, Ada.", "What is 2 + 2?", "2 + 2 = 4."]) assert.include(history, text)
          }).pipe(Effect.provide(Scripted.layer(script)))
        }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 180_000)
    })
  }

  it.live("a multi-turn session mirrored into a store resumes elsewhere from it", () =>
    Effect.gen(function*() {
      const store = SessionStore.makeMemory()
      const stored = yield* Effect.gen(function*() {
        const sandbox = yield* Scripted.Sandbox
        const { sessionId, seen } = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* ClaudeCli.session({ sessionStore: store })
          const seen = [...yield* Stream.runCollect(session.turn("My name is Ada.")), ...yield* Stream.runCollect(session.turn("What is 2 + 2?"))]
          return { sessionId: yield* session.sessionId, seen }
        }))
        // No append failed, and the frames went to the store, not to the session's readers.
        assert.deepStrictEqual(seen.filter((m) => m._tag === "SystemMirrorError"), [])
        assert.isFalse(seen.some((m) => m._tag === "UnknownMessage" && m.raw.type === "transcript_mirror"))
        const projectKey = ProjectKey.fromPath(sandbox.cwd)
        const local = rawEntries(path.join(sandbox.env.CLAUDE_CONFIG_DIR!, "projects", projectKey, `${sessionId}.jsonl`))
        const loaded = Option.getOrThrow(yield* store.load({ projectKey, sessionId }))
        const turns = (es: ReadonlyArray<any>) => es.filter((e) => e.type === "user" || e.type === "assistant").map((e) => e.uuid)
        assert.deepStrictEqual(turns(loaded), turns(local))
        assert.strictEqual(turns(local).length, 4)
        return { projectKey, sessionId }
      }).pipe(Effect.provide(Scripted.layer(script)))
      yield* Effect.gen(function*() {
        const { out } = yield* mirrored(store, "What is my name?", { resume: stored.sessionId, projectKey: stored.projectKey })
        assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Your name is Ada."))
      }).pipe(Effect.provide(Scripted.layer(script)))
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  it.live("a store that fails gives mirror_error events and the run goes on", () =>
    Effect.gen(function*() {
      const { out } = yield* mirrored(failing, "Hello")
      const errors = out.filter((m) => m._tag === "SystemMirrorError")
      assert.isAbove(errors.length, 0)
      assert.include(errors[0].error, "disk on fire")
      assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Hi."))
    }).pipe(Effect.provide([Scripted.layer(script), NodeServices.layer])), 120_000)
})
