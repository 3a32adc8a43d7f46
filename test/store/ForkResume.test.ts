/**
 * A fork of a transcript with a bad line in the middle (skipped by default) keeps the conversation across it,
 * as `messages` reads it: the real CLI resuming the fork sends the turns before the bad line.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import type * as QueryOptions from "../../src/QueryOptions.ts"
import * as Scripted from "../../src/testing/Scripted.ts"
import * as Transcript from "../../src/transcript/Transcript.ts"
import * as SessionFiles from "../../src/store/SessionFiles.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { jsonlFiles } from "../transcript/support.ts"

const TestLayer = Layer.mergeAll(
  Scripted.layer(Script.make([
    Script.turn("Nice to meet you, Ada."),
    Script.turn("Your name is Ada."),
    Script.turn("Still Ada.")
  ])),
  NodeServices.layer
)

const run = (prompt: string, options?: QueryOptions.QueryOptions) =>
  ClaudeCli.query(prompt, options).pipe(
    Stream.runCollect,
    Effect.map((messages) => messages.flatMap((m) => m._tag === "SystemInit" ? [m.session_id] : [])[0]!)
  )

describe("forkSession across a bad middle line", () => {
  layer(TestLayer, { timeout: 120_000 })((it) => {
    it.effect("the fork reads, and resumes, with the turns before it", () =>
      Effect.gen(function*() {
        const sandbox = yield* Scripted.Sandbox
        const configDir = path.join(sandbox.home, ".claude")
        const sessionId = yield* run("My name is Ada.")
        yield* run("What is my name?", { resume: sessionId })
        // The first reply's line torn, as a crash in the middle of a rewrite could leave it.
        const file = jsonlFiles(path.join(configDir, "projects")).find((f) => path.basename(f) === `${sessionId}.jsonl`)!
        const lines = fs.readFileSync(file, "utf8").split("\n")
        const torn = lines.findIndex((line) => line.includes("Nice to meet you, Ada."))
        lines[torn] = lines[torn]!.slice(0, 60)
        fs.writeFileSync(file, lines.join("\n"))

        const files = yield* SessionFiles.make({ configDir })
        const fork = yield* files.forkSession(sessionId)
        assert.deepStrictEqual(fork.skippedLines, [torn + 1])
        const texts = (yield* Stream.runCollect(files.messages(fork.sessionId))).map((m) => Transcript.isMessage(m) ? m.text : "")
        assert.deepStrictEqual(texts, ["My name is Ada.", "What is my name?", "Your name is Ada."])

        const server = yield* ScriptedServer.ScriptedServer
        const before = (yield* server.requests).length
        yield* run("And now?", { resume: fork.sessionId })
        const [request] = ScriptedServer.turnRequests((yield* server.requests).slice(before))
          .map((r) => Option.getOrThrow(MessagesRequest.decode(r.body)))
        assert.include(JSON.stringify(request!.messages), "My name is Ada.")
        assert.include(JSON.stringify(request!.messages), "Your name is Ada.")
      }))
  })
})
