/**
 * Session directories holding links back up the tree and named pipes: `SessionFiles.listSubagents`, the directory
 * store's `listSubkeys` and `importSession` list each transcript once, and end.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import * as DirectorySessionStore from "../../src/store/DirectorySessionStore.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"

const projectKey = "-tmp-walk"
const sessionId = "aaaaaaaa-0000-4000-8000-00000000000c"
const entry = (uuid: string) =>
  JSON.stringify({ type: "user", uuid, parentUuid: null, isSidechain: false, sessionId, timestamp: "2026-01-01T00:00:00Z", message: { role: "user", content: "hi" } }) + "\n"

// Under `sessionDir`: two subagent transcripts, two links that loop (a relative one to the session, an absolute one to its subagents) and a
// named pipe with a transcript's name.
const withLoops = (sessionDir: string) => {
  const subagents = path.join(sessionDir, "subagents")
  fs.mkdirSync(path.join(subagents, "nested"), { recursive: true })
  fs.writeFileSync(path.join(subagents, "agent-a1.jsonl"), entry("00000000-0000-4000-8000-000000000001"))
  fs.writeFileSync(path.join(subagents, "nested", "agent-a2.jsonl"), entry("00000000-0000-4000-8000-000000000002"))
  fs.symlinkSync("..", path.join(subagents, "up"))
  fs.symlinkSync(subagents, path.join(subagents, "nested", "again"))
  childProcess.execFileSync("mkfifo", [path.join(subagents, "agent-pipe.jsonl")])
}

const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), prefix))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

// A config directory holding the session, its subagents and the loops.
const configWithLoops = Effect.gen(function*() {
  const configDir = yield* tempDir("walk-config-")
  const project = path.join(configDir, "projects", projectKey)
  fs.mkdirSync(project, { recursive: true })
  fs.writeFileSync(path.join(project, `${sessionId}.jsonl`), entry("00000000-0000-4000-8000-000000000000"))
  withLoops(path.join(project, sessionId))
  return configDir
})

const subkeys = ["subagents/agent-a1", "subagents/nested/agent-a2"].map((k) => k.split("/").join(path.sep))

layer(NodeServices.layer)("session directories with link loops and a named pipe", (it) => {
  it.effect("SessionFiles lists each subagent once", () =>
    Effect.gen(function*() {
      const files = yield* SessionFiles.make({ configDir: yield* configWithLoops })
      const agents = yield* files.listSubagents(sessionId)
      assert.deepStrictEqual(agents.map((a) => a.agentId), ["a1", "a2"])
    }), 30_000)

  it.effect("the directory store imports and lists each subkey once", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("walk-store-")
      const key = { projectKey, sessionId }
      const store = yield* DirectorySessionStore.make(root)
      yield* SessionTransfer.importSession(store, { configDir: yield* configWithLoops, ...key })
      assert.deepStrictEqual(yield* store.listSubkeys(key), subkeys)
      // The store's own tree with the same loops.
      fs.rmSync(path.join(root, projectKey, sessionId), { recursive: true })
      withLoops(path.join(root, projectKey, sessionId))
      assert.deepStrictEqual(yield* store.listSubkeys(key), subkeys)
    }), 30_000)
})
