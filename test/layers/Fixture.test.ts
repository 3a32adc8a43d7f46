import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import * as Recording from "../../src/layers/Recording.ts"
import { isDecodeError } from "../../src/stream/DecodeError.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"

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
})
