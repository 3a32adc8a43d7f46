/**
 * A runner fenced out of a conversation, whose CLI's entries the store refused, may take the conversation's
 * lease back (a takeover that went no further: the other runner died between its lease and its first turn).
 * Its machine's transcript still holds the refused entries; resumed from there, its CLI went on from them, and
 * the store took entries whose parent it never held: a resume from the store elsewhere began at the first of
 * them, every turn before it unreachable. Suspected in a chaos run (`historyBroken` 8, session `s04`, issue 23).
 * Here the other runner takes the lease the moment the runner's CLI appends the second turn's answer; the next
 * turn runs on the runner again: every entry the store (PostgreSQL) took goes on from one it holds, and a
 * runner that never saw the conversation resumes it from the store with every turn the store took.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as SqlSessionStore from "../../src/store/SqlSessionStore.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Postgres from "../support/Postgres.ts"
import * as Runners from "./support/Runners.ts"
import * as StoredEntity from "./support/storedEntity.ts"

const lease = AgentSession.logKey("AgentSession", "e")

// The store on PostgreSQL; the other runner takes the lease as the second turn's answer is appended (once).
let taken = false
const store = Layer.unwrap(Effect.gen(function*() {
  const { database, host, port, username } = yield* Postgres.start
  return Layer.effect(
    SessionStore.SessionStore,
    Effect.map(SqlSessionStore.make(), (sql): SessionStore.Shape => ({
      ...sql,
      append: (key, entries, fence) =>
        Effect.andThen(
          !taken && JSON.stringify(entries).includes("Answer 2.")
            ? Effect.andThen(Effect.sync(() => (taken = true)), Effect.orDie(sql.leases!.acquire(lease)))
            : Effect.void,
          sql.append(key, entries, fence)
        )
    }))
  ).pipe(Layer.provide(PgClient.layer({ host, port, username, database })))
}))

const env = StoredEntity.layer(
  Script.conversation("back", MessagesRequest.firstUserTextIncludes("back:"), [1, 2, 3, 4, 5].map((n) => Script.turn(`Answer ${n}.`)))
).pipe(Layer.provideMerge(store))

describe("AgentSession: a runner that takes its lease back", () => {
  it.live("goes on from the store's chain, not from the entries the store refused", () =>
    Effect.gen(function*() {
      const client = yield* AgentSession.client
      const server = yield* ScriptedServer.ScriptedServer
      const sandbox = yield* Scripted.Sandbox
      const first = Runners.resultText(yield* Runners.collect("e", "t1", "back: first"))
      // Fenced out as it appends the turn's answer: the turn ends without it.
      const second = yield* Effect.exit(Runners.collect("e", "t2", "back: second"))
      assert.isTrue(taken)
      assert.isFalse(second._tag === "Success" && Runners.resultText(second.value).startsWith("Answer"), "no answer once fenced out")
      // The next turn on the same runner, which takes the lease again.
      const third = Runners.resultText(yield* Runners.collect("e", "t3", "back: third"))
      assert.match(third, /^Answer/)
      // The stored chain has no gap: each entry's parent is stored.
      const sessionId = (yield* client("e").Info()).sessionId!
      const store = yield* SessionStore.SessionStore
      const [projectKey] = yield* store.findProjects!(sessionId)
      const stored = Option.getOrThrow(yield* store.load({ projectKey: projectKey!, sessionId }))
      const uuids = new Set(stored.map((entry) => entry.uuid))
      assert.deepStrictEqual(stored.filter((entry) => typeof entry.parentUuid === "string" && !uuids.has(entry.parentUuid)), [])
      // The runner's own transcript, with the refused answer, is set aside beside the stored one, not lost.
      const projects = path.join(sandbox.env.CLAUDE_CONFIG_DIR!, "projects")
      const aside = fs.readdirSync(projects, { recursive: true, encoding: "utf8" }).filter((f) => f.includes(`${sessionId}.jsonl.aside-`))
      assert.strictEqual(aside.length, 1)
      assert.include(fs.readFileSync(path.join(projects, aside[0]!), "utf8"), "Answer 2.")

      // A runner that never saw the conversation (no transcript on its machine) resumes it from the store.
      yield* client("e").Close()
      fs.rmSync(projects, { recursive: true, force: true })
      assert.match(Runners.resultText(yield* Runners.collect("e", "t4", "back: fourth")), /^Answer/)
      const last = ScriptedServer.turnRequests(yield* server.requests).filter((r) => r.conversation === "back").at(-1)!
      const body = JSON.stringify(last.body)
      for (const text of ["back: first", first, "back: third", third, "back: fourth"]) assert.include(body, text)
    }).pipe(Effect.provide(env), Effect.provide(NodeServices.layer)), 240_000)
})
