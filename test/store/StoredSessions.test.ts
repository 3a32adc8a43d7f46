/**
 * Sessions over a store (StoredSessions): a session imported into a store reads as over the config directory
 * (SessionFiles) it came from (messages, subagents, info), and forks into the store.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import type * as Sessions from "../../src/store/Sessions.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"
import * as StoredSessions from "../../src/store/StoredSessions.ts"
import { transcriptCorpusFiles } from "../transcript/support.ts"

const key = { projectKey: "-work-app", sessionId: "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11" }
// The session's project, as a lookup.
const at = { projectKey: key.projectKey }

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
  const store = MemorySessionStore.make()
  yield* SessionTransfer.importSession(store, { configDir, ...key })
  return { store, stored: yield* StoredSessions.make(store), files: yield* SessionFiles.make({ configDir }) }
})
const imported = importedWith()

const uuids = (messages: Iterable<{ readonly uuid: string }>) => Array.from(messages, (m) => m.uuid)

layer(NodeServices.layer)("Sessions over a store", (it) => {
  it.effect("reads a stored session as SessionFiles reads its files", () =>
    Effect.gen(function*() {
      const { files, stored } = yield* imported
      const fromFiles = uuids(yield* Stream.runCollect(files.messages(key.sessionId)))
      assert.isAbove(fromFiles.length, 2)
      assert.deepStrictEqual(uuids(yield* Stream.runCollect(stored.messages(key.sessionId, at))), fromFiles)
      const page = { includeSystemMessages: true, offset: 1, limit: 3 }
      assert.deepStrictEqual(
        uuids(yield* Stream.runCollect(stored.messages(key.sessionId, { ...at, ...page }))),
        uuids(yield* Stream.runCollect(files.messages(key.sessionId, page)))
      )
      const agents = yield* stored.listSubagents(key.sessionId, at)
      assert.deepStrictEqual(agents.map((a) => a.agentId), (yield* files.listSubagents(key.sessionId)).map((a) => a.agentId))
      const agentMessages = uuids(yield* Stream.runCollect(files.subagentMessages(key.sessionId, "acompact-e1f845")))
      assert.isAbove(agentMessages.length, 0)
      assert.deepStrictEqual(uuids(yield* Stream.runCollect(stored.subagentMessages(key.sessionId, "acompact-e1f845", at))), agentMessages)
      assert.deepStrictEqual(yield* Stream.runCollect(stored.subagentMessages(key.sessionId, "nobody", at)), [])
      // The same info but for the store's own time and size.
      const { fileSize: _, lastModified: __, ...info } = Option.getOrThrow(yield* stored.getSessionInfo(key.sessionId, at))
      const { fileSize: ___, lastModified: ____, ...onDisk } = Option.getOrThrow(yield* files.getSessionInfo(key.sessionId))
      assert.deepStrictEqual(info, onDisk)
      assert.isTrue(Option.isNone(yield* stored.getSessionInfo("elsewhere", at)))
    }))

  it.effect("lists a stored session's subagents with their metadata, as SessionFiles lists a file's", () =>
    Effect.gen(function*() {
      const meta = { agentType: "general-purpose", description: "Look around", toolUseId: "toolu_01", spawnDepth: 1 }
      const { files, stored: sessions } = yield* importedWith(meta)
      const stored = yield* sessions.listSubagents(key.sessionId, at)
      // The subpath is the store's key (no `.jsonl`), the rest as the file's.
      const withoutSubpath = (agents: ReadonlyArray<Sessions.SubagentInfo>) => agents.map(({ subpath: _, ...rest }) => rest)
      assert.deepStrictEqual(withoutSubpath(stored), withoutSubpath(yield* files.listSubagents(key.sessionId)))
      assert.deepStrictEqual(stored, [{ agentId: "acompact-e1f845", subpath: "subagents/agent-acompact-e1f845", ...meta }])
    }))

  it.effect("forks a stored session into the store", () =>
    Effect.gen(function*() {
      const { stored } = yield* imported
      const source = yield* Stream.runCollect(stored.messages(key.sessionId, at))
      const fork = yield* stored.forkSession(key.sessionId, { ...at, title: "Branch", upToMessageId: source[1].uuid })
      const forked = yield* Stream.runCollect(stored.messages(fork.sessionId, at))
      // The first two messages, under fresh uuids.
      const content = (ms: ReadonlyArray<Sessions.SessionMessage>) => ms.map((m) => "message" in m ? m.message : m.type)
      assert.deepStrictEqual(content(forked), content(source.slice(0, 2)))
      assert.isFalse(forked.some((m) => uuids(source).includes(m.uuid)))
      assert.strictEqual(Option.getOrThrow(yield* stored.getSessionInfo(fork.sessionId, at)).summary, "Branch")
      const missing = yield* Effect.flip(stored.forkSession("6c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11", at))
      assert.strictEqual(missing.reason._tag, "SessionNotFound")
    }))

  it.effect("lists, reads entries and deletes as over the config directory, in a project named or found", () =>
    Effect.gen(function*() {
      const { files, store, stored } = yield* imported
      for (const sessions of [files, stored]) {
        const listed = yield* sessions.listSessions(at)
        assert.deepStrictEqual(listed.map((i) => i.sessionId), [key.sessionId])
        assert.deepStrictEqual(yield* sessions.listSessions({ ...at, offset: 1 }), [])
        const entries = yield* Stream.runCollect(sessions.entries(key.sessionId))
        assert.deepStrictEqual(entries.map((e) => e.line), entries.map((_, i) => i + 1))
        yield* sessions.deleteSession(key.sessionId)
        assert.isTrue(Option.isNone(yield* sessions.getSessionInfo(key.sessionId, at)))
        // A project key that is no name is refused before anything is read.
        const invalid = yield* Effect.flip(sessions.listSessions({ projectKey: "../x" }))
        assert.strictEqual(invalid.reason._tag, "InvalidKey")
      }
      assert.deepStrictEqual(yield* store.listSessions(key.projectKey), [])
    }))

  it.effect("renames and tags a stored session", () =>
    Effect.gen(function*() {
      const { stored } = yield* imported
      const info = () => Effect.map(stored.getSessionInfo(key.sessionId, at), Option.getOrThrow)
      yield* stored.renameSession(key.sessionId, "  Release notes ", at)
      yield* stored.tagSession(key.sessionId, "docs", at)
      assert.deepInclude(yield* info(), { summary: "Release notes", customTitle: "Release notes", tag: "docs" })
      yield* stored.tagSession(key.sessionId, null, at)
      assert.isUndefined((yield* info()).tag)
      const blank = yield* Effect.flip(stored.renameSession(key.sessionId, " ", at))
      assert.include(blank.message, "blank")
      assert.strictEqual(blank.reason._tag, "InvalidEntry")
      assert.strictEqual((yield* info()).summary, "Release notes")
    }))
})
