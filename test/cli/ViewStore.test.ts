/**
 * `view --store` and `stats --store` read a store's sessions as `view` and `stats` read the same sessions as a
 * directory of transcripts, each session named PROJECT_KEY/SESSION_ID: over a directory store, SQLite and
 * PostgreSQL, holding the transcript corpus imported from a config directory.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DirectorySessionStore from "../../src/store/DirectorySessionStore.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as SessionTransfer from "../../src/store/SessionTransfer.ts"
import * as SqlSessionStore from "../../src/store/SqlSessionStore.ts"
import { transcriptFiles } from "../support/Corpus.ts"
import * as Postgres from "../support/Postgres.ts"
import * as Run from "./support/Run.ts"

const projectKey = "-work-stored"

// A config directory holding every transcript of the corpus as a session of one project.
const configDir = Effect.gen(function*() {
  const fsx = yield* FileSystem.FileSystem
  const dir = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "view-store-" }))
  fs.mkdirSync(path.join(dir, "projects", projectKey), { recursive: true })
  const sessionIds = transcriptFiles.map((file, index) => {
    const sessionId = `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`
    fs.copyFileSync(file, path.join(dir, "projects", projectKey, `${sessionId}.jsonl`))
    return sessionId
  })
  // The sessions a listing shows: a subagent's transcript (a sidechain) is not a session of its own, and is left
  // out of the directory too, so that both read the same sessions.
  const listed = new Set((yield* (yield* SessionFiles.make({ configDir: dir })).listSessions()).map((s) => s.sessionId))
  for (const sessionId of sessionIds) {
    if (!listed.has(sessionId)) fs.rmSync(path.join(dir, "projects", projectKey, `${sessionId}.jsonl`))
  }
  assert.isAbove(listed.size, 10)
  return { dir, sessionIds: sessionIds.filter((id) => listed.has(id)) }
})

// Each kind of store, filled in a scope of its own (closed before the command line opens it), and its --store.
const kinds: ReadonlyArray<{
  readonly name: string
  readonly make: (root: string) => Effect.Effect<{ readonly store: SessionStore.Shape; readonly spec: string }, unknown, any>
}> = [
  { name: "directory", make: (root) => Effect.map(DirectorySessionStore.make(root), (store) => ({ store, spec: root })) },
  {
    name: "SQLite",
    make: (root) =>
      Effect.map(
        Layer.build(SqlSessionStore.layerSqlite({ filename: path.join(root, "sessions.db") })),
        (context) => ({ store: Context.get(context, SessionStore.SessionStore), spec: `sqlite:${path.join(root, "sessions.db")}` })
      )
  },
  {
    name: "PostgreSQL",
    make: () =>
      Effect.gen(function*() {
        const server = yield* Postgres.start
        const client = yield* Layer.build(PgClient.layer({ url: Redacted.make(server.url) }))
        return { store: yield* Effect.provide(SqlSessionStore.make(), client), spec: server.url }
      })
  }
]

const ok = (args: ReadonlyArray<string>) => {
  const run = Run.cli(args)
  assert.strictEqual(run.status, 0, `${args.join(" ")}: ${run.stderr}`)
  return run.stdout
}

layer(NodeServices.layer, { timeout: 180_000 })("--store", (it) => {
  for (const kind of kinds) {
    describe(kind.name, () => {
      it.effect("view and stats as over the directory, each session named", () =>
        Effect.gen(function*() {
          const { dir, sessionIds } = yield* configDir
          const fsx = yield* FileSystem.FileSystem
          const root = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-" }))
          const { spec, store } = yield* kind.make(root)
          for (const sessionId of sessionIds) {
            yield* SessionTransfer.importSession(store, { configDir: dir, projectKey, sessionId })
          }
          const sessionsDir = path.join(dir, "projects", projectKey)
          const store_ = ["--store", spec, `--project=${projectKey}`]
          for (const filter of ["tool:Bash & error", "tool:Read", "denied", "text"]) {
            const expected = ok(["view", "--format", "jsonl", "--filter", filter, sessionsDir])
            assert.isAbove(expected.length, 0, filter)
            assert.strictEqual(ok(["view", "--format", "jsonl", "--filter", filter, ...store_]), expected, filter)
          }
          // Pretty: a header per session, naming it; the rest as over the directory.
          const named = (text: string, prefix: string) => text.replaceAll(`── ${prefix}`, "── ")
          const pretty = ok(["view", "--filter", "tool:Read", ...store_])
          const headers = pretty.split("\n").filter((line) => line.startsWith("── "))
          assert.isAbove(headers.length, 0)
          for (const header of headers) assert.match(header, new RegExp(`^── ${projectKey}/[0-9a-f-]{36} ──$`))
          assert.strictEqual(
            named(pretty, `${projectKey}/`).replaceAll(" ──", ".jsonl ──"),
            named(ok(["view", "--filter", "tool:Read", sessionsDir]), `${sessionsDir}/`)
          )
          // Stats: each session's figures, named by its session, and their total, as over the directory.
          const stats = JSON.parse(ok(["stats", "--format", "json", ...store_]))
          const direct = JSON.parse(ok(["stats", "--format", "json", sessionsDir]))
          assert.strictEqual(stats.files.length, sessionIds.length)
          assert.deepStrictEqual(
            stats.files.map((f: { path: string }) => f.path),
            sessionIds.map((id) => `${projectKey}/${id}`)
          )
          assert.deepStrictEqual(
            stats.files.map((f: object) => ({ ...f, path: undefined })),
            direct.files.map((f: object) => ({ ...f, path: undefined }))
          )
          assert.deepStrictEqual(stats.total, direct.total)
          // Without --project: every project's sessions.
          const copied = yield* store.load({ projectKey, sessionId: sessionIds[0]! })
          yield* store.append({ projectKey: "-work-other", sessionId: sessionIds[0]! }, Option.getOrThrow(copied))
          const everywhere = JSON.parse(ok(["stats", "--format", "json", "--store", spec]))
          assert.sameMembers(
            everywhere.files.map((f: { path: string }) => f.path),
            [...sessionIds.map((id) => `${projectKey}/${id}`), `-work-other/${sessionIds[0]}`]
          )
        }))
    })
  }

  it.effect("a store with no session in the project is an input error naming it", () =>
    Effect.gen(function*() {
      const fsx = yield* FileSystem.FileSystem
      const root = yield* Effect.orDie(fsx.makeTempDirectoryScoped({ prefix: "store-empty-" }))
      for (const command of ["view", "stats"]) {
        const run = Run.cli([command, "--store", root, "--project=-work-none"])
        assert.strictEqual(run.status, 3, command)
        assert.include(run.stderr, `--store ${root}: no session in project -work-none`, command)
      }
    }))

  it.effect("--store with a FILE or --follow is a usage error", () =>
    Effect.sync(() => {
      const run = Run.cli(["view", "--store", "sqlite:/nonexistent/x.db", "fixtures/recorded/simple_hello.jsonl"])
      assert.strictEqual(run.status, 2)
      assert.include(run.stderr, "give no FILE with it")
      const follow = Run.cli(["view", "-f", "--store", "fixtures", "--project=-work-none"])
      assert.strictEqual(follow.status, 2)
      assert.include(follow.stderr, "not with --store")
    }))
})
