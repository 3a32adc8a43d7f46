/**
 * The entity's error crosses the cluster's serializations with the session's own error inside, typed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as RpcSerialization from "effect/rpc/RpcSerialization"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import * as CliError from "../../src/ClaudeCliError.ts"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Message from "../../src/schema/Message.ts"
import * as SessionError from "../../src/session/SessionError.ts"

const serviceOf = (layer: Layer.Layer<RpcSerialization.RpcSerialization>) =>
  Effect.runSync(Effect.service(RpcSerialization.RpcSerialization).pipe(Effect.provide(layer)))

const serializations = [
  ["ndjson", serviceOf(RpcSerialization.layerNdjson)],
  ["binary", serviceOf(RpcSerialization.layerSchemaBinary())]
] as const

// The error result of the recorded max-turns run, as the stream decodes it.
const maxTurns = Result.getOrThrow(Message.decodeMessage(JSON.parse(
  fs.readFileSync(path.join(import.meta.dirname, "..", "..", "fixtures", "recorded", "error_max_turns.jsonl"), "utf8")
    .trim().split("\n").at(-1)!
))) as CliError.ErrorResultExit["result"]

const failed = (error: CliError.ClaudeCliError | SessionError.SessionError) =>
  new AgentSession.AgentSessionError({ reason: new AgentSession.SessionFailed({ operation: "turn", error }) })

const errors = [
  failed(CliError.make(new CliError.ProcessExited({ exitCode: null, signal: "SIGKILL", stderrTail: "killed\n" }))),
  failed(CliError.make(new CliError.ProcessExited({ exitCode: 1, signal: null, stderrTail: "", cause: new Error("cut") }))),
  failed(CliError.make(new CliError.IdleTimeout({ timeoutMillis: 5000, lastLine: 3, stderrTail: "" }))),
  failed(SessionError.make(new SessionError.InterruptTimeout({ timeoutMillis: 2000 }))),
  // A reason holding a decoded message: the class union of results has no field the binary layout tells apart by.
  failed(CliError.make(new CliError.ErrorResultExit({ result: maxTurns, exitCode: 1, stderrTail: "" })))
]

// Encoded by the serialization's codec, framed as an RPC chunk, read back by a fresh parser and decoded.
const acrossTheWire = (serialization: RpcSerialization.RpcSerialization["Service"], error: AgentSession.AgentSessionError) => {
  const codec = serialization.codecFor(Schema.NonEmptyArray(AgentSession.AgentSessionError))
  const frame = serialization.makeUnsafe().encode({ _tag: "Chunk", requestId: "1", values: Schema.encodeSync(codec)([error]) })!
  const [chunk] = serialization.makeUnsafe().decode(frame) as ReadonlyArray<{ readonly values: unknown }>
  return Schema.decodeUnknownSync(codec)(chunk.values)[0]
}

describe("AgentSessionError across the wire", () => {
  for (const [name, serialization] of serializations) {
    it(`${name}: SessionFailed keeps the session error's reason and data`, () => {
      for (const error of errors) {
        const back = acrossTheWire(serialization, error)
        assert.instanceOf(back, AgentSession.AgentSessionError)
        assert.strictEqual(back.reason._tag, "SessionFailed")
        const inner = back.reason._tag === "SessionFailed" ? back.reason.error : undefined
        const sent = error.reason._tag === "SessionFailed" ? error.reason.error : undefined
        assert.strictEqual(inner?.constructor, sent?.constructor)
        assert.strictEqual(inner?.reason.constructor, sent?.reason.constructor)
        const { cause: _, ...data } = sent!.reason as unknown as Record<string, unknown>
        for (const [key, value] of Object.entries(data)) {
          assert.deepStrictEqual((inner!.reason as unknown as Record<string, unknown>)[key], value, key)
        }
        assert.strictEqual(back.message, error.message)
      }
    })
  }
})
