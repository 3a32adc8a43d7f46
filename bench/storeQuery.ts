/**
 * `node bench/storeQuery.ts [SESSIONS]`: `Sessions.select` over a SQLite store of SESSIONS transcripts (default
 * 1,000; those a listing shows as sessions, not sidechains, are imported and queried), each a transcript of the
 * corpus in turn (fixtures/transcripts*), against the
 * same filter run over the config directory they were imported from. Prints, per filter, the items selected
 * (which must be equal on both sides, or the run fails) and the time of each side, then one JSON line.
 * Every session is read whole: the measure of a query with no index.
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

const program = Effect.gen(function*() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-bench-store-"))
  try {
    const projects = path.join(dir, "config", "projects", projectKey)
    fs.mkdirSync(projects, { recursive: true })
    for (let i = 0; i < count; i++) {
      fs.copyFileSync(sources[i % sources.length]!, path.join(projects, `00000000-0000-4000-8000-${String(i).padStart(12, "0")}.jsonl`))
    }
    const configDir = path.join(dir, "config")
    const files = yield* SessionFiles.make({ configDir })
    const listed = yield* files.listSessions({ projectKey })
    const context = yield* Layer.build(SqlSessionStore.layerSqlite({ filename: path.join(dir, "sessions.db") }))
    const store = Context.get(context, SessionStore.SessionStore)
    const imported = yield* time(Effect.forEach(listed, ({ sessionId }) =>
      SessionTransfer.importSession(store, { configDir, projectKey, sessionId }), { discard: true }))
    const stored = yield* StoredSessions.make(store)
    const results = []
    for (const text of ["tool:Bash & error", "tool:Read", "denied", "text"]) {
      const filter = yield* Filter.parse(text)
      const run = (sessions: Sessions.Shape) =>
        time(Stream.runCount(Sessions.select(filter, { projectKey })).pipe(Effect.provideService(Sessions.Sessions, sessions)))
      const fromFiles = yield* run(files)
      const fromStore = yield* run(stored)
      if (fromFiles.value !== fromStore.value) throw new Error(`${text}: ${fromFiles.value} items from files, ${fromStore.value} from the store`)
      process.stderr.write(`${text}: ${fromStore.value} items; SQLite ${fromStore.ms} ms, files ${fromFiles.ms} ms\n`)
      results.push({ filter: text, items: fromStore.value, sqliteMs: fromStore.ms, filesMs: fromFiles.ms })
    }
    process.stdout.write(JSON.stringify({ sessions: listed.length, importMs: imported.ms, results }) + "\n")
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
