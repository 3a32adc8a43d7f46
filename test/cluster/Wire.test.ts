/**
 * Every message the library decodes crosses a process boundary through each serialization the cluster can
 * use: encoded by the serialization's codec, framed as an RPC stream chunk, read back by a fresh parser and
 * decoded, over every fixture and corpus file.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as RpcSerialization from "effect/rpc/RpcSerialization"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import { WireMessage } from "../../src/cluster/Wire.ts"
import * as Message from "../../src/schema/Message.ts"
import * as Decode from "../../src/stream/Decode.ts"
import { corpusFiles, fixtureFiles, nameOf } from "../support/Corpus.ts"

const serviceOf = (layer: Layer.Layer<RpcSerialization.RpcSerialization>) =>
  Effect.runSync(Effect.service(RpcSerialization.RpcSerialization).pipe(Effect.provide(layer)))

const serializations = [
  ["ndjson", serviceOf(RpcSerialization.layerNdjson)],
  ["json", serviceOf(RpcSerialization.layerJson)],
  ["binary", serviceOf(RpcSerialization.layerSchemaBinary())],
  ["binary, fingerprinted", serviceOf(RpcSerialization.layerSchemaBinary({ fingerprintPayloads: true }))]
] as const

const messagesOf = (file: string): ReadonlyArray<Message.Message> =>
  Decode.decodeAll(fs.readFileSync(file)).flatMap((record) => record instanceof Error ? [] : [record.message])

// A chunk of values the way an RPC server sends a stream's elements, read by a fresh parser at the other end.
const acrossTheWire = (
  serialization: RpcSerialization.RpcSerialization["Service"],
  messages: ReadonlyArray<Message.Message>
): ReadonlyArray<Message.Message> => {
  const codec = serialization.codecFor(Schema.NonEmptyArray(WireMessage))
  const values = Schema.encodeSync(codec)(messages as [Message.Message, ...Array<Message.Message>])
  const frame = serialization.makeUnsafe().encode({ _tag: "Chunk", requestId: "1", values })!
  const [chunk] = serialization.makeUnsafe().decode(frame) as ReadonlyArray<{ readonly values: unknown }>
  return Schema.decodeUnknownSync(codec)(chunk.values)
}

const files = [...fixtureFiles, ...corpusFiles]

describe("messages across the cluster's serializations", () => {
  it("the class union has no binary layout; the wire schema has one", () => {
    const binary = serviceOf(RpcSerialization.layerSchemaBinary())
    assert.throws(() => binary.codecFor(Message.Message), /not uniquely identifiable/)
    assert.doesNotThrow(() => binary.codecFor(WireMessage))
  })

  for (const [name, serialization] of serializations) {
    describe(name, () => {
      for (const file of files) {
        const messages = messagesOf(file)
        if (messages.length === 0) continue
        it(nameOf(file), () => {
          const back = acrossTheWire(serialization, messages)
          assert.strictEqual(back.length, messages.length)
          back.forEach((message, i) => {
            assert.strictEqual(message._tag, messages[i]._tag)
            assert.strictEqual(message.constructor, messages[i].constructor)
            assert.deepStrictEqual(Message.encodeMessage(message), Message.encodeMessage(messages[i]))
          })
        })
      }
    })
  }

  it("a value that is no message is a schema issue naming the fault", () => {
    const codec = RpcSerialization.ndjson.codecFor(WireMessage)
    assert.throws(() => Schema.decodeUnknownSync(codec)({ type: "assistant" }), /Invalid "assistant" message/)
  })
})
