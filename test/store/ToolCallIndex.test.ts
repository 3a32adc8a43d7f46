/**
 * The tool-call index of the memory, SQLite and PostgreSQL stores: `Sessions.select` with it returns what
 * filtering every session in memory returns, over the transcript corpus (each file a session, in two projects)
 * and random filters, across every project and in each; it reads fewer sessions than there are (counted by
 * the store's `load`s); it follows a call whose result comes in a later append; a database written before the
 * index existed is indexed when the store is made.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as path from "node:path"
import * as Filter from "../../src/filter/Filter.ts"
import * as Sqlite from "../../src/internal/sqlite.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import * as Sessions from "../../src/store/Sessions.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"
import * as SqlSessionStore from "../../src/store/SqlSessionStore.ts"
import * as StoredSessions from "../../src/store/StoredSessions.ts"
import { configDir, projects, reference, selected, sessionsRead } from "./support/select.ts"
import { stores } from "./support/stores.ts"

const parse = (text: string) => Filter.parseResult(text).pipe((r) => r._tag === "Success" ? r.success : assert.fail(text))

// Filters the index answers (and some it cannot), then random ones: atoms the corpus has and has not,
// combined with `&`, `|` and `!`, from a fixed seed.
const fixed = [
  "tool:Bash & error",
  "path:src/**",
  "path:**/work/*.js",
  "tool:Read",
  "denied",
  "tool & denied",
  "command:git* | url:https://*",
  "tool:B* & !error",
  "text | tool:Grep"
]
const atoms = [
  "tool:Bash", "tool:Read", "tool:Edit", "tool:Write", "tool:Glob", "tool:Grep", "tool:WebFetch", "tool:Task",
  "tool:?ead", "tool:*e*", "tool", "tool:mcp__*", "result:Bash", "result", "error", "denied", "typed",
  "path:**/*.ts", "path:/tmp/**", "path:*.md", "path:**/src/**", "command:ls*", "command:*test*", "command:\"git *\"",
  "url:*example*", "text", "thinking", "main", "subagent", "input.pattern:*"
]
const seeded = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}
const randomFilters = (count: number): Array<string> => {
  const next = seeded(28)
  const pick = (): string => atoms[Math.floor(next() * atoms.length)]!
  const build = (depth: number): string => {
    const r = next()
    if (depth === 0 || r < 0.3) return pick()
    if (r < 0.4) return `!(${build(depth - 1)})`
    return `(${build(depth - 1)} ${r < 0.75 ? "&" : "|"} ${build(depth - 1)})`
  }
  return Array.from({ length: count }, () => build(3))
}
const filters = [...fixed, ...randomFilters(40)]

const indexed = stores.filter((s) => s.name !== "directory")

// A store whose `load`s of main transcripts are counted: the sessions a query read.
const counting = (store: SessionStore.Shape) => {
  const loaded = new Set<string>()
  const shape: SessionStore.Shape = {
    ...store,
    load: (key) => {
      if (key.subpath === undefined) loaded.add(`${key.projectKey}/${key.sessionId}`)
      return store.load(key)
    }
  }
  return { shape, loaded }
}

layer(NodeServices.layer, { timeout: 300_000 })("tool-call index", (it) => {
  for (const { name, make } of indexed) {
    it.effect(`${name}: equals the full read`, () =>
      Effect.gen(function*() {
        const { dir, sessions } = yield* configDir
        const files = yield* SessionFiles.make({ configDir: dir })
        const store = yield* make
        for (const source of sessions) yield* SessionTransfer.importSession(store, { configDir: dir, ...source })
        const { loaded, shape } = counting(store)
        const stored = yield* StoredSessions.make(shape)
        const read = yield* sessionsRead(files, {})
        const narrowed: Array<string> = []
        for (const text of filters) {
          const filter = parse(text)
          const everywhere = yield* reference(read, filter)
          loaded.clear()
          assert.deepStrictEqual(yield* selected(stored, filter, {}), everywhere, text)
          if (loaded.size < read.length) narrowed.push(text)
          for (const projectKey of projects) {
            assert.deepStrictEqual(
              yield* selected(stored, filter, { projectKey }),
              everywhere.filter((r) => r.projectKey === projectKey),
              `${text} in ${projectKey}`
            )
          }
        }
        // The index read fewer sessions for these (and `index: false` reads them all).
        for (const text of ["tool:Bash & error", "path:src/**", "tool & denied", "tool:B* & !error"]) assert.include(narrowed, text)
        assert.notInclude(narrowed, "text | tool:Grep")
        loaded.clear()
        yield* selected(stored, parse("tool:Bash & error"), { index: false })
        assert.strictEqual(loaded.size, read.length)
      }))

    it.effect(`${name}: a result in a later append`, () =>
      Effect.gen(function*() {
        const store = yield* make
        const sessions = yield* StoredSessions.make(store)
        const key = { projectKey: "-work-late", sessionId: "11111111-1111-4111-8111-111111111111" }
        const common = { sessionId: key.sessionId, cwd: "/work/late", version: "2.1.332", userType: "external", isSidechain: false }
        yield* store.append(key, [
          { ...common, type: "user", uuid: "a0000000-0000-4000-8000-000000000001", parentUuid: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "run it" } },
          {
            ...common,
            type: "assistant",
            uuid: "a0000000-0000-4000-8000-000000000002",
            parentUuid: "a0000000-0000-4000-8000-000000000001",
            timestamp: "2026-01-01T00:00:01.000Z",
            message: { id: "msg_1", type: "message", role: "assistant", model: "claude", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "false" } }], stop_reason: "tool_use", usage: { input_tokens: 1, output_tokens: 1 } }
          }
        ])
        const failedBash = parse("tool:Bash & error")
        const count = Stream.runCount(Sessions.select(failedBash)).pipe(Effect.provideService(Sessions.Sessions, sessions))
        assert.strictEqual(yield* count, 0)
        yield* store.append(key, [{
          ...common,
          type: "user",
          uuid: "a0000000-0000-4000-8000-000000000003",
          parentUuid: "a0000000-0000-4000-8000-000000000002",
          timestamp: "2026-01-01T00:00:02.000Z",
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "exit 1", is_error: true }] }
        }])
        assert.strictEqual(yield* count, 1)
        const found = yield* store.toolCalls!.sessions({ _tag: "And", queries: [{ _tag: "Tool", pattern: "Bash" }, { _tag: "Outcome", outcome: "error" }] })
        assert.deepStrictEqual(found, [key])
      }))
  }
})

describe("SqlSessionStore tool-call index", () => {
  it.effect("indexes a database written before it existed", () =>
    Effect.gen(function*() {
      const fsx = yield* FileSystem.FileSystem
      const dir = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "index-" }))
      const filename = path.join(dir, "sessions.db")
      const source = yield* configDir
      const files = yield* SessionFiles.make({ configDir: source.dir })
      const before = yield* Layer.build(SqlSessionStore.layerSqlite({ filename })).pipe(Effect.map(Context.get(SessionStore.SessionStore)))
      for (const s of source.sessions) yield* SessionTransfer.importSession(before, { configDir: source.dir, ...s })
      // The database as a store without the index left it.
      const client = yield* Layer.build(Sqlite.layer(filename)).pipe(Effect.map(Context.get(SqlClient.SqlClient)))
      yield* client`DROP TABLE claude_session_tool_calls`.pipe(Effect.orDie)
      const after = yield* Layer.build(SqlSessionStore.layerSqlite({ filename })).pipe(Effect.map(Context.get(SessionStore.SessionStore)))
      const { loaded, shape } = counting(after)
      const stored = yield* StoredSessions.make(shape)
      const read = yield* sessionsRead(files, {})
      const filter = parse("tool:Bash & error")
      const expected = yield* reference(read, filter)
      assert.isAbove(expected.length, 0)
      assert.deepStrictEqual(yield* selected(stored, filter, {}), expected)
      assert.isBelow(loaded.size, read.length)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 120_000)
})
