/**
 * The one-machine runner: a SingleRunner whose messages and turn log live in an SQLite file.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Entity from "effect/cluster/Entity"
import * as Sharding from "effect/cluster/Sharding"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Rpc from "effect/rpc/Rpc"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as child from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Cluster from "../../src/cluster/Cluster.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { waitUntil } from "../session/support/Real.ts"

const runner = (filename: string) =>
  AgentSession.layer().pipe(Layer.provideMerge(Cluster.layerSqlite({ filename })))

const turn = (turnId: string, prompt: string) =>
  Effect.flatMap(AgentSession.client, (client) => Stream.runCollect(client("s").Turn({ turnId, prompt })))

const modelTurns = Effect.flatMap(Effect.service(ScriptedServer.ScriptedServer), (server) => server.requests).pipe(
  Effect.map((requests) => ScriptedServer.turnRequests(requests).length)
)

describe("Cluster.layerSqlite", () => {
  it.live("a turn through a SingleRunner on an SQLite file; a restarted runner answers it from the file", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-cluster-"))
    const filename = path.join(dir, "cluster.db")
    return Effect.gen(function*() {
      const first = yield* turn("t-1", "hello").pipe(Effect.provide(runner(filename)))
      assert.deepStrictEqual(first[0], new AgentSession.TurnStarted({ turnId: "t-1", attempt: 1 }))
      const result = first.at(-1)
      assert.strictEqual(result?._tag === "TurnMessage" ? result.message._tag : result?._tag, "ResultSuccess")
      assert.isTrue(fs.existsSync(filename))
      assert.strictEqual(yield* modelTurns, 1)

      // A new runner on the same file: the turn is known, and so is the conversation's session id.
      const [again, info] = yield* Effect.all([
        turn("t-1", "hello"),
        Effect.flatMap(AgentSession.client, (client) => client("s").Info())
      ]).pipe(Effect.provide(runner(filename)))
      assert.deepStrictEqual(again[0], new AgentSession.TurnReplayed({ turnId: "t-1" }))
      assert.deepStrictEqual(again.slice(1), first.slice(1))
      assert.isNotNull(info.sessionId)
      assert.strictEqual(yield* modelTurns, 1)
    }).pipe(
      Effect.provide(Scripted.layer(Script.make([Script.turn("Hello from the file.")]))),
      Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    )
  })

  it.live("a closing runner does not warn of its own departure", () => {
    // Its sharding refreshes every 50 ms while an entity takes a second to drain: each refresh after the
    // runner unregistered itself would log "No healthy runners available".
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-cluster-"))
    const logged: Array<string> = []
    const capture = Logger.make((options) => {
      logged.push(`${options.logLevel}: ${String(options.message)}`)
    })
    const Slow = Entity.make("Slow", [Rpc.make("Work", { success: Schema.String })])
    const layer = Slow.toLayer({ Work: () => Effect.uninterruptible(Effect.as(Effect.sleep("1 second"), "done")) }).pipe(
      Layer.provideMerge(Cluster.layerSqlite({
        filename: path.join(dir, "quiet.db"),
        shardingConfig: { refreshAssignmentsInterval: "50 millis" }
      }))
    )
    return Effect.gen(function*() {
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* Slow.client
        const sharding = yield* Sharding.Sharding
        yield* Effect.forkChild(client("x").Work())
        yield* waitUntil(Effect.map(sharding.activeEntityCount, (n) => n > 0))
      }).pipe(Effect.provide(layer)))
      assert.deepStrictEqual(logged.filter((line) => line.includes("healthy")), [])
    }).pipe(
      Effect.provide(Logger.layer([capture])),
      Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    )
  })

  it.live("layerSqliteConfig takes its file from CLAUDE_CLUSTER_SQLITE", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-cluster-"))
    const filename = path.join(dir, "from-config.db")
    return Effect.gen(function*() {
      const info = yield* Effect.flatMap(AgentSession.client, (client) => client("configured").Info())
      assert.strictEqual(info.entityId, "configured")
      assert.isNull(info.pid)
      assert.isTrue(fs.existsSync(filename))
    }).pipe(
      Effect.provide(AgentSession.layer().pipe(
        Layer.provideMerge(Cluster.layerSqliteConfig),
        Layer.provide(Scripted.layer(Script.make([]))),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ CLAUDE_CLUSTER_SQLITE: filename })))
      )),
      Effect.ensuring(Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    )
  })
})

const root = path.join(import.meta.dirname, "..", "..")
const entry = (name: string) => JSON.stringify(pathToFileURL(path.join(root, "src", name, "index.ts")).href)

// Runs an ES module script in a new Node process, in the repository.
const runScript = (script: string) =>
  child.spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8", timeout: 60_000 })

describe("entry points", () => {
  it("importing the cluster and store entry points writes nothing to stderr (node:sqlite loads when used)", () => {
    const result = runScript(`await import(${entry("cluster")})\nawait import(${entry("store")})`)
    assert.strictEqual(result.status, 0, result.stderr)
    assert.strictEqual(result.stderr, "")
  })
})

describe("Cluster.layerPostgres", () => {
  it("without @effect/sql-pg installed fails with PostgresDriverMissing, saying how to install it", () => {
    // A process in which @effect/sql-pg cannot be found, as when the optional peer is not installed.
    const result = runScript(`
      import { registerHooks } from "node:module"
      registerHooks({
        resolve: (specifier, context, next) => {
          if (!specifier.startsWith("@effect/sql-pg")) return next(specifier, context)
          throw Object.assign(new Error("Cannot find package '" + specifier + "'"), { code: "ERR_MODULE_NOT_FOUND" })
        }
      })
      const { Effect, Layer, Redacted } = await import("effect")
      const { Cluster } = await import(${entry("cluster")})
      const layer = Cluster.layerPostgres({ url: Redacted.make("postgres://test@127.0.0.1:1/postgres") })
      const error = await Effect.runPromise(Effect.flip(Effect.scoped(Layer.build(layer))))
      console.log(JSON.stringify({ tag: error._tag, reason: error.reason?._tag, message: error.message }))
    `)
    assert.strictEqual(result.status, 0, result.stderr)
    const error = JSON.parse(result.stdout)
    assert.strictEqual(error.tag, "ClusterError")
    assert.strictEqual(error.reason, "PostgresDriverMissing")
    assert.include(error.message, "npm install @effect/sql-pg")
    assert.include(error.message, "Cannot find package '@effect/sql-pg/PgClient'")
  })
})
