/**
 * A session's file changed without a live session, as the SDK's functions change it: a title and a tag
 * appended, an archive mark beside it; listings show them, and the real CLI resumes the session after.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import type * as QueryOptions from "../../src/QueryOptions.ts"
import * as ProjectKey from "../../src/store/ProjectKey.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import type * as Sessions from "../../src/store/Sessions.ts"
import * as StoredSessions from "../../src/store/StoredSessions.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Keys from "../../src/store/internal/keys.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"

const script = Script.make([Script.turn("Nice to meet you, Ada."), Script.turn("Your name is Ada."), Script.turn("Still Ada.")])

const run = (prompt: string, options?: QueryOptions.QueryOptions) =>
  Effect.map(Stream.runCollect(ClaudeCli.query(prompt, options)), (out) => ({
    success: out.some((m) => m._tag === "ResultSuccess"),
    sessionId: out.flatMap((m) => m._tag === "SystemInit" ? [m.session_id] : [])[0]!
  }))

// The config directory of the scripted layer's sandbox, and the transcript file of a session in it.
const sandboxFiles = Effect.gen(function*() {
  const sandbox = yield* Scripted.Sandbox
  const configDir = sandbox.env.CLAUDE_CONFIG_DIR!
  const file = (sessionId: string) =>
    path.join(configDir, "projects", ProjectKey.fromPath(fs.realpathSync(sandbox.cwd)), `${sessionId}.jsonl`)
  return { files: yield* SessionFiles.make({ configDir }), configDir, file }
})

const infoOf = (files: Sessions.Shape, sessionId: string) => Effect.map(files.getSessionInfo(sessionId), Option.getOrThrow)

describe("sessions changed offline", () => {
  it.live("rename and tag a session file, then the real CLI resumes it", () =>
    Effect.gen(function*() {
      const { file, files } = yield* sandboxFiles
      const { sessionId } = yield* run("My name is Ada.")
      // A last line cut off, as a crash leaves it: what is appended still starts a line of its own.
      fs.appendFileSync(file(sessionId), "{\"type\":\"user\",\"cut")
      yield* files.renameSession(sessionId, "  Ada's session  ")
      yield* files.tagSession(sessionId, "wip")
      const info = yield* infoOf(files, sessionId)
      assert.deepStrictEqual([info.customTitle, info.summary, info.tag], ["Ada's session", "Ada's session", "wip"])
      const lines = fs.readFileSync(file(sessionId), "utf8").trimEnd().split("\n")
      assert.deepStrictEqual(lines.slice(-2).map((l) => JSON.parse(l).type), ["custom-title", "tag"])

      const resumed = yield* run("What is my name?", { resume: sessionId })
      assert.isTrue(resumed.success)
      assert.strictEqual(resumed.sessionId, sessionId)
      const server = yield* ScriptedServer.ScriptedServer
      const last = ScriptedServer.turnRequests(yield* server.requests).at(-1)!
      assert.include(JSON.stringify(Option.getOrThrow(MessagesRequest.decode(last.body)).messages), "My name is Ada.")
      // The title and tag hold after the CLI wrote more; a null tag clears it.
      const after = yield* infoOf(files, sessionId)
      assert.deepStrictEqual([after.customTitle, after.tag], ["Ada's session", "wip"])
      yield* files.tagSession(sessionId, null)
      assert.isUndefined((yield* infoOf(files, sessionId)).tag)
      for (const [title, tag] of [[" ", "x"], ["x", " \u0007 "]] as const) {
        const error = yield* Effect.flip(title.trim() === "" ? files.renameSession(sessionId, title) : files.tagSession(sessionId, tag))
        assert.strictEqual(error.reason._tag, "InvalidEntry")
      }
    }).pipe(Effect.provide([Scripted.layer(script), NodeServices.layer])), 120_000)

  it.live("archive and unarchive: the mark beside the transcript; a prompt sent after unarchives", () =>
    Effect.gen(function*() {
      const { file, files } = yield* sandboxFiles
      const { sessionId } = yield* run("My name is Ada.")
      const archived = () => Effect.map(files.listSessions(), (infos) => infos.find((i) => i.sessionId === sessionId)?.archived)
      assert.isUndefined(yield* archived())
      const before = fs.readFileSync(file(sessionId), "utf8")
      yield* files.archiveSession(sessionId)
      assert.isTrue(yield* archived())
      const mark = JSON.parse(fs.readFileSync(path.join(path.dirname(file(sessionId)), sessionId, "archived.json"), "utf8"))
      assert.deepStrictEqual([mark.archived, mark.by, typeof mark.at], [true, "sdk", "string"])
      assert.strictEqual(fs.readFileSync(file(sessionId), "utf8"), before, "the transcript is not changed")
      yield* files.unarchiveSession(sessionId)
      assert.isFalse(yield* archived())
      yield* files.archiveSession(sessionId)
      // Timestamps are in milliseconds: the prompt comes after the mark.
      yield* Effect.sleep("5 millis")
      assert.isTrue((yield* run("What is my name?", { resume: sessionId })).success)
      assert.isFalse(yield* archived())
      const missing = yield* Effect.flip(files.archiveSession(crypto.randomUUID()))
      assert.strictEqual(missing.reason._tag, "SessionNotFound")
    }).pipe(Effect.provide([Scripted.layer(script), NodeServices.layer])), 120_000)

  it.live("archive in a store: the mark goes with a resume elsewhere, and a prompt after it unarchives", () =>
    Effect.gen(function*() {
      const store = MemorySessionStore.make()
      const stored = yield* StoredSessions.make(store)
      const { sessionId } = yield* run("My name is Ada.", { sessionStore: store }).pipe(Effect.provide(Scripted.layer(script)))
      const archived = Effect.map(stored.getSessionInfo(sessionId), (info) => Option.getOrThrow(info).archived)
      assert.isUndefined(yield* archived)
      yield* stored.archiveSession(sessionId)
      assert.isTrue(yield* archived)
      yield* stored.unarchiveSession(sessionId)
      assert.isFalse(yield* archived)
      yield* stored.archiveSession(sessionId)
      // Materialized, the mark is the SDK's `archived.json` beside the transcript.
      const key = yield* Keys.locate(store, sessionId)
      const configDir = fs.mkdtempSync(path.join(os.tmpdir(), "config-"))
      yield* SessionTransfer.materialize(store, key, { configDir, projectKey: key.projectKey })
      const written = JSON.parse(fs.readFileSync(path.join(configDir, "projects", key.projectKey, sessionId, "archived.json"), "utf8"))
      fs.rmSync(configDir, { recursive: true })
      assert.deepStrictEqual([written.archived, written.by], [true, "sdk"])
      yield* Effect.sleep("5 millis")
      // Another machine resumes it from the store: the CLI finds the mark there and, sent a prompt, unarchives.
      yield* Effect.gen(function*() {
        const { configDir, file, files } = yield* sandboxFiles
        assert.isTrue((yield* run("What is my name?", { sessionStore: store, resume: sessionId })).success)
        const mark = JSON.parse(fs.readFileSync(path.join(path.dirname(file(sessionId)), sessionId, "archived.json"), "utf8"))
        assert.deepStrictEqual([mark.archived, mark.by], [false, "cli"])
        assert.isFalse((yield* infoOf(files, sessionId)).archived)
        // Imported into another store, the mark comes along.
        const other = MemorySessionStore.make()
        yield* SessionTransfer.importSession(other, { configDir, projectKey: path.basename(path.dirname(file(sessionId))), sessionId })
        const marks = Option.getOrThrow(yield* other.load({ ...(yield* Keys.locate(other, sessionId)), subpath: Keys.archiveSubpath }))
        assert.deepStrictEqual(marks.map((m) => [m.archived, m.by]), [[false, "cli"]])
      }).pipe(Effect.provide(Scripted.layer(script)))
      assert.isFalse(yield* archived)
    }).pipe(Effect.provide(NodeServices.layer)), 120_000)
})
