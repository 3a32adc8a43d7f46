/**
 * SessionStore: the contract on each store, then the real CLI (scripted model) mirroring a two-turn session
 * into it, and a fresh config directory and a new process resuming the session from the store alone.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it, layer } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import type * as QueryOptions from "../../src/QueryOptions.ts"
import * as ProjectKey from "../../src/store/ProjectKey.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import * as SessionMirror from "../../src/store/SessionMirror.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as SqlSessionStore from "../../src/store/SqlSessionStore.ts"
import * as Sqlite from "../../src/internal/sqlite.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Postgres from "../support/Postgres.ts"
import { stores } from "./support/stores.ts"
import { rawEntries, transcriptCorpusFiles } from "../transcript/support.ts"
import * as DirectorySessionStore from "../../src/store/DirectorySessionStore.ts"
import * as Keys from "../../src/store/internal/keys.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"
import * as StoredSummary from "../../src/store/internal/storedSummary.ts"

const key = { projectKey: "-work-app", sessionId: "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11" }
const entry = (uuid: string | undefined, text: string): SessionStore.Entry => ({ type: uuid === undefined ? "last-prompt" : "user", ...(uuid && { uuid }), text })

// A session as the CLI writes it, in three batches: prompts, replies, a model title, the last prompt, a tag.
const conversation = (): ReadonlyArray<ReadonlyArray<SessionStore.Entry>> => {
  const at = (second: number) => `2026-01-02T03:04:${String(second).padStart(2, "0")}.000Z`
  const envelope = (uuid: string, parentUuid: string | null, second: number, gitBranch: string) =>
    ({ uuid, parentUuid, sessionId: key.sessionId, cwd: "/work/app", gitBranch, timestamp: at(second), isSidechain: false })
  const user = (uuid: string, parent: string | null, second: number, gitBranch: string, text: string) =>
    ({ type: "user", ...envelope(uuid, parent, second, gitBranch), message: { role: "user", content: text } })
  const assistant = (uuid: string, parent: string, second: number, gitBranch: string, text: string) => ({
    type: "assistant",
    ...envelope(uuid, parent, second, gitBranch),
    message: {
      id: `msg_${uuid}`, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text }],
      stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 10, output_tokens: 2 }
    }
  })
  return [
    [user("u1", null, 1, "main", "Rename the module."), assistant("a1", "u1", 2, "main", "Renamed.")],
    [
      { type: "ai-title", aiTitle: "Module renaming", sessionId: key.sessionId },
      user("u2", "a1", 3, "feature", "Now run the tests."),
      assistant("a2", "u2", 4, "feature", "They pass.")
    ],
    [
      { type: "last-prompt", lastPrompt: "Now run the tests.", sessionId: key.sessionId },
      { type: "tag", tag: "wip", sessionId: key.sessionId }
    ]
  ]
}

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
  ...MemorySessionStore.make(),
  append: (key) => Effect.fail(Keys.operationFailed("append", key)(new Error("disk on fire")))
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
        }).pipe(Effect.provide(NodeServices.layer)))

      it.effect("a key that is not a name is InvalidKey, and nothing is touched", () =>
        Effect.gen(function*() {
          const s = yield* store.make
          yield* s.append(key, [entry("u1", "a")])
          const invalid = <A>(effect: Effect.Effect<A, SessionStore.SessionStoreError>, field: string, value: string) =>
            Effect.gen(function*() {
              const error = yield* Effect.flip(effect)
              assert.strictEqual(error.reason._tag, "InvalidKey")
              assert.deepStrictEqual(error.reason._tag === "InvalidKey" && [error.reason.field, error.reason.value], [field, value])
            })
          yield* invalid(s.delete({ projectKey: key.projectKey, sessionId: "" }), "sessionId", "")
          yield* invalid(s.delete({ projectKey: key.projectKey, sessionId: ".." }), "sessionId", "..")
          yield* invalid(s.append({ projectKey: "..", sessionId: "escaped" }, [entry("u2", "b")]), "projectKey", "..")
          yield* invalid(s.append({ projectKey: "a/b", sessionId: "x" }, [entry("u2", "b")]), "projectKey", "a/b")
          yield* invalid(s.append({ ...key, sessionId: "..\\x" }, [entry("u2", "b")]), "sessionId", "..\\x")
          yield* invalid(s.append({ ...key, subpath: "../../escaped" }, [entry("u2", "b")]), "subpath", "../../escaped")
          yield* invalid(s.append({ ...key, subpath: "/abs" }, [entry("u2", "b")]), "subpath", "/abs")
          yield* invalid(s.load({ ...key, subpath: "subagents//a" }), "subpath", "subagents//a")
          yield* invalid(s.listSessions("."), "projectKey", ".")
          yield* invalid(s.listSessionSummaries(""), "projectKey", "")
          yield* invalid(s.listSubkeys({ projectKey: key.projectKey, sessionId: "a\0b" }), "sessionId", "a\0b")
          // The session is still there, alone.
          assert.deepStrictEqual(Option.getOrThrow(yield* s.load(key)).map((e) => e.text), ["a"])
          assert.deepStrictEqual((yield* s.listSessions(key.projectKey)).map((x) => x.sessionId), [key.sessionId])
          assert.deepStrictEqual(yield* s.listSubkeys(key), [])
        }).pipe(Effect.provide(NodeServices.layer)), 60_000)

      it.effect("summaries follow the appends: batches and replays give the summary of the stored entries", () =>
        Effect.gen(function*() {
          const s = yield* store.make
          const batches = conversation()
          for (const batch of batches) yield* s.append(key, batch)
          const [summary, ...others] = yield* s.listSessionSummaries(key.projectKey)
          assert.deepStrictEqual(others, [])
          const stored = Option.getOrThrow(yield* s.load(key))
          assert.deepStrictEqual(summary, { sessionId: key.sessionId, mtime: summary.mtime, data: SessionStore.foldSummary(undefined, stored) })
          // The same clock as listSessions'.
          assert.deepStrictEqual(yield* s.listSessions(key.projectKey), [{ sessionId: key.sessionId, mtime: summary.mtime }])
          // What a listing shows, counted here from the lines themselves.
          const bytes = batches.flat().reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)) + 1, 0)
          assert.deepStrictEqual(yield* StoredSummary.infos(s, key.projectKey), [{
            sessionId: key.sessionId,
            projectKey: key.projectKey,
            summary: "Module renaming",
            lastModified: summary.mtime,
            fileSize: bytes,
            customTitle: undefined,
            firstPrompt: "Rename the module.",
            gitBranch: "feature",
            cwd: "/work/app",
            tag: "wip",
            createdAt: Date.parse("2026-01-02T03:04:01.000Z")
          }])
          // Replayed entries with uuids change nothing, not even the time.
          yield* s.append(key, batches.flat().filter((e) => e.uuid !== undefined))
          assert.deepStrictEqual(yield* s.listSessionSummaries(key.projectKey), [summary])
          // A replay with uuid-less entries appends those again; the summary follows what is stored.
          yield* s.append(key, batches[2])
          const [again] = yield* s.listSessionSummaries(key.projectKey)
          assert.deepStrictEqual(again.data, SessionStore.foldSummary(undefined, Option.getOrThrow(yield* s.load(key))))
          assert.strictEqual(again.data.bytes, bytes + batches[2].reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)) + 1, 0))
          // A subagent's transcript has no summary of its own, and leaves the session's alone.
          yield* s.append({ ...key, subpath: "subagents/agent-a1" }, [{ ...batches[0][0], uuid: "s1", isSidechain: true }])
          assert.deepStrictEqual(yield* s.listSessionSummaries(key.projectKey), [again])
          yield* s.delete(key)
          assert.deepStrictEqual(yield* s.listSessionSummaries(key.projectKey), [])
        }).pipe(Effect.provide(NodeServices.layer)))

      it.effect("concurrent appends to a session fold one after the other", () =>
        Effect.gen(function*() {
          const s = yield* store.make
          const [[prompt]] = conversation()
          // Twelve batches at once, each sharing a uuid with the next, each with a uuid-less entry.
          const batch = (i: number): ReadonlyArray<SessionStore.Entry> => [
            { ...prompt, uuid: `c${i}`, message: { role: "user", content: `prompt ${i}` } },
            { ...prompt, uuid: `c${i + 1}`, message: { role: "user", content: `prompt ${i + 1}` } },
            { type: "last-prompt", lastPrompt: `prompt ${i}`, sessionId: key.sessionId }
          ]
          yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) => s.append(key, batch(i)), { concurrency: "unbounded" })
          const stored = Option.getOrThrow(yield* s.load(key))
          assert.strictEqual(stored.filter((e) => e.uuid !== undefined).length, 13)
          const [summary] = yield* s.listSessionSummaries(key.projectKey)
          assert.deepStrictEqual(summary.data, SessionStore.foldSummary(undefined, stored))
        }).pipe(Effect.provide(NodeServices.layer)), 60_000)

      it.effect("imports a session of a config directory in batches, with its subagents", () =>
        Effect.gen(function*() {
          const s = yield* store.make
          const configDir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "config-" })))
          const dir = path.join(configDir, "projects", key.projectKey)
          const main = path.join(dir, `${key.sessionId}.jsonl`)
          const agent = path.join(dir, key.sessionId, "subagents", "agent-acompact-e1f845.jsonl")
          fs.mkdirSync(path.dirname(agent), { recursive: true })
          fs.copyFileSync(transcriptCorpusFiles.find((f) => f.includes("entireio__cli__24"))!, main)
          fs.copyFileSync(transcriptCorpusFiles.find((f) => f.includes("agent-acompact"))!, agent)
          yield* SessionTransfer.importSession(s, { configDir, ...key }, { batchSize: 7 })
          assert.deepStrictEqual(Option.getOrThrow(yield* s.load(key)), rawEntries(main))
          assert.deepStrictEqual(yield* s.listSubkeys(key), ["subagents/agent-acompact-e1f845"])
          assert.deepStrictEqual(Option.getOrThrow(yield* s.load({ ...key, subpath: "subagents/agent-acompact-e1f845" })), rawEntries(agent))
          const [summary] = yield* s.listSessionSummaries(key.projectKey)
          assert.deepStrictEqual(summary.data, SessionStore.foldSummary(undefined, rawEntries(main) as ReadonlyArray<SessionStore.Entry>))
          // Again: the entries with a uuid are there once.
          yield* SessionTransfer.importSession(s, { configDir, ...key }, { includeSubagents: false })
          const uuids = (es: ReadonlyArray<SessionStore.Entry>) => es.flatMap((e) => e.uuid === undefined ? [] : [e.uuid])
          assert.deepStrictEqual(uuids(Option.getOrThrow(yield* s.load(key))), uuids(rawEntries(main) as ReadonlyArray<SessionStore.Entry>))
        }).pipe(Effect.provide(NodeServices.layer)), 60_000)

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
            const [info] = yield* StoredSummary.infos(s, projectKey)
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
        }).pipe(Effect.provide(NodeServices.layer)), 180_000)
    })
  }

  it.effect("every corpus transcript appended in batches has the summary of the whole", () =>
    Effect.gen(function*() {
      for (const file of transcriptCorpusFiles) {
        const entries = rawEntries(file) as ReadonlyArray<SessionStore.Entry>
        const s = MemorySessionStore.make()
        for (let i = 0; i < entries.length; i += 5) yield* s.append(key, entries.slice(i, i + 5))
        const stored = Option.getOrThrow(yield* s.load(key))
        const summaries = yield* s.listSessionSummaries(key.projectKey)
        assert.deepStrictEqual(summaries.map((x) => x.data), [SessionStore.foldSummary(undefined, stored)], file)
      }
    }))

  it.effect("a relocated session is listed where it moved to", () =>
    Effect.gen(function*() {
      const s = MemorySessionStore.make()
      for (const batch of conversation()) yield* s.append(key, batch)
      assert.strictEqual((yield* StoredSummary.infos(s, key.projectKey))[0].cwd, "/work/app")
      yield* s.append(key, [{ type: "relocated", relocatedCwd: "/work/moved", sessionId: key.sessionId }])
      assert.strictEqual((yield* StoredSummary.infos(s, key.projectKey))[0].cwd, "/work/moved")
    }))

  layer(NodeServices.layer)("a resume never loses a local transcript", (it) => {
    // A config directory whose session file holds `local`, and a store holding `stored`.
    const setup = (local: ReadonlyArray<SessionStore.Entry>, stored: ReadonlyArray<SessionStore.Entry>) =>
      Effect.gen(function*() {
        const configDir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "config-" })))
        const file = path.join(configDir, "projects", key.projectKey, `${key.sessionId}.jsonl`)
        fs.mkdirSync(path.dirname(file), { recursive: true })
        const text = local.map((e) => JSON.stringify(e) + "\n").join("")
        fs.writeFileSync(file, text)
        const s = MemorySessionStore.make()
        yield* s.append(key, stored)
        return { configDir, file, text, s, target: { configDir, projectKey: key.projectKey } }
      })
    const entries = conversation().flat()

    it.effect("a local transcript longer than the stored one is kept (the store missed batches)", () =>
      Effect.gen(function*() {
        const { configDir, file, s, text } = yield* setup(entries, entries.slice(0, 2))
        // What a query with `resume` and a `sessionStore` runs before the CLI starts.
        yield* SessionMirror.restore({ store: s, configDir, cwd: "/work/app" }, key.sessionId)
        assert.strictEqual(fs.readFileSync(file, "utf8"), text)
        assert.deepStrictEqual(fs.readdirSync(path.dirname(file)), [`${key.sessionId}.jsonl`])
      }))

    it.effect("a local transcript the stored one goes on from is replaced by it", () =>
      Effect.gen(function*() {
        const { file, s, target } = yield* setup(entries.slice(0, 2), entries)
        assert.isTrue(yield* SessionTransfer.materialize(s, key, target))
        assert.deepStrictEqual(rawEntries(file), entries)
      }))

    it.effect("a local transcript holding every stored uuid gets the stored entries without one it lacks, once", () =>
      Effect.gen(function*() {
        const title = { type: "custom-title", customTitle: "Renamed", sessionId: key.sessionId }
        // The local copy of the last prompt has its keys in another order: it is held all the same.
        const local = entries.map((e) => e.type === "last-prompt" ? Object.fromEntries(Object.entries(e).reverse()) as SessionStore.Entry : e)
        const { file, s, target, text } = yield* setup(local, [...entries, title])
        assert.isTrue(yield* SessionTransfer.materialize(s, key, target))
        assert.strictEqual(fs.readFileSync(file, "utf8"), text + JSON.stringify(title) + "\n")
        // Again: nothing more.
        yield* SessionTransfer.materialize(s, key, target)
        assert.strictEqual(fs.readFileSync(file, "utf8"), text + JSON.stringify(title) + "\n")
        assert.deepStrictEqual(fs.readdirSync(path.dirname(file)), [`${key.sessionId}.jsonl`])
      }))

    it.effect("a local transcript the store goes on from keeps its own entries without a uuid", () =>
      Effect.gen(function*() {
        const tag = { type: "tag", tag: "local", sessionId: key.sessionId }
        const { file, s, target } = yield* setup([...entries.slice(0, 2), tag], entries)
        yield* SessionTransfer.materialize(s, key, target)
        assert.deepStrictEqual(rawEntries(file), [...entries, tag])
      }))

    it.effect("a conflict in a subagent's transcript writes nothing, not even the main one", () =>
      Effect.gen(function*() {
        const { configDir, file, s, target, text } = yield* setup(entries.slice(0, 2), entries)
        const subkey = { ...key, subpath: "subagents/agent-a1" }
        const agent = path.join(configDir, "projects", key.projectKey, key.sessionId, "subagents", "agent-a1.jsonl")
        fs.mkdirSync(path.dirname(agent), { recursive: true })
        fs.writeFileSync(agent, JSON.stringify(entry("s-local", "x")) + "\n")
        yield* s.append(subkey, [entry("s-stored", "y")])
        const error = yield* Effect.flip(SessionTransfer.materialize(s, key, target))
        assert.strictEqual(error.reason._tag, "TranscriptConflict")
        assert.include(error.message, agent)
        assert.strictEqual(fs.readFileSync(file, "utf8"), text)
        assert.strictEqual(fs.readFileSync(agent, "utf8"), JSON.stringify(entry("s-local", "x")) + "\n")
      }))

    it.effect("a local transcript that differs from the stored one fails, and is left as it was", () =>
      Effect.gen(function*() {
        const other = entries.map((e) => e.uuid === "a1" ? { ...e, uuid: "other" } : e)
        const { file, s, target, text } = yield* setup(other, entries)
        const error = yield* Effect.flip(SessionTransfer.materialize(s, key, target))
        assert.strictEqual(error.reason._tag, "TranscriptConflict")
        assert.include(error.message, "has 1 entry the store lacks, and the store 1 it lacks")
        assert.strictEqual(fs.readFileSync(file, "utf8"), text)
      }))

    it.effect("with onConflict store, a differing local transcript is moved aside and the stored one written", () =>
      Effect.gen(function*() {
        // What a runner fenced out of the conversation left here: a branch the store refused.
        const other = entries.map((e) => e.uuid === "a1" ? { ...e, uuid: "other" } : e)
        const { file, s, target, text } = yield* setup(other, entries)
        assert.isTrue(yield* SessionTransfer.materialize(s, key, { ...target, onConflict: "store" }))
        assert.deepStrictEqual(rawEntries(file), entries)
        const aside = fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith(`${key.sessionId}.jsonl.aside-`))
        assert.strictEqual(aside.length, 1)
        assert.strictEqual(fs.readFileSync(path.join(path.dirname(file), aside[0]!), "utf8"), text)
      }))

    it.effect("with onConflict store, a local transcript longer than the stored one is moved aside too", () =>
      Effect.gen(function*() {
        // What a runner fenced out left here and took the lease back: entries the store refused, which the
        // CLI would go on from, leaving the store's chain a gap.
        const { file, s, target, text } = yield* setup(entries, entries.slice(0, 2))
        assert.isTrue(yield* SessionTransfer.materialize(s, key, { ...target, onConflict: "store" }))
        assert.deepStrictEqual(rawEntries(file), entries.slice(0, 2))
        const aside = fs.readdirSync(path.dirname(file)).filter((name) => name.startsWith(`${key.sessionId}.jsonl.aside-`))
        assert.deepStrictEqual(aside.map((name) => fs.readFileSync(path.join(path.dirname(file), name), "utf8")), [text])
      }))

    it.effect("a transcript that cannot be written fails as materialize, not as load", () =>
      Effect.gen(function*() {
        const { configDir, s } = yield* setup([], entries)
        // Where the session's project directory would go, a file.
        fs.writeFileSync(path.join(configDir, "projects", "-elsewhere"), "")
        const error = yield* Effect.flip(SessionTransfer.materialize(s, key, { configDir, projectKey: "-elsewhere" }))
        assert.strictEqual(error.reason._tag, "OperationFailed")
        assert.strictEqual(error.reason._tag === "OperationFailed" && error.reason.operation, "materialize")
      }))
  })

  it.effect("InvalidKey names the part of a subpath that is not a name", () =>
    Effect.gen(function*() {
      const message = (subpath: string) => Effect.map(Effect.flip(Keys.validateKey("load", { ...key, subpath })), (e) => e.message)
      assert.strictEqual(
        yield* message("subagents/../escaped"),
        `SessionStore.load: invalid subpath "subagents/../escaped": its part ".." names a directory relative to another`
      )
      assert.include(yield* message("subagents//a"), `: its part "" is empty`)
      assert.include(yield* message("subagents/a\0b"), `: its part ${JSON.stringify("a\0b")} has a NUL character`)
      const whole = yield* Effect.flip(Keys.validateKey("load", { ...key, sessionId: ".." }))
      assert.include(whole.message, `invalid sessionId "..": it names a directory relative to another`)
    }))

  it.effect("directory: no key reaches outside the root", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "store-" })))
      const root = path.join(dir, "root")
      const s = yield* DirectorySessionStore.make(root)
      yield* s.append(key, [entry("u1", "a")])
      yield* Effect.flip(s.append({ projectKey: "..", sessionId: "escaped" }, [entry("u2", "b")]))
      yield* Effect.flip(s.delete({ projectKey: key.projectKey, sessionId: "" }))
      yield* Effect.flip(s.delete({ projectKey: ".", sessionId: key.projectKey }))
      assert.deepStrictEqual(fs.readdirSync(dir), ["root"])
      assert.deepStrictEqual(fs.readdirSync(path.join(root, key.projectKey)).sort(), [`${key.sessionId}.jsonl`, `${key.sessionId}.summary.json`])
    }).pipe(Effect.provide(NodeServices.layer)))

  describe("directory: uuids stay the idempotency key across stores on one root", () => {
    const batch = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => entry(`u${from + i}`, "x"))
    const storedUuids = (root: string) =>
      Effect.map(Effect.flatMap(DirectorySessionStore.make(root), (s) => s.load(key)), (loaded) =>
        Option.getOrThrow(loaded).map((e) => e.uuid))

    // Live: a store waiting for the other's lock sleeps on the clock.
    it.live("two stores in one process", () =>
      Effect.gen(function*() {
        const root = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "store-" })))
        const a = yield* DirectorySessionStore.make(root)
        const b = yield* DirectorySessionStore.make(root)
        yield* a.append(key, batch(0, 2))
        yield* b.append(key, batch(0, 3))
        yield* a.append(key, batch(0, 4))
        yield* Effect.all([a.append(key, batch(2, 8)), b.append(key, batch(3, 8))], { concurrency: 2 })
        assert.deepStrictEqual(yield* storedUuids(root), batch(0, 8).map((e) => e.uuid))
        const [summary] = yield* b.listSessionSummaries(key.projectKey)
        assert.strictEqual(summary.data.bytes, fs.statSync(path.join(root, key.projectKey, `${key.sessionId}.jsonl`)).size)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("two processes", () =>
      Effect.gen(function*() {
        const root = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "store-" })))
        const module = path.resolve(import.meta.dirname, "../../src/store/DirectorySessionStore.ts")
        const platform = import.meta.resolve("@effect/platform-node/NodeServices")
        // Each process appends the same 40 entries, one per append.
        const program = `
          import * as DirectorySessionStore from ${JSON.stringify(module)}
          import * as NodeServices from ${JSON.stringify(platform)}
          import * as Effect from "effect/Effect"
          const key = ${JSON.stringify(key)}
          await Effect.runPromise(Effect.gen(function*() {
            const s = yield* DirectorySessionStore.make(${JSON.stringify(root)})
            for (let i = 0; i < 40; i++) yield* s.append(key, [{ type: "user", uuid: "u" + i, message: { role: "user", content: "x" } }])
          }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
        `
        const run = () =>
          Effect.callback<number>((resume) => {
            const child = childProcess.spawn(process.execPath, ["--input-type=module", "-e", program], {
              cwd: path.resolve(import.meta.dirname, "../.."),
              stdio: ["ignore", "ignore", "inherit"]
            })
            child.on("exit", (code) => resume(Effect.succeed(code ?? -1)))
            return Effect.sync(() => child.kill())
          })
        assert.deepStrictEqual(yield* Effect.all([run(), run()], { concurrency: 2 }), [0, 0])
        const uuids = yield* storedUuids(root)
        assert.deepStrictEqual([...uuids].sort(), Array.from({ length: 40 }, (_, i) => `u${i}`).sort())
      }).pipe(Effect.provide(NodeServices.layer)), { timeout: 60_000 })
  })

  it.effect("materialize and restore refuse a key that is not a name", () =>
    Effect.gen(function*() {
      const configDir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "config-" })))
      const s = MemorySessionStore.make()
      yield* s.append(key, [entry("u1", "a")])
      // A store that gives back a subpath outside the session.
      const leaky: SessionStore.Shape = { ...s, listSubkeys: () => Effect.succeed(["../../../escaped"]) }
      const reasons = [
        yield* Effect.flip(SessionTransfer.materialize(s, { ...key, sessionId: "../x" }, { configDir, projectKey: key.projectKey })),
        yield* Effect.flip(SessionTransfer.materialize(s, key, { configDir, projectKey: ".." })),
        yield* Effect.flip(SessionTransfer.materialize(leaky, key, { configDir, projectKey: key.projectKey })),
        yield* Effect.flip(SessionMirror.restore({ store: s, configDir, cwd: "/work/app" }, "../../x"))
      ].map((error) => error.reason._tag === "InvalidKey" ? [error.reason.operation, error.reason.field] : error.reason._tag)
      assert.deepStrictEqual(reasons, [
        ["materialize", "sessionId"],
        ["materialize", "projectKey"],
        ["materialize", "subpath"],
        ["materialize", "sessionId"]
      ])
      assert.isFalse(fs.existsSync(path.join(configDir, "escaped.jsonl")))
    }).pipe(Effect.provide(NodeServices.layer)))

  layer(NodeServices.layer)("where summaries are kept: listing reads them, not the entries", (it) => {
    // Appends the conversation, spoils the entries behind the store's back, and lists again.
    const unchangedWithout = (s: SessionStore.Shape, spoil: Effect.Effect<void>) =>
      Effect.gen(function*() {
        for (const batch of conversation()) yield* s.append(key, batch)
        const summaries = yield* s.listSessionSummaries(key.projectKey)
        const infos = yield* StoredSummary.infos(s, key.projectKey)
        assert.strictEqual(infos[0].summary, "Module renaming")
        yield* spoil
        assert.deepStrictEqual(yield* s.listSessionSummaries(key.projectKey), summaries)
        assert.deepStrictEqual(yield* StoredSummary.infos(s, key.projectKey), infos)
        assert.deepStrictEqual((yield* s.listSessions(key.projectKey)).map((x) => x.sessionId), [key.sessionId])
      })

    it.effect("directory: one summary file per session", () =>
      Effect.gen(function*() {
        const root = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "store-" })))
        const s = yield* DirectorySessionStore.make(root)
        const transcript = path.join(root, key.projectKey, `${key.sessionId}.jsonl`)
        yield* unchangedWithout(s, Effect.sync(() => fs.writeFileSync(transcript, "not a transcript\n")))
        assert.isTrue(fs.existsSync(path.join(root, key.projectKey, `${key.sessionId}.summary.json`)))
        // Reading the spoiled entries is a typed error naming the line.
        const error = yield* Effect.flip(s.load(key))
        assert.strictEqual(error.reason._tag, "InvalidEntry")
        assert.strictEqual(error.reason._tag === "InvalidEntry" && error.reason.operation, "load")
        assert.instanceOf(error.reason._tag === "InvalidEntry" && error.reason.cause, SyntaxError)
        assert.include(error.message, `line 1 of ${transcript} is not a JSON object`)
      }))

    it.effect("directory: a summary that missed a write is folded again from the transcript", () =>
      Effect.gen(function*() {
        const root = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "store-" })))
        const [first, second, third] = conversation()
        yield* Effect.flatMap(DirectorySessionStore.make(root), (s) => s.append(key, first))
        // Lines written by another hand: the summary file does not know them.
        const transcript = path.join(root, key.projectKey, `${key.sessionId}.jsonl`)
        fs.appendFileSync(transcript, second.map((e) => JSON.stringify(e) + "\n").join(""))
        const s = yield* DirectorySessionStore.make(root)
        yield* s.append(key, third)
        const [summary] = yield* s.listSessionSummaries(key.projectKey)
        assert.deepStrictEqual(summary.data, SessionStore.foldSummary(undefined, [...first, ...second, ...third]))
        // A transcript without a summary file is listed from its entries.
        fs.rmSync(path.join(root, key.projectKey, `${key.sessionId}.summary.json`))
        assert.deepStrictEqual((yield* s.listSessionSummaries(key.projectKey))[0].data, summary.data)
      }))

    const sqlStores = [
      {
        name: "SQLite",
        client: Effect.gen(function*() {
          const dir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "store-" })))
          return yield* Layer.build(Sqlite.layer(path.join(dir, "sessions.db")))
        })
      },
      {
        name: "PostgreSQL",
        client: Effect.flatMap(Postgres.start, ({ database, host, port, username }) =>
          Effect.orDie(Layer.build(PgClient.layer({ host, port, username, database }))))
      }
    ]
    for (const { client, name } of sqlStores) {
      it.effect(`${name}: the summaries table`, () =>
        Effect.gen(function*() {
          const context = yield* client
          const sql = Context.get(context, SqlClient.SqlClient)
          const s = yield* Effect.provide(SqlSessionStore.make(), context)
          yield* unchangedWithout(s, Effect.orDie(sql`DROP TABLE claude_session_entries`))
        }), 60_000)

      it.effect(`${name}: sessions stored before the summaries table are summarized when the store is made`, () =>
        Effect.gen(function*() {
          const context = yield* client
          const sql = Context.get(context, SqlClient.SqlClient)
          const before = yield* Effect.provide(SqlSessionStore.make(), context)
          for (const batch of conversation()) yield* before.append(key, batch)
          const summaries = yield* before.listSessionSummaries(key.projectKey)
          yield* Effect.orDie(sql`DROP TABLE claude_session_summaries`)
          const after = yield* Effect.provide(SqlSessionStore.make(), context)
          assert.deepStrictEqual(yield* after.listSessionSummaries(key.projectKey), summaries)
        }), 60_000)
    }

    for (const { client, name } of sqlStores) {
      it.effect(`${name}: an entries table the store cannot use fails its making with Unavailable`, () =>
        Effect.gen(function*() {
          const context = yield* client
          const sql = Context.get(context, SqlClient.SqlClient)
          yield* Effect.orDie(sql`CREATE TABLE claude_session_entries (x INTEGER)`)
          const error = yield* Effect.flip(Effect.provide(SqlSessionStore.make(), context))
          assert.strictEqual(error.reason._tag, "Unavailable")
          assert.include(error.message, "claude_session_entries")
        }), 60_000)

      it.effect(`${name}: one append of 20,000 entries, and its replay`, () =>
        Effect.gen(function*() {
          const s = yield* Effect.provide(SqlSessionStore.make(), yield* client)
          const many = Array.from({ length: 20_000 }, (_, i) => entry(i % 1000 === 0 ? undefined : `u${i}`, `t${i}`))
          yield* s.append(key, many)
          yield* s.append(key, many.filter((e) => e.uuid !== undefined))
          yield* s.append({ ...key, subpath: "subagents/agent-a" }, many)
          const loaded = Option.getOrThrow(yield* s.load(key))
          assert.deepStrictEqual(loaded.map((e) => e.text), many.map((e) => e.text))
          assert.strictEqual(Option.getOrThrow(yield* s.load({ ...key, subpath: "subagents/agent-a" })).length, 20_000)
          const [summary] = yield* s.listSessionSummaries(key.projectKey)
          assert.deepStrictEqual(summary.data, SessionStore.foldSummary(undefined, many))
        }), 120_000)
    }

    it.effect("SQLite: a file that cannot be opened fails the layer with Unavailable", () =>
      Effect.gen(function*() {
        const dir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "store-" })))
        const garbage = path.join(dir, "garbage.db")
        fs.writeFileSync(garbage, "not a database, not even close".repeat(100))
        for (const filename of [path.join(dir, "missing", "sessions.db"), garbage]) {
          const exit = yield* Effect.exit(Layer.build(SqlSessionStore.layerSqlite({ filename })))
          assert.isTrue(exit._tag === "Failure" && !Cause.hasDies(exit.cause), filename)
          const error = yield* Effect.flip(Layer.build(SqlSessionStore.layerSqlite({ filename })))
          assert.strictEqual(error.reason._tag, "Unavailable")
          assert.include(error.message, filename)
        }
      }))
  })

  it.live("a multi-turn session mirrored into a store resumes elsewhere from it", () =>
    Effect.gen(function*() {
      const store = MemorySessionStore.make()
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

  it.live("a resume where the session ran keeps the turns its store missed", () =>
    Effect.gen(function*() {
      const s = MemorySessionStore.make()
      const first = yield* mirrored(s, "My name is Ada.")
      // The second turn's appends fail: the store misses them, the local transcript has them.
      const second = yield* mirrored({ ...s, append: failing.append }, "What is 2 + 2?", { resume: first.sessionId })
      assert.isAbove(second.out.filter((m) => m._tag === "SystemMirrorError").length, 0)
      const { out } = yield* mirrored(s, "What is my name?", { resume: first.sessionId })
      assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Your name is Ada."))
      const server = yield* ScriptedServer.ScriptedServer
      const last = ScriptedServer.turnRequests(yield* server.requests).map((r) => Option.getOrThrow(MessagesRequest.decode(r.body))).at(-1)!
      const history = JSON.stringify(last.messages)
      for (const text of ["My name is Ada.", "What is 2 + 2?", "2 + 2 = 4."]) assert.include(history, text)
    }).pipe(Effect.provide([Scripted.layer(script), NodeServices.layer])), 120_000)

  it.live("a resume from a cwd under a symbolic link writes the session where the CLI looks", () =>
    Effect.gen(function*() {
      const s = MemorySessionStore.make()
      const stored = yield* Effect.gen(function*() {
        const first = yield* mirrored(s, "My name is Ada.")
        return { projectKey: ProjectKey.fromPath(first.sandbox.cwd), sessionId: first.sessionId }
      }).pipe(Effect.provide(Scripted.layer(script)))
      // Another machine, whose working directory is reached through a link (as macOS's /tmp is).
      yield* Effect.gen(function*() {
        const sandbox = yield* Scripted.Sandbox
        const links = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "links-" })))
        const cwd = path.join(links, "work")
        fs.symlinkSync(sandbox.cwd, cwd)
        const { out } = yield* mirrored(s, "What is my name?", { projectKey: stored.projectKey, resume: stored.sessionId, cwd })
        assert.isTrue(out.some((m) => m._tag === "ResultSuccess"))
        assert.isTrue(fs.existsSync(path.join(sandbox.env.CLAUDE_CONFIG_DIR!, "projects", ProjectKey.fromPath(sandbox.cwd), `${stored.sessionId}.jsonl`)))
        const server = yield* ScriptedServer.ScriptedServer
        const [request] = ScriptedServer.turnRequests(yield* server.requests).map((r) => Option.getOrThrow(MessagesRequest.decode(r.body)))
        for (const text of ["My name is Ada.", "Nice to meet you, Ada."]) assert.include(JSON.stringify(request.messages), text)
      }).pipe(Effect.scoped, Effect.provide(Scripted.layer(script)))
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)

  it.live("a title set through the store reaches a resume where the session ran", () =>
    Effect.gen(function*() {
      const s = MemorySessionStore.make()
      const first = yield* mirrored(s, "My name is Ada.")
      const sessionKey = { projectKey: ProjectKey.fromPath(first.sandbox.cwd), sessionId: first.sessionId }
      // The title as the CLI writes one (no uuid), mirrored from another machine: the local file lacks it.
      yield* s.append(sessionKey, [{ type: "custom-title", customTitle: "Ada's session", sessionId: first.sessionId }])
      const { out } = yield* mirrored(s, "What is 2 + 2?", { resume: first.sessionId })
      assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "2 + 2 = 4."))
      // The transcript the CLI resumed from and went on writing has it, and its listing shows it.
      const files = yield* SessionFiles.make({ configDir: first.sandbox.env.CLAUDE_CONFIG_DIR! })
      assert.strictEqual(Option.getOrThrow(yield* files.getSessionInfo(first.sessionId)).customTitle, "Ada's session")
      // Resumed again: still one copy.
      yield* mirrored(s, "What is my name?", { resume: first.sessionId })
      const file = path.join(first.sandbox.env.CLAUDE_CONFIG_DIR!, "projects", sessionKey.projectKey, `${first.sessionId}.jsonl`)
      assert.strictEqual(rawEntries(file).filter((e) => e.type === "custom-title").length, 1)
    }).pipe(Effect.provide([Scripted.layer(script), NodeServices.layer])), 120_000)

  it.live("a store that fails gives mirror_error events and the run goes on", () =>
    Effect.gen(function*() {
      const { out } = yield* mirrored(failing, "Hello")
      const errors = out.filter((m) => m._tag === "SystemMirrorError")
      assert.isAbove(errors.length, 0)
      assert.include(errors[0].error, "disk on fire")
      assert.isTrue(out.some((m) => m._tag === "ResultSuccess" && m.result === "Hi."))
    }).pipe(Effect.provide([Scripted.layer(script), NodeServices.layer])), 120_000)
})
