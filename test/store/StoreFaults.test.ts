/**
 * Stores under faults: rows and files that are not what the store wrote, a mirror with one bad session,
 * a lock left by a dead process that had the waiter's pid, and an SQLite database another process holds.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Sqlite from "../../src/internal/sqlite.ts"
import * as SqliteWorker from "../../src/internal/sqliteWorker.ts"
import * as LockFile from "../../src/store/internal/lockFile.ts"
import * as SessionEvent from "../../src/schema/SessionEvent.ts"
import * as SessionMirror from "../../src/store/SessionMirror.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as SqlSessionStore from "../../src/store/SqlSessionStore.ts"
import * as DirectorySessionStore from "../../src/store/DirectorySessionStore.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"

const configDir = "/home/me/.claude"
const projectKey = "-work-app"
const sessionA = "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11"
const sessionB = "0b6f1a2e-3c4d-4e5f-8a9b-1c2d3e4f5a6b"
const keyA = { projectKey, sessionId: sessionA }
const keyB = { projectKey, sessionId: sessionB }
const user = (uuid: string) => ({ type: "user", uuid, message: { role: "user", content: `prompt ${uuid}` } })

// A frame the CLI sends for a session's main transcript.
const mirrorFrame = (sessionId: string, uuids: ReadonlyArray<string>) =>
  new SessionEvent.TranscriptMirror({
    type: "transcript_mirror",
    filePath: `${configDir}/projects/${projectKey}/${sessionId}.jsonl`,
    entries: uuids.map(user)
  })

// A scoped SQLite store with the client under it, to corrupt its rows from outside.
const sqliteStore = Effect.gen(function*() {
  const fsx = yield* FileSystem.FileSystem
  const dir = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-faults-" }))
  const context = yield* Layer.build(Sqlite.layer(path.join(dir, "sessions.db"))).pipe(Effect.orDie)
  const store = yield* SqlSessionStore.make().pipe(Effect.provide(context))
  return { store, sql: Context.get(context, SqlClient.SqlClient) }
})

// The failure's reason, or a test failure when `effect` succeeds or dies.
const reasonOf = <A>(effect: Effect.Effect<A, SessionStore.SessionStoreError>) =>
  Effect.flatMap(Effect.flip(effect), (error) => Effect.succeed(error.reason))

describe("StoreFaults", () => {
  describe("corrupt rows and files", () => {
    it.effect("an entry row that is not JSON: load fails with InvalidEntry naming the session and the row", () =>
      Effect.gen(function*() {
        const { sql, store } = yield* sqliteStore
        yield* store.append(keyA, [user("a1"), user("a2")])
        yield* store.append(keyB, [user("b1")])
        yield* sql`UPDATE claude_session_entries SET entry = '{not json' WHERE uuid = 'a2'`
        const [{ seq }] = yield* sql<{ readonly seq: number }>`SELECT seq FROM claude_session_entries WHERE uuid = 'a2'`
        const reason = yield* reasonOf(store.load(keyA))
        assert.strictEqual(reason._tag, "InvalidEntry")
        assert.include(reason.message, `${projectKey}/${sessionA}`)
        assert.include(reason.message, `seq ${seq}`)
        // The other session is untouched.
        const other = yield* store.load(keyB)
        assert.deepStrictEqual(other._tag === "Some" && other.value.map((e) => e.uuid), ["b1"])
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a summary row that is not a summary: append and listing fail with InvalidEntry naming the session", () =>
      Effect.gen(function*() {
        const { sql, store } = yield* sqliteStore
        yield* store.append(keyA, [user("a1")])
        for (const data of ["{not json", `{"bytes":"many"}`]) {
          yield* sql`UPDATE claude_session_summaries SET data = ${data} WHERE session_id = ${sessionA}`
          const appended = yield* reasonOf(store.append(keyA, [user(`a-${data.length}`)]))
          assert.strictEqual(appended._tag, "InvalidEntry")
          assert.include(appended.message, `${projectKey}/${sessionA}`)
          assert.include(appended.message, "summary row")
          const listed = yield* reasonOf(store.listSessionSummaries(projectKey))
          assert.strictEqual(listed._tag, "InvalidEntry")
          assert.include(listed.message, `${projectKey}/${sessionA}`)
        }
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a directory summary file that is not a summary: listing folds the transcript again", () =>
      Effect.gen(function*() {
        const fsx = yield* FileSystem.FileSystem
        const root = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-faults-" }))
        const store = yield* DirectorySessionStore.make(root)
        const entries = [user("a1"), user("a2")]
        yield* store.append(keyA, entries)
        const file = path.join(root, projectKey, `${sessionA}.summary.json`)
        const bytes = fs.statSync(path.join(root, projectKey, `${sessionA}.jsonl`)).size
        fs.writeFileSync(file, JSON.stringify({ mtime: 1, data: { bytes, firstPrompt: { not: "text" } } }))
        const [summary] = yield* store.listSessionSummaries(projectKey)
        assert.deepStrictEqual(summary.data, SessionStore.foldSummary(undefined, entries))
      }).pipe(Effect.provide(NodeServices.layer)))

    it.live("a mirror of two sessions, one with a corrupt summary: the other's frames all stored, one mirror_error", () =>
      Effect.gen(function*() {
        const { sql, store } = yield* sqliteStore
        yield* store.append(keyA, [user("a0")])
        yield* sql`UPDATE claude_session_summaries SET data = '{not json' WHERE session_id = ${sessionA}`
        const out = yield* Stream.make(
          mirrorFrame(sessionA, ["a1"]),
          mirrorFrame(sessionB, ["b1", "b2"]),
          mirrorFrame(sessionB, ["b3"]),
          mirrorFrame(sessionB, ["b4"])
        ).pipe(
          SessionMirror.mirror({ store, configDir, cwd: "/work/app", flush: "eager" }),
          Stream.runCollect
        )
        const errors = out.filter((m) => m._tag === "SystemMirrorError")
        assert.strictEqual(errors.length, 1)
        assert.strictEqual(errors[0].session_id, sessionA)
        assert.include(errors[0].error, "summary row")
        const rows = yield* sql<{ readonly uuid: string }>`
          SELECT uuid FROM claude_session_entries WHERE session_id = ${sessionB} ORDER BY seq`
        assert.deepStrictEqual(rows.map((r) => r.uuid), ["b1", "b2", "b3", "b4"])
      }).pipe(Effect.provide(NodeServices.layer)))

    it.live("a store that dies on one session: the mirror reports it and stores the other's frames", () =>
      Effect.gen(function*() {
        const memory = MemorySessionStore.make()
        const store: SessionStore.Shape = {
          ...memory,
          append: (key, entries) => key.sessionId === sessionA ? Effect.die(new SyntaxError("bad row")) : memory.append(key, entries)
        }
        const out = yield* Stream.make(mirrorFrame(sessionA, ["a1"]), mirrorFrame(sessionB, ["b1"]), mirrorFrame(sessionB, ["b2"])).pipe(
          SessionMirror.mirror({ store, configDir, cwd: "/work/app", flush: "eager" }),
          Stream.runCollect
        )
        const errors = out.filter((m) => m._tag === "SystemMirrorError")
        assert.deepStrictEqual(errors.map((e) => e.session_id), [sessionA])
        assert.include(errors[0].error, "bad row")
        const stored = yield* memory.load(keyB)
        assert.deepStrictEqual(stored._tag === "Some" && stored.value.map((e) => e.uuid), ["b1", "b2"])
      }))
  })

  describe("the directory lock", () => {
    const lockProcess = path.join(import.meta.dirname, "support", "lockProcess.ts")
    // Each run in a fresh pid namespace, where it is pid 1: a container restarted with the same host name.
    const inNamespace = (...args: ReadonlyArray<string>) =>
      childProcess.spawnSync("unshare", ["--pid", "--fork", "--mount-proc", process.execPath, lockProcess, ...args], {
        encoding: "utf8",
        timeout: 60_000
      })
    const namespaces = process.getuid?.() === 0 && inNamespace("hold", "/dev/null/none").error === undefined

    it.runIf(namespaces)("a lock left by a dead process with the waiter's pid is taken over", () => {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "store-faults-"))
      try {
        const lock = path.join(root, projectKey, `${sessionA}.jsonl.lock`)
        fs.mkdirSync(path.dirname(lock), { recursive: true })
        assert.strictEqual(inNamespace("hold", lock).stdout.trim(), "held by 1")
        // Left for longer than a lock may go untouched.
        const past = new Date(Date.now() - 2 * LockFile.staleMillis)
        fs.utimesSync(lock, past, past)
        const waiter = inNamespace("append", root, projectKey, sessionA, "after-restart")
        assert.strictEqual(waiter.stdout.trim(), "stored by 1", waiter.stderr)
        const lines = fs.readFileSync(path.join(root, projectKey, `${sessionA}.jsonl`), "utf8").trim().split("\n")
        assert.deepStrictEqual(lines.map((line) => JSON.parse(line).uuid), ["after-restart"])
        assert.isFalse(fs.existsSync(lock))
      } finally {
        fs.rmSync(root, { recursive: true, force: true })
      }
    }, 120_000)

    it.live("a lock naming a live pid that started at another time (the pid given again) is taken over", () =>
      Effect.gen(function*() {
        const fsx = yield* FileSystem.FileSystem
        const root = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-faults-" }))
        const lock = path.join(root, projectKey, `${sessionA}.jsonl.lock`)
        fs.mkdirSync(path.dirname(lock), { recursive: true })
        // This process's parent runs, but did not start at tick 1 after boot.
        fs.writeFileSync(lock, LockFile.format({ pid: process.ppid, host: os.hostname(), token: "t", start: "1" }))
        const past = new Date(Date.now() - 2 * LockFile.staleMillis)
        fs.utimesSync(lock, past, past)
        const store = yield* DirectorySessionStore.make(root)
        yield* Effect.timeout(store.append(keyA, [user("a1")]), "5 seconds")
        const lines = fs.readFileSync(path.join(root, projectKey, `${sessionA}.jsonl`), "utf8").trim().split("\n")
        assert.deepStrictEqual(lines.map((line) => JSON.parse(line).uuid), ["a1"])
      }).pipe(Effect.provide(NodeServices.layer)), 30_000)
  })

  layer(NodeServices.layer, { excludeTestServices: true })("an SQLite database another process holds", (it) => {
    // A process holding the database's write lock until it is killed: `locked` once it holds it.
    const holdLocked = (file: string) =>
      Effect.acquireRelease(
        Effect.callback<childProcess.ChildProcess>((resume) => {
          const child = childProcess.spawn(process.execPath, [
            "--no-warnings",
            "-e",
            `const db = new (require("node:sqlite").DatabaseSync)(process.argv[1]); ` +
            `db.exec("PRAGMA busy_timeout = 10000"); db.exec("BEGIN EXCLUSIVE"); ` +
            `console.log("locked"); setInterval(() => {}, 1000)`,
            file
          ], { stdio: ["ignore", "pipe", "inherit"] })
          child.stdout.once("data", () => resume(Effect.succeed(child)))
        }),
        (child) =>
          Effect.callback<void>((resume) => {
            if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
            child.once("exit", () => resume(Effect.void))
            child.kill("SIGKILL")
          })
      )

    it.effect("a 1-second timeout on an append fires before the busy timeout, and timers keep their schedule", () =>
      Effect.gen(function*() {
        const fsx = yield* FileSystem.FileSystem
        const dir = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-faults-" }))
        const file = path.join(dir, "sessions.db")
        const context = yield* Layer.build(SqlSessionStore.layerSqlite({ filename: file }))
        const store = Context.get(context, SessionStore.SessionStore)
        yield* store.append(keyA, [user("before")])
        const holder = yield* Effect.scoped(Effect.gen(function*() {
          yield* holdLocked(file)
          let ticks = 0
          const timer = yield* Effect.forkScoped(Effect.forever(Effect.andThen(
            Effect.sleep("100 millis"),
            Effect.sync(() => {
              ticks++
            })
          )))
          const started = Date.now()
          const result = yield* Effect.result(Effect.timeout(store.append(keyA, [user("while-locked")]), "1 second"))
          const elapsed = Date.now() - started
          const counted = ticks
          yield* Fiber.interrupt(timer)
          return { result, elapsed, counted }
        }))
        assert.isTrue(holder.result._tag === "Failure" && holder.result.failure._tag === "TimeoutError")
        assert.isBelow(holder.elapsed, SqliteWorker.busyMillis)
        // About ten 100 ms ticks in that second; a blocked event loop gives none.
        assert.isAtLeast(holder.counted, 5)
        // The lock released, the store goes on, and the append cut off was not stored.
        yield* store.append(keyA, [user("after")])
        const rows = yield* Effect.provide(
          Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
            sql<{ readonly uuid: string }>`SELECT uuid FROM claude_session_entries ORDER BY seq`),
          Sqlite.layer(file)
        )
        assert.deepStrictEqual(rows.map((r) => r.uuid), ["before", "after"])
      }), 60_000)
  })
})
