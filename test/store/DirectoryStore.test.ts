/**
 * The directory SessionStore's files: lines cut off by a dead appender, lines that are not entries,
 * transcripts read in chunks, its lock (interruptible, one per file, kept by a live holder), and what it keeps
 * of the transcripts it appended to (let go once they are idle).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/testing/TestClock"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as Jsonl from "../../src/store/internal/jsonl.ts"
import * as LockFile from "../../src/store/internal/lockFile.ts"
import * as DirectorySessionStore from "../../src/store/DirectorySessionStore.ts"

const key = { projectKey: "-p", sessionId: "6c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a12" }
const entry = (uuid: string, content = "hi") => ({ type: "user", uuid, sessionId: key.sessionId, message: { role: "user", content } })
const line = (uuid: string) => JSON.stringify(entry(uuid)) + "\n"

const tempRoot = Effect.orDie(FileSystem.FileSystem.use((f) => f.makeTempDirectoryScoped({ prefix: "dirstore-" })))
const fileOf = (root: string, k: SessionStore.SessionKey = key) =>
  path.join(root, k.projectKey, k.subpath === undefined ? `${k.sessionId}.jsonl` : path.join(k.sessionId, `${k.subpath}.jsonl`))
const loaded = (store: SessionStore.Shape, k: SessionStore.SessionKey = key) =>
  Effect.map(store.load(k), (o) => Option.getOrThrow(o).map((e) => e.uuid))
// What reading the whole file as one string gives.
const wholeRead = (file: string) =>
  fs.readFileSync(file, "utf8").split("\n").slice(0, -1).filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as SessionStore.Entry)

describe("directory SessionStore", () => {
  it.effect("lets go of what it knew of a transcript a while after its last append", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      const s = yield* DirectorySessionStore.make(root)
      const keys = ["a", "b", "c"].map((sessionId) => ({ projectKey: "-p", sessionId }))
      for (const k of keys) yield* s.append(k, [entry("u0")])
      // Rewritten behind the store's back to the same size: only a store that reads the file again sees it.
      for (const k of keys) fs.writeFileSync(fileOf(root, k), fs.readFileSync(fileOf(root, k), "utf8").replace("u0", "x0"))
      const uuids = () => keys.map((k) => wholeRead(fileOf(root, k)).map((e) => e.uuid))
      // Appended to a moment ago: the store still holds the uuids it read, and skips one it thinks it has.
      for (const k of keys) yield* s.append(k, [entry("u0")])
      assert.deepStrictEqual(uuids(), [["x0"], ["x0"], ["x0"]])
      // Idle a while: it holds nothing of them, so the next append reads each file again.
      yield* TestClock.adjust("2 minutes")
      for (const k of keys) yield* s.append(k, [entry("u0")])
      assert.deepStrictEqual(uuids(), [["x0", "u0"], ["x0", "u0"], ["x0", "u0"]])
    }).pipe(Effect.provide(NodeServices.layer)))

  layer(NodeServices.layer)("a line cut off by an append that died", (it) => {
    it.effect("is cut away under the lock; the next append starts its own line", () =>
      Effect.gen(function*() {
        const root = yield* tempRoot
        const s = yield* DirectorySessionStore.make(root)
        yield* s.append(key, [entry("b0")])
        fs.appendFileSync(fileOf(root), "{\"type\":\"user\",\"uuid\":\"b1\",\"mess")
        // Read without the lock, it is left out (an append may be under way).
        assert.deepStrictEqual(yield* loaded(yield* DirectorySessionStore.make(root)), ["b0"])
        yield* s.append(key, [entry("b2")])
        const other = yield* DirectorySessionStore.make(root)
        yield* other.append(key, [entry("b3")])
        yield* s.append(key, [entry("b1"), entry("b4")])
        assert.strictEqual(fs.readFileSync(fileOf(root), "utf8"), ["b0", "b2", "b3", "b1", "b4"].map(line).join(""))
        assert.deepStrictEqual(yield* loaded(other), ["b0", "b2", "b3", "b1", "b4"])
        const [summary] = yield* s.listSessionSummaries(key.projectKey)
        assert.strictEqual(summary.data.bytes, fs.statSync(fileOf(root)).size)
      }))

    it.effect("a whole object without its newline gets one and is kept", () =>
      Effect.gen(function*() {
        const root = yield* tempRoot
        yield* Effect.flatMap(DirectorySessionStore.make(root), (s) => s.append(key, [entry("b0")]))
        fs.appendFileSync(fileOf(root), JSON.stringify(entry("b1")))
        const s = yield* DirectorySessionStore.make(root)
        assert.deepStrictEqual(yield* loaded(s), ["b0", "b1"])
        yield* s.append(key, [entry("b1"), entry("b2")])
        assert.strictEqual(fs.readFileSync(fileOf(root), "utf8"), ["b0", "b1", "b2"].map(line).join(""))
      }))
  })

  it.effect("a line before the last that is not a JSON object is InvalidEntry naming the file and the line", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      const file = fileOf(root, { ...key, subpath: "subagents/agent-a" })
      fs.mkdirSync(path.dirname(file), { recursive: true })
      const text = line("b0") + "\n{\"type\":\"user\",\"uu\n" + line("b1")
      fs.writeFileSync(file, text)
      const s = yield* DirectorySessionStore.make(root)
      for (const failed of [s.load({ ...key, subpath: "subagents/agent-a" }), s.append({ ...key, subpath: "subagents/agent-a" }, [entry("b2")])]) {
        const error = yield* Effect.flip(failed)
        assert.strictEqual(error.reason._tag, "InvalidEntry")
        assert.include(error.message, `line 3 of ${file} is not a JSON object`)
      }
      fs.writeFileSync(fileOf(root), line("b0") + "[1]\n")
      assert.include((yield* Effect.flip(s.load(key))).message, `line 2 of ${fileOf(root)} is not a JSON object: a JSON array`)
      assert.strictEqual(fs.readFileSync(file, "utf8"), text)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a transcript without a summary whose line is not a JSON object is left out of the summaries only", () =>
    Effect.gen(function*() {
      const root = yield* tempRoot
      const s = yield* DirectorySessionStore.make(root)
      yield* s.append(key, [entry("b0")])
      const bad = { ...key, sessionId: "7c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a13" }
      fs.writeFileSync(fileOf(root, bad), line("c0") + "{\"type\":\"user\",\"uu\n" + line("c1"))
      assert.deepStrictEqual((yield* s.listSessionSummaries(key.projectKey)).map((x) => x.sessionId), [key.sessionId])
      assert.deepStrictEqual((yield* s.listSessions(key.projectKey)).map((x) => x.sessionId).sort(), [key.sessionId, bad.sessionId].sort())
      assert.strictEqual((yield* Effect.flip(s.load(bad))).reason._tag, "InvalidEntry")
    }).pipe(Effect.provide(NodeServices.layer)))

  layer(NodeServices.layer)("transcripts are read in chunks", (it) => {
    // Lines longer than a chunk, and characters of several bytes across chunk ends.
    const text = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify(entry(`u${i}`, i % 50 === 7 ? "é漢🙂".repeat(30_000) : `${"🙂".repeat(i)} ${i}`)) + "\n").join("")

    it.effect("lines across chunks of any size read as the whole file does", () =>
      Effect.gen(function*() {
        const root = yield* tempRoot
        const short = text.split("\n").filter((_, i) => i < 20 && i !== 7).map((l) => l + "\n").join("")
        for (const [whole, chunkSizes] of [[short, [1, 7]], [text, [4096, 64 * 1024]]] as const) {
          const file = path.join(root, "t.jsonl")
          fs.writeFileSync(file, whole + "\n{\"cut")
          for (const chunkSize of chunkSizes) {
            const read: Array<unknown> = []
            const scanned = yield* Jsonl.scan(yield* FileSystem.FileSystem, file, { offset: 0, lines: 0 }, (e) => read.push(e), chunkSize)
            assert.deepStrictEqual(read, wholeRead(file))
            assert.deepStrictEqual(scanned, { lines: whole.split("\n").length, end: Buffer.byteLength(whole) + 1, tail: "{\"cut" })
          }
        }
      }))

    it.effect("load, the uuids of a first append and the summary read a transcript of many chunks", () =>
      Effect.gen(function*() {
        const root = yield* tempRoot
        fs.mkdirSync(path.join(root, key.projectKey))
        fs.writeFileSync(fileOf(root), text)
        assert.isAbove(fs.statSync(fileOf(root)).size, 20 * 64 * 1024)
        const s = yield* DirectorySessionStore.make(root)
        assert.deepStrictEqual(Option.getOrThrow(yield* s.load(key)), wholeRead(fileOf(root)))
        // Without a summary file, listing folds the transcript as it reads it.
        const [listed] = yield* s.listSessionSummaries(key.projectKey)
        assert.deepStrictEqual(listed.data, SessionStore.foldSummary(undefined, wholeRead(fileOf(root))))
        yield* s.append(key, [entry("u299"), entry("u0"), entry("new")])
        assert.strictEqual(fs.readFileSync(fileOf(root), "utf8"), text + line("new"))
        const [summary] = yield* s.listSessionSummaries(key.projectKey)
        assert.deepStrictEqual(summary.data, SessionStore.foldSummary(undefined, wholeRead(fileOf(root))))
      }))
  })

  layer(NodeServices.layer, { excludeTestServices: true })("the lock", (it) => {
    // Another process holds a's lock, fresh: it would be taken over only after 10 seconds.
    const heldElsewhere = (root: string, k: SessionStore.SessionKey) => {
      fs.mkdirSync(path.dirname(fileOf(root, k)), { recursive: true })
      fs.writeFileSync(`${fileOf(root, k)}.lock`, "other\n")
    }

    it.effect("waiting for it ends with a timeout, and leaves the other's lock alone", () =>
      Effect.gen(function*() {
        const root = yield* tempRoot
        heldElsewhere(root, key)
        const s = yield* DirectorySessionStore.make(root)
        const result = yield* Effect.result(Effect.timeout(s.append(key, [entry("u0")]), "100 millis"))
        assert.isTrue(result._tag === "Failure" && result.failure._tag === "TimeoutError")
        const fiber = yield* Effect.forkChild(Effect.scoped(s.append(key, [entry("u1")])))
        yield* Effect.sleep("20 millis")
        yield* Fiber.interrupt(fiber)
        assert.strictEqual(fs.readFileSync(`${fileOf(root)}.lock`, "utf8"), "other\n")
        assert.isFalse(fs.existsSync(fileOf(root)))
      }), 5_000)

    // Racy by nature: before takers were one at a time, about one round in ten lost a line or failed.
    it.effect("a stale lock is taken over by one store at a time", () =>
      Effect.gen(function*() {
        for (let round = 0; round < 30; round++) {
          const root = yield* tempRoot
          heldElsewhere(root, key)
          const old = new Date(Date.now() - 60_000)
          fs.utimesSync(`${fileOf(root)}.lock`, old, old)
          const stores = yield* Effect.forEach(Array.from({ length: 8 }), () => DirectorySessionStore.make(root))
          yield* Effect.forEach(stores, (s) => s.append(key, [entry("u0"), entry("u1"), entry("u2")]), { concurrency: "unbounded" })
          assert.strictEqual(fs.readFileSync(fileOf(root), "utf8"), ["u0", "u1", "u2"].map(line).join(""))
        }
      }), 20_000)

    // A lock naming `holder`, last touched a minute ago: past the stale age.
    const heldOld = (root: string, holder: LockFile.Holder) => {
      heldElsewhere(root, key)
      fs.writeFileSync(`${fileOf(root)}.lock`, LockFile.format(holder))
      const old = new Date(Date.now() - 60_000)
      fs.utimesSync(`${fileOf(root)}.lock`, old, old)
    }
    const deadPid = () => childProcess.spawnSync(process.execPath, ["-e", ""]).pid!

    it.effect("an old lock naming a live process of this host is not taken over", () =>
      Effect.gen(function*() {
        const root = yield* tempRoot
        // Another live process (this one's parent): a lock naming this very process is its own only by its token.
        const holder = { pid: process.ppid, host: os.hostname(), token: "t" }
        heldOld(root, holder)
        const s = yield* DirectorySessionStore.make(root)
        const result = yield* Effect.result(Effect.timeout(s.append(key, [entry("u0")]), "500 millis"))
        assert.isTrue(result._tag === "Failure" && result.failure._tag === "TimeoutError")
        assert.strictEqual(fs.readFileSync(`${fileOf(root)}.lock`, "utf8"), LockFile.format(holder))
        assert.isFalse(fs.existsSync(fileOf(root)))
      }), 5_000)

    it.effect("an old lock naming a dead process, or one of another host, is taken over", () =>
      Effect.gen(function*() {
        for (const holder of [
          { pid: deadPid(), host: os.hostname(), token: "t" },
          { pid: process.pid, host: `not-${os.hostname()}`, token: "t" }
        ]) {
          const root = yield* tempRoot
          heldOld(root, holder)
          const s = yield* DirectorySessionStore.make(root)
          yield* Effect.timeout(s.append(key, [entry("u0")]), "2 seconds")
          assert.deepStrictEqual(yield* loaded(s), ["u0"])
          assert.isFalse(fs.existsSync(`${fileOf(root)}.lock`))
        }
      }), 5_000)

    it.effect("its holder keeps it fresh", () =>
      Effect.gen(function*() {
        const lock = path.join(yield* tempRoot, "f.lock")
        yield* LockFile.hold(yield* FileSystem.FileSystem, lock)
        const old = new Date(Date.now() - 60_000)
        fs.utimesSync(lock, old, old)
        const touched = Effect.suspend(() =>
          Date.now() - fs.statSync(lock).mtimeMs < LockFile.staleMillis ? Effect.void : Effect.fail("old")
        )
        yield* Effect.timeout(Effect.retry(touched, { schedule: Schedule.spaced("100 millis") }), "5 seconds")
      }), 10_000)

    it.effect("its holder removes it on release, unless it is another's by then", () =>
      Effect.gen(function*() {
        const lock = path.join(yield* tempRoot, "f.lock")
        const fsys = yield* FileSystem.FileSystem
        yield* Effect.scoped(LockFile.hold(fsys, lock))
        assert.isFalse(fs.existsSync(lock))
        yield* Effect.scoped(Effect.andThen(LockFile.hold(fsys, lock), Effect.sync(() => fs.writeFileSync(lock, "another's\n"))))
        assert.strictEqual(fs.readFileSync(lock, "utf8"), "another's\n")
      }), 5_000)

    it.effect("held on one file, it stalls appends to that file only", () =>
      Effect.gen(function*() {
        const root = yield* tempRoot
        heldElsewhere(root, key)
        const s = yield* DirectorySessionStore.make(root)
        const waiting = yield* Effect.forkChild(s.append(key, [entry("a0")]))
        yield* Effect.sleep("20 millis")
        const others: Array<SessionStore.SessionKey> = [
          { projectKey: "-q", sessionId: key.sessionId },
          { ...key, sessionId: "7c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a13" },
          { ...key, subpath: "subagents/agent-a" }
        ]
        for (const other of others) {
          yield* Effect.timeout(s.append(other, [entry("c0")]), "2 seconds")
          assert.deepStrictEqual(yield* loaded(s, other), ["c0"])
        }
        assert.isUndefined(waiting.pollUnsafe())
        yield* Fiber.interrupt(waiting)
        assert.isFalse(fs.existsSync(fileOf(root)))
      }), 5_000)
  })
})
