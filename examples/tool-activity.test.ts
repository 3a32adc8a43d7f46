/**
 * Test it without a network or an API key: swap the layer. The real CLI takes a few seconds to start and
 * answer, more on a busy machine: give such tests a timeout of 60 seconds (vitest's default is 5).
 */
import { assert, describe, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, FileSystem, Stream } from "effect"
import { Fixture, Recording } from "../src/layers/index.ts"
import { Script, Scripted } from "../src/testing/index.ts"
import { bashCommands, summary, toolCalls } from "./tool-activity.ts"

// The real `claude` binary against a scripted model on loopback: the CLI runs its real tools.
const countFiles = Scripted.layer(
  Script.make([
    Script.turn(Script.toolUse("Bash", { command: "ls | wc -l" })),
    Script.turn("There are 2 files.")
  ]),
  { files: { "a.txt": "a", "b.txt": "b" } }
)

describe("tool activity", () => {
  it.live("runs the real CLI against a scripted model", () =>
    Effect.gen(function*() {
      const [call] = yield* Stream.runCollect(toolCalls("How many files are here?"))
      assert.strictEqual(call.use.name, "Bash")
      assert.strictEqual(call.result?.block.text, "2")
      assert.strictEqual((yield* summary("How many files are here?")).finalText, "There are 2 files.")
    }).pipe(Effect.provide(countFiles)), { timeout: 60_000 })

  // Record a run once, then replay it without a process, through the same framing and decoding.
  it.live("replays a recorded run", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const recording = `${yield* fs.makeTempDirectoryScoped()}/count-files.jsonl`
      yield* summary("How many files are here?").pipe(Effect.provide(countFiles.pipe(Recording.layer(recording))))
      const replayed = Fixture.layer(recording)
      const commands = yield* Stream.runCollect(bashCommands("How many files are here?")).pipe(Effect.provide(replayed))
      assert.deepStrictEqual(commands, ["ls | wc -l"])
      const { success, numTurns } = yield* summary("How many files are here?").pipe(Effect.provide(replayed))
      assert.deepStrictEqual({ success, numTurns }, { success: true, numTurns: 2 })
    }).pipe(Effect.provide(NodeServices.layer)), { timeout: 60_000 })
})
