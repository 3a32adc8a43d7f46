import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Recording from "../../src/layers/Recording.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles, fixturesDir } from "../support/Corpus.ts"

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-fixture-"))

describe("Fixture and Recording", () => {
  for (const file of allStreamJsonFiles) {
    it.live(`records and replays ${path.basename(file)} to the same messages`, () =>
      Effect.gen(function*() {
        const original = yield* ClaudeCli.queryLenient("p").pipe(
          Stream.runCollect,
          Effect.provide(Fixture.layer(file)),
          Effect.catch(() => Effect.succeed(undefined)) // corpus runs without a result end in MissingResult
        )
        const out = path.join(dir, path.basename(file))
        const recorded = yield* ClaudeCli.queryLenient("p", { env: { ANTHROPIC_API_KEY: "sk-ant-never-shown" } }).pipe(
          Stream.runCollect,
          Effect.provide(Fixture.layer(file).pipe(Recording.layer(out))),
          Effect.catch(() => Effect.succeed(undefined))
        )
        const replayed = yield* ClaudeCli.queryLenient("p").pipe(
          Stream.runCollect,
          Effect.provide(Fixture.layer(out, { pacing: "recorded" })),
          Effect.catch(() => Effect.succeed(undefined))
        )
        const good = (xs: ReadonlyArray<unknown> | undefined) => (xs ?? []).filter((x) => !isDecodeError(x))
        assert.deepStrictEqual(good(recorded), good(original))
        assert.deepStrictEqual(good(replayed), good(original))
        assert.notInclude(fs.readFileSync(Recording.metadataPath(out), "utf8"), "sk-ant-never-shown")
      }))
  }

  it.effect("recorded pacing: each line arrives when the recording says, under the TestClock", () =>
    Effect.gen(function*() {
      const source = path.join(fixturesDir, "recorded", "simple_hello.jsonl")
      const lines = fs.readFileSync(source, "utf8").split("\n").filter((line) => line !== "")
      const file = path.join(dir, "paced.jsonl")
      fs.writeFileSync(file, lines.join("\n") + "\n")
      const timings = lines.map((_, i) => i * 1000)
      const meta: Recording.Metadata = { prompt: "p", options: {}, timings, exit: { _tag: "Success" }, skipped: [] }
      fs.writeFileSync(Recording.metadataPath(file), JSON.stringify(meta))
      const seen: Array<unknown> = []
      const fiber = yield* ClaudeCli.query("p").pipe(
        Stream.runForEach((m) => Effect.sync(() => seen.push(m))),
        Effect.provide(Fixture.layer(file, { pacing: "recorded" })),
        Effect.forkChild
      )
      yield* TestClock.adjust(0)
      assert.strictEqual(seen.length, 1)
      for (let i = 1; i < lines.length; i++) {
        yield* TestClock.adjust(999)
        assert.strictEqual(seen.length, i, `line ${i + 1} waits for its time`)
        yield* TestClock.adjust(1)
        assert.strictEqual(seen.length, i + 1)
      }
      yield* Fiber.join(fiber)
    }))
})
