/**
 * A runner stopped (SIGSTOP) in the middle of an append leaves its transaction open; PostgreSQL ends it after
 * the fenced write's idle limit (10 s), and when the runner wakes its append dies (effect/sql's rollback on the
 * closed connection is a defect, not a failure to retry): a `mirror_error`. The CLI's later frames were then
 * appended as usual, and the store's chain had a gap there: a resume from the store began after it, the turns
 * before unreachable (the chaos run's `historyBroken` 8, session `s04`, issue 23). Now the transcript's later
 * frames are held back (reported, not appended), and `stored` fails, so no turn answers over the gap.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as SqlSessionStore from "../../src/store/SqlSessionStore.ts"
import * as Postgres from "../support/Postgres.ts"
import * as MirrorFrames from "./support/mirrorFrames.ts"

const { frame, key } = MirrorFrames

// Wall-clock time: the database's own timeout runs meanwhile.
const realPause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

describe("SessionMirror over PostgreSQL", () => {
  it.live("an append whose runner was stopped past the idle limit leaves no gap: later frames are held back", () =>
    Effect.gen(function*() {
      const { database, host, port, username } = yield* Postgres.start
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* SqlSessionStore.make()
        const fence = yield* store.leases!.acquire("AgentSession/e")
        // The holder's store (its appends fenced); the append of "c" stops after its statements, before its
        // commit, for longer than the idle limit, as a runner stopped there does.
        const held: SessionStore.Shape = {
          ...store,
          append: (k, entries) =>
            entries.some((e) => e.uuid === "c")
              ? sql.withTransaction(Effect.andThen(store.append(k, entries, fence), realPause(11_000))).pipe(
                Effect.catchTag("SqlError", (error) => Effect.die(error))
              )
              : store.append(k, entries, fence)
        }
        const { errors, mirroring } = yield* MirrorFrames.eager(held)
        for (const uuids of [["a", "b"], ["c"], ["d"]]) yield* mirroring.offer(frame(uuids))
        const done = yield* Effect.exit(mirroring.stored)
        const stored = Option.getOrElse(yield* store.load(key), () => [])
        // "c" was undone with its transaction; "d", which goes on from it, was not appended after the gap.
        assert.deepStrictEqual(stored.map((e) => e.uuid), ["a", "b"])
        assert.strictEqual(errors.length, 2)
        assert.include(errors[1]!, "an earlier append of this transcript was not stored")
        // Nothing waiting on the store takes the run's entries for stored.
        assert.isTrue(Exit.isFailure(done))
      }).pipe(Effect.provide(PgClient.layer({ host, port, username, database })))
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)), 120_000)
})
