/**
 * `stats` counts many transcript files on two threads (`Stats.transcriptFiles`): each file's figures are those
 * `Stats.transcriptFile` gives it alone, in the order given; what it cannot count is left to the caller.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as NodeWorker from "node:worker_threads"
import { generate } from "../../bench/transcripts.ts"
import * as Stats from "../../src/cli/Stats.ts"
import { jsonlFiles, transcriptCorpusFiles } from "./support.ts"

describe("stats of many transcript files", () => {
  it.effect("on two threads: each file's own figures, in order", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-files-"))
      try {
        generate(dir, 40, 4 * 1024 * 1024)
        // Not transcripts, or not readable: left undefined for the caller.
        const streamJson = path.join(dir, "capture.jsonl")
        fs.writeFileSync(streamJson, JSON.stringify({ type: "system", subtype: "init", session_id: "s" }) + "\n")
        const missing = path.join(dir, "missing.jsonl")
        const files = [...jsonlFiles(dir), ...transcriptCorpusFiles, missing, "-"]
        const counted = yield* Effect.promise(() => Stats.transcriptFiles(files))
        assert.strictEqual(counted.length, files.length)
        for (const [i, file] of files.entries()) {
          const alone = file === missing || file === "-" ? undefined : yield* Stats.transcriptFile(file)
          assert.deepStrictEqual(counted[i], alone, file)
        }
        assert.strictEqual(counted.filter((s) => s !== undefined).length, files.length - 3)
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("the worker thread counts the files it claims", () =>
    Effect.gen(function*() {
      const files = transcriptCorpusFiles
      const next = new Int32Array(new SharedArrayBuffer(4))
      const worker = new NodeWorker.Worker(new URL("../../src/cli/StatsWorker.ts", import.meta.url), { workerData: { paths: files, next } })
      const claimed = yield* Effect.promise(() =>
        new Promise<ReturnType<typeof Stats.countClaimed>>((resolve, reject) => {
          worker.once("message", resolve)
          worker.once("error", reject)
        })
      )
      assert.deepStrictEqual(claimed.map(([i]) => i), files.map((_, i) => i))
      for (const [i, stats] of claimed) assert.deepStrictEqual(stats, yield* Stats.transcriptFile(files[i]!), files[i])
    }).pipe(Effect.provide(NodeServices.layer)))
})
