/**
 * How the CLI's messages cross processes: the schema the cluster's RPCs carry them with.
 *
 * A message travels as the CLI's own JSON (what {@link Message.encodeMessage} writes) and is decoded on arrival
 * by {@link Message.decodeMessage}. The class union itself is not used as the wire schema because the binary
 * serialization (`RpcSerialization.layerSchemaBinary`) tells the struct members of a union apart only by a
 * literal field (a sentinel) in each of them, and an open union has a member without one: the fallback of a
 * type this version does not know (`UnknownMessage`, `{ type: string, ...rest }`), and a content block whose
 * `type` is one of several literals. The CLI's JSON is already the versioned, canonical form of a message, so
 * carrying it as a JSON value works in every serialization (ndjson, JSON, binary) and keeps unknown types
 * intact.
 *
 * @since 0.1.0
 */
import type * as Schema from "effect/Schema"
import * as MessageJson from "../schema/internal/messageJson.ts"
import type * as Message from "../schema/Message.ts"

const isMessage = (input: unknown): input is Message.Message =>
  typeof input === "object" && input !== null && typeof (input as { _tag?: unknown })._tag === "string"

/**
 * A {@link Message.Message} carried as the CLI's JSON: encodes with `encodeMessage`, decodes with
 * `decodeMessage` (a JSON value that is not a valid message is an `InvalidValue` issue naming what was wrong).
 *
 * @since 0.1.0
 * @category schemas
 */
export const WireMessage: Schema.Codec<Message.Message, Schema.Json> = MessageJson.make(
  "effect-claude-code/Message",
  isMessage
)
