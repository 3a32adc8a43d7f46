/**
 * The cluster's messages on PostgreSQL for `Cluster.layerPostgres`: Effect's `SqlMessageStorage`, with the
 * writes on a streamed reply's way changed (issue 23). A turn through an entity waits for them one after
 * another, chunk after chunk: a chunk of the reply stream is saved, the client reads it and saves its
 * acknowledgement, the runner's storage read takes that up (a write: it marks the messages read), and only
 * then does the next chunk go; the exit goes once the last chunk is acknowledged.
 *
 * - One statement each. `SqlMessageStorage` saves a reply as a transaction of 4 round trips (`BEGIN`, the
 *   request's last reply, the reply, `COMMIT`) and an acknowledgement as one of 5. A statement whose other
 *   writes go in `WITH` clauses is as atomic, in one round trip; on a loaded machine each round trip is a wait
 *   for the server and then for this process to be scheduled. Same rows, same columns (effect 4.1's tables).
 * - Chunks, acknowledgements and the storage reads commit without waiting for the disk: they go through
 *   connections of their own whose `synchronous_commit` is off. Losing one to a database crash is harmless.
 *   PostgreSQL writes its log in order, so the next synchronous commit on the server makes them durable too
 *   (on a turn's way: the store and the turn log holding the turn before its result goes, then the exit). A
 *   lost chunk, and so its acknowledgement, leaves the request where it was before the chunk: after the
 *   restart it is delivered again and the entity answers it as a re-delivery (from the turn log, or as a
 *   retry), as after a runner's death; a client that read the chunk meanwhile reads the re-delivery's chunks
 *   after it. A lost acknowledgement alone leaves its chunk unacknowledged, read again after the restart as a
 *   chunk whose acknowledgement had not committed is now. A lost read mark leaves the message unclaimed, as
 *   the runner that takes the shard after a restart makes it anyway (`resetShards`).
 * - Requests, exits and interrupts stay synchronous: a caller told its request is saved, or given its answer,
 *   keeps it through a database crash.
 *
 * @internal
 */
import { PersistenceError } from "effect/cluster/ClusterError"
import type * as Envelope from "effect/cluster/Envelope"
import * as MessageStorage from "effect/cluster/MessageStorage"
import type * as Reply from "effect/cluster/Reply"
import * as Snowflake from "effect/cluster/Snowflake"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as Context from "effect/Context"
import * as Digest from "effect/crypto/Digest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"

// `SqlMessageStorage`'s kinds: an acknowledgement's message, and a reply that is an exit (a chunk's is NULL).
const ackKind = 1
const exitKind = 0

/** A reply saved with its request's last reply (an exit also marks the request processed), in one statement. */
export const saveReply = (sql: SqlClient.SqlClient) => (reply: Reply.Encoded): Effect.Effect<void, PersistenceError> => {
  const row = {
    id: reply.id,
    kind: reply._tag === "WithExit" ? exitKind : null,
    request_id: reply.requestId,
    payload: JSON.stringify(reply._tag === "WithExit" ? reply.exit : reply.values),
    sequence: reply._tag === "Chunk" ? reply.sequence : null
  }
  const request = reply._tag === "Chunk"
    ? sql`UPDATE cluster_messages SET last_reply_id = ${reply.id} WHERE id = ${reply.requestId}`
    : sql`UPDATE cluster_messages SET processed = TRUE, last_reply_id = ${reply.id} WHERE request_id = ${reply.requestId}`
  return PersistenceError.refail(Effect.asVoid(sql`WITH request AS (${request}) INSERT INTO cluster_replies ${sql.insert(row)}`))
}

/**
 * An acknowledgement saved in one statement: its chunk marked acknowledged, the request's acknowledgements
 * before it marked processed (a `WITH` clause does not see the row its statement inserts, so this one is not).
 */
export const saveAck = (sql: SqlClient.SqlClient) =>
(envelope: Envelope.AckChunkEncoded, deliverAt: number | null): Effect.Effect<void, PersistenceError> => {
  const row = {
    id: envelope.id,
    message_id: null,
    shard_id: `${envelope.address.shardId.group}:${envelope.address.shardId.id}`,
    entity_type: envelope.address.entityType,
    entity_id: envelope.address.entityId,
    kind: ackKind,
    tag: null,
    payload: null,
    headers: null,
    trace_id: null,
    span_id: null,
    sampled: null,
    request_id: envelope.requestId,
    reply_id: envelope.replyId,
    deliver_at: deliverAt
  }
  return PersistenceError.refail(Effect.asVoid(sql`
    WITH acked AS (UPDATE cluster_replies SET acked = TRUE WHERE id = ${envelope.replyId}),
    earlier AS (
      UPDATE cluster_messages SET processed = TRUE
      WHERE processed = FALSE AND request_id = ${envelope.requestId} AND kind = ${ackKind}
    )
    INSERT INTO cluster_messages ${sql.insert(row)}`))
}

/**
 * The storage's driver: `SqlMessageStorage`'s (its tables created) on the `SqlClient` in context, its chunks,
 * acknowledgements and reads on `unflushed`, a client of the same database whose `synchronous_commit` is off.
 */
export const makeEncoded = (unflushed: SqlClient.SqlClient): Effect.Effect<MessageStorage.Encoded, never, SqlClient.SqlClient | Digest.Digest> =>
  Effect.gen(function*() {
    const sql = (yield* SqlClient.SqlClient).withoutTransforms()
    const durable = yield* SqlMessageStorage.makeEncoded()
    const reads = yield* Effect.provideService(SqlMessageStorage.makeEncodedStorage(), SqlClient.SqlClient, unflushed)
    const fast = unflushed.withoutTransforms()
    return {
      ...durable,
      saveEnvelope: (options) =>
        options.envelope._tag === "AckChunk"
          ? Effect.as(saveAck(fast)(options.envelope, options.deliverAt), MessageStorage.SaveResultEncoded.Success())
          : durable.saveEnvelope(options),
      saveReply: (reply) => saveReply(reply._tag === "Chunk" ? fast : sql)(reply),
      unprocessedMessages: reads.unprocessedMessages
    }
  })

/** The storage, its unflushed connections from `unflushed` (built with it, closed with it). */
export const layer = <E>(unflushed: Layer.Layer<SqlClient.SqlClient, E>): Layer.Layer<MessageStorage.MessageStorage, E, SqlClient.SqlClient> =>
  Layer.effect(
    MessageStorage.MessageStorage,
    Effect.gen(function*() {
      const client = Context.get(yield* Layer.build(unflushed), SqlClient.SqlClient)
      return yield* MessageStorage.makeEncoded(yield* makeEncoded(client))
    })
  ).pipe(Layer.provide([Snowflake.layerGenerator, Digest.layerWebCrypto]))
