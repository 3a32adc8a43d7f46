/**
 * The cluster's messages on PostgreSQL (`Cluster.layerPostgres`): a reply stream's chunks, acknowledgements and
 * exit, each saved in one statement (issue 23), read and stored as Effect's `SqlMessageStorage` has them.
 */
import { assert, layer } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as PgClient from "@effect/sql-pg/PgClient"
import type * as MessageStorage from "effect/cluster/MessageStorage"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as Digest from "effect/crypto/Digest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as PgMessageStorage from "../../src/cluster/internal/pgMessageStorage.ts"
import * as Postgres from "../support/Postgres.ts"

const postgres = Layer.unwrap(Effect.map(Postgres.start, ({ database, host, port, username }) =>
  PgClient.layer({ host, port, username, database }))).pipe(Layer.provide(NodeServices.layer))

const address = { shardId: { group: "default", id: 1 }, entityType: "AgentSession", entityId: "e" }
const requestId = "1001"
const chunk = (sequence: number) => ({ _tag: "Chunk", requestId, id: String(2001 + sequence), sequence, values: [{ n: sequence }] } as const)
const ack = (sequence: number) => ({ _tag: "AckChunk", id: String(3001 + sequence), address, requestId, replyId: chunk(sequence).id } as const)

// A table's rows as they stand, but for the columns a write does not decide (its order, the time of a read).
const rows = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT * FROM ${sql(table)} ORDER BY id`).pipe(
    Effect.map((rows) => rows.map(({ last_read: _, rowid: __, ...row }) => row))
  )

// A turn's way through the storage (its tables named after `prefix`), step by step: what each read gives and
// what the tables hold after each write.
const turn = (storage: MessageStorage.Encoded, prefix: string) =>
  Effect.gen(function*() {
    const read = Effect.all({
      replies: storage.repliesFor([requestId]),
      unprocessed: storage.unprocessedMessages(["default:1"], Date.now()),
      messages: rows(`${prefix}_messages`),
      replyRows: rows(`${prefix}_replies`)
    })
    const save = (envelope: Parameters<MessageStorage.Encoded["saveEnvelope"]>[0]["envelope"]) =>
      storage.saveEnvelope({ envelope, primaryKey: null, deliverAt: null })
    const steps = [
      save({ _tag: "Request", requestId, address, tag: "Turn", payload: { turnId: "t1" }, headers: {} }),
      storage.saveReply(chunk(0)),
      save(ack(0)),
      storage.saveReply(chunk(1)),
      save(ack(1)),
      storage.saveReply({ _tag: "WithExit", requestId, id: "2999", exit: { _tag: "Success", value: null } })
    ]
    const reads = []
    for (const step of steps) {
      yield* step
      reads.push(yield* read)
    }
    return reads
  })

layer(postgres, { timeout: 120_000 })("PgMessageStorage", (it) => {
  it.effect("a reply stream's writes read and stay as SqlMessageStorage's", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const ours = yield* PgMessageStorage.makeEncoded(sql)
      const reference = yield* SqlMessageStorage.makeEncoded({ prefix: "reference" })
      const [read, expected] = [yield* turn(ours, "cluster"), yield* turn(reference, "reference")]
      assert.deepStrictEqual(read, expected)
      // The exit is there to read, its chunks acknowledged; an acknowledgement waited to be read.
      assert.deepStrictEqual(read.at(-1)?.replies.map((reply) => reply._tag), ["WithExit"])
      assert.deepStrictEqual(read[2]?.unprocessed.map(({ envelope }) => envelope._tag), ["AckChunk"])
    }).pipe(Effect.provide(Digest.layerWebCrypto)))
})

