/**
 * `node --expose-gc bench/storeQuery.ts [SESSIONS]`: `Sessions.select` over a SQLite store of SESSIONS
 * sessions (default 1,000), each a transcript of the corpus in turn (fixtures/transcripts*, those a listing shows
 * as sessions, not sidechains) under a fresh session id, with the store's tool-call index and with a
 * full read (`index: false`: every session read and filtered in memory), for `tool:Bash & error` and
 * `path:src/**`. Prints, per filter, the items selected (equal on both sides, or the run fails), the sessions
 * each side read, the time and the peak heap above the start of each side (sampled every 5 ms), then one JSON
 * line. One run each.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Filter from "../src/filter/Filter.ts"
import * as SessionFiles from "../src/store/SessionFiles.ts"
import * as Sessions from "../src/store/Sessions.ts"
import * as SessionStore from "../src/store/SessionStore.ts"
import * as SessionTransfer from "../src/store/SessionTransfer.ts"
import * as SqlSessionStore from "../src/store/SqlSessionStore.ts"
import * as StoredSessions from "../src/store/StoredSessions.ts"

const count = Number(process.argv[2] ?? 1000)
const projectKey = "-bench-store"
const root = path.resolve(import.meta.dirname, "..", "fixtures")
const sources = ["transcripts", "transcripts-recorded"].flatMap((dir) =>
  fs.readdirSync(path.join(root, dir)).filter((name) => name.endsWith(".jsonl") && !name.includes("subagents"))
    .map((name) => path.join(root, dir, name))
)

const time = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(effect), ([duration, value]) => ({ ms: Math.round(Duration.toMillis(duration)), value }))

// Its time, and its peak heap above the heap when it starts (after a collection, when `--expose-gc` allows).
const measured = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    ;(globalThis as { gc?: () => void }).gc?.()
    const base = process.memoryUsage().heapUsed
    let peak = base
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed)
    }, 5)
    return time(effect).pipe(
      Effect.map((timed) => ({ ...timed, peakMb: Math.round((Math.max(peak, process.memoryUsage().heapUsed) - base) / 1e5) / 10 })),
      Effect.ensuring(Effect.sync(() => clearInterval(sampler)))
    )
  })

const program = Effect.gen(function*() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-bench-store-"))
  try {
    const configDir = path.join(dir, "config")
    const files = yield* SessionFiles.make({ configDir })
    const idOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`
    const copyInto = (key: string, files: ReadonlyArray<string>) => {
      fs.mkdirSync(path.join(configDir, "projects", key), { recursive: true })
      files.forEach((file, i) => fs.copyFileSync(file, path.join(configDir, "projects", key, `${idOf(i)}.jsonl`)))
    }
    // The transcripts a listing shows as sessions (not sidechains): each copied once, then listed.
    copyInto("-bench-probe", sources)
    const shown = new Set((yield* files.listSessions({ projectKey: "-bench-probe" })).map((info) => info.sessionId))
    const sessions = sources.filter((_, i) => shown.has(idOf(i)))
    fs.rmSync(path.join(configDir, "projects", "-bench-probe"), { recursive: true })
    copyInto(projectKey, Array.from({ length: count }, (_, i) => sessions[i % sessions.length]!))
    const listed = yield* files.listSessions({ projectKey })
    const context = yield* Layer.build(SqlSessionStore.layerSqlite({ filename: path.join(dir, "sessions.db") }))
    const store = Context.get(context, SessionStore.SessionStore)
    const imported = yield* time(Effect.forEach(listed, ({ sessionId }) =>
      SessionTransfer.importSession(store, { configDir, projectKey, sessionId }), { discard: true }))
    // The sessions each side reads: its loads of main transcripts.
    const loaded = new Set<string>()
    const stored = yield* StoredSessions.make({
      ...store,
      load: (key) => {
        if (key.subpath === undefined) loaded.add(key.sessionId)
        return store.load(key)
      }
    })
    const results = []
    for (const text of ["tool:Bash & error", "path:src/**"]) {
      const filter = yield* Filter.parse(text)
      const run = (index: boolean) =>
        Effect.gen(function*() {
          loaded.clear()
          const { ms, peakMb, value } = yield* measured(
            Stream.runCount(Sessions.select(filter, { projectKey, index })).pipe(Effect.provideService(Sessions.Sessions, stored))
          )
          return { ms, peakMb, items: value, sessionsRead: loaded.size }
        })
      const full = yield* run(false)
      const indexed = yield* run(true)
      if (full.items !== indexed.items) throw new Error(`${text}: ${full.items} items by a full read, ${indexed.items} with the index`)
      process.stderr.write(
        `${text}: ${indexed.items} items; indexed ${indexed.ms} ms, ${indexed.peakMb} MB peak, ${indexed.sessionsRead} sessions read; ` +
          `full read ${full.ms} ms, ${full.peakMb} MB peak, ${full.sessionsRead} sessions read\n`
      )
      results.push({ filter: text, items: indexed.items, indexed, full })
    }
    process.stdout.write(JSON.stringify({ sessions: listed.length, importMs: imported.ms, results }) + "\n")
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
