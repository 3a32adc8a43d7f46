/**
 * StoredSessions: a session imported into a store reads as SessionFiles reads its files (messages, subagents,
 * info), and forks into the store.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as StoredSessions from "../../src/store/StoredSessions.ts"
import { transcriptCorpusFiles } from "../transcript/support.ts"

const key = { projectKey: "-work-app", sessionId: "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11" }

// A config directory with one session (a corpus transcript) and a subagent under it (with `meta` beside it,
// if given), imported into a store.
const importedWith = (meta?: object) => Effect.gen(function*() {
  const configDir = yield* Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "config-" })))
  const dir = path.join(configDir, "projects", key.projectKey)
  const agent = path.join(dir, key.sessionId, "subagents", "agent-acompact-e1f845.jsonl")
  fs.mkdirSync(path.dirname(agent), { recursive: true })
  fs.copyFileSync(transcriptCorpusFiles.find((f) => f.includes("entireio__cli__24"))!, path.join(dir, `${key.sessionId}.jsonl`))
  fs.copyFileSync(transcriptCorpusFiles.find((f) => f.includes("agent-acompact"))!, agent)
  if (meta !== undefined) fs.writeFileSync(agent.replace(/\.jsonl$/, ".meta.json"), JSON.stringify(meta))
  const store = SessionStore.makeMemory()
  yield* SessionStore.importSession(store, { configDir, ...key })
  return { store, files: yield* SessionFiles.make({ configDir }) }
})
const imported = importedWith()

const uuids = (messages: Iterable<{ readonly uuid: string }>) => Array.from(messages, (m) => m.uuid)

describe("StoredSessions", () => {
  it.effect("reads a stored session as SessionFiles reads its files", () =>
    Effect.gen(function*() {
      const { files, store } = yield* imported
      const fromFiles = uuids(yield* Stream.runCollect(files.messages(key.sessionId)))
      assert.isAbove(fromFiles.length, 2)
      assert.deepStrictEqual(uuids(yield* Stream.runCollect(StoredSessions.messages(store, key))), fromFiles)
      const page = { includeSystemMessages: true, offset: 1, limit: 3 }
      assert.deepStrictEqual(
        uuids(yield* Stream.runCollect(StoredSessions.messages(store, key, page))),
        uuids(yield* Stream.runCollect(files.messages(key.sessionId, page)))
      )
      const agents = yield* StoredSessions.listSubagents(store, key)
      assert.deepStrictEqual(agents.map((a) => a.agentId), (yield* files.listSubagents(key.sessionId)).map((a) => a.agentId))
      const agentMessages = uuids(yield* Stream.runCollect(files.subagentMessages(key.sessionId, "acompact-e1f845")))
      assert.isAbove(agentMessages.length, 0)
      assert.deepStrictEqual(uuids(yield* Stream.runCollect(StoredSessions.subagentMessages(store, key, "acompact-e1f845"))), agentMessages)
      assert.deepStrictEqual(yield* Stream.runCollect(StoredSessions.subagentMessages(store, key, "nobody")), [])
      // The same info but for the store's own time and size.
      const { fileSize: _, lastModified: __, ...info } = Option.getOrThrow(yield* StoredSessions.getSessionInfo(store, key))
      const { fileSize: ___, lastModified: ____, ...onDisk } = Option.getOrThrow(yield* files.getSessionInfo(key.sessionId))
      assert.deepStrictEqual(info, onDisk)
      assert.isTrue(Option.isNone(yield* StoredSessions.getSessionInfo(store, { ...key, sessionId: "elsewhere" })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("lists a stored session's subagents with their metadata, as SessionFiles lists a file's", () =>
    Effect.gen(function*() {
      const meta = { agentType: "general-purpose", description: "Look around", toolUseId: "toolu_01", spawnDepth: 1 }
      const { files, store } = yield* importedWith(meta)
      const stored = yield* StoredSessions.listSubagents(store, key)
      // The subpath is the store's key (no `.jsonl`), the rest as the file's.
      const withoutSubpath = (agents: ReadonlyArray<SessionFiles.SubagentInfo>) => agents.map(({ subpath: _, ...rest }) => rest)
      assert.deepStrictEqual(withoutSubpath(stored), withoutSubpath(yield* files.listSubagents(key.sessionId)))
      assert.deepStrictEqual(stored, [{ agentId: "acompact-e1f845", subpath: "subagents/agent-acompact-e1f845", ...meta }])
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("forks a stored session into the store", () =>
    Effect.gen(function*() {
      const { store } = yield* imported
      const source = yield* Stream.runCollect(StoredSessions.messages(store, key))
      const fork = yield* StoredSessions.forkSession(store, key, { title: "Branch", upToMessageId: source[1].uuid })
      const forked = yield* Stream.runCollect(StoredSessions.messages(store, { ...key, sessionId: fork.sessionId }))
      // The first two messages, under fresh uuids.
      const content = (ms: ReadonlyArray<StoredSessions.SessionMessage>) => ms.map((m) => "message" in m ? m.message : m.type)
      assert.deepStrictEqual(content(forked), content(source.slice(0, 2)))
      assert.isFalse(forked.some((m) => uuids(source).includes(m.uuid)))
      assert.strictEqual(Option.getOrThrow(yield* StoredSessions.getSessionInfo(store, { ...key, sessionId: fork.sessionId })).summary, "Branch")
      const missing = yield* Effect.flip(StoredSessions.forkSession(store, { ...key, sessionId: "6c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11" }))
      assert.strictEqual(missing._tag === "SessionFilesError" ? missing.reason._tag : missing._tag, "SessionNotFound")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

  it.effect("renames and tags a stored session", () =>
    Effect.gen(function*() {
      const { store } = yield* imported
      const info = () => Effect.map(StoredSessions.getSessionInfo(store, key), Option.getOrThrow)
      yield* StoredSessions.renameSession(store, key, "  Release notes ")
      yield* StoredSessions.tagSession(store, key, "docs")
      assert.deepInclude(yield* info(), { summary: "Release notes", customTitle: "Release notes", tag: "docs" })
      yield* StoredSessions.tagSession(store, key, null)
      assert.isUndefined((yield* info()).tag)
      const blank = yield* Effect.flip(StoredSessions.renameSession(store, key, " "))
      assert.include(blank.message, "blank")
      assert.strictEqual(blank.reason._tag, "InvalidEntry")
      assert.strictEqual((yield* info()).summary, "Release notes")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
