/**
 * The durable sessions example against the real CLI and a scripted model: two sandboxes, each with its own
 * config directory and working directory, stand for two machines sharing one SQLite store.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Layer } from "effect"
import * as path from "node:path"
import { ProjectKey, SessionFiles, SqlSessionStore } from "../src/store/index.ts"
import { MessagesRequest, Script, Scripted } from "../src/testing/index.ts"
import { conversation, resume, start } from "./durable-sessions.ts"

const script = Script.make([], {
  subagents: [
    Script.conversation("ada", MessagesRequest.firstUserTextIncludes("My name is Ada"), [
      Script.turn("Nice to meet you, Ada."),
      Script.turn("Your name is Ada.")
    ])
  ]
})

// The CLI's transcripts of the sandbox's session, read where the sandbox's CLI keeps them.
const filesOf = Layer.unwrap(Effect.gen(function*() {
  const sandbox = yield* Scripted.Sandbox
  return SessionFiles.layer({ configDir: sandbox.env.CLAUDE_CONFIG_DIR })
}))

describe("durable sessions", () => {
  it.live("a conversation goes on in a process that never saw it", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "durable-example-" })
      const store = yield* Layer.build(SqlSessionStore.layerSqlite({ filename: path.join(dir, "sessions.db") }))

      // Machine A starts it.
      const first = yield* Effect.gen(function*() {
        const { cwd } = yield* Scripted.Sandbox
        const summary = yield* start("My name is Ada.")
        assert.strictEqual(summary.finalText, "Nice to meet you, Ada.")
        return { sessionId: summary.sessionId!, projectKey: ProjectKey.fromPath(cwd) }
      }).pipe(Effect.provide([Scripted.layer(script), Layer.succeedContext(store)]))

      // Machine B: a fresh config directory and another working directory; the store alone carries it.
      const lines = yield* Effect.gen(function*() {
        const { cwd } = yield* Scripted.Sandbox
        const summary = yield* resume(first, "What is my name?")
        assert.strictEqual(summary.finalText, "Your name is Ada.")
        assert.strictEqual(summary.sessionId, first.sessionId)
        return yield* conversation(first.sessionId, cwd).pipe(Effect.provide(filesOf))
      }).pipe(Effect.provide([Scripted.layer(script), Layer.succeedContext(store)]))

      assert.deepStrictEqual(lines, [
        "user: My name is Ada.",
        "assistant: Nice to meet you, Ada.",
        "user: What is my name?",
        "assistant: Your name is Ada."
      ])
    }).pipe(Effect.provide(NodeServices.layer)), { timeout: 120_000 })
})
