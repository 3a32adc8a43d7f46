/**
 * `stats` counts transcript files through `node:fs` synchronously first (`Stats.transcriptFiles`): each file's
 * figures are those `Stats.transcriptFile` gives it, in the order given; what it cannot count is left to the caller.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generate } from "../../bench/transcripts.ts"
import * as Stats from "../../src/cli/Stats.ts"
import { jsonlFiles, transcriptCorpusFiles } from "./support.ts"

describe("stats of many transcript files", () => {
  it.effect("each file's own figures, in order", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-files-"))
      try {
        generate(dir, 40, 4 * 1024 * 1024)
        // Not transcripts, or not readable: left undefined for the caller.
        const streamJson = path.join(dir, "capture.jsonl")
        fs.writeFileSync(streamJson, JSON.stringify({ type: "system", subtype: "init", session_id: "s" }) + "\n")
        const missing = path.join(dir, "missing.jsonl")
        // A named pipe without a writer: opened without waiting for one, and not read.
        const pipe = path.join(dir, "pipe.jsonl")
        childProcess.execFileSync("mkfifo", [pipe])
        const files = [...jsonlFiles(dir).filter((file) => file !== pipe), ...transcriptCorpusFiles, missing, pipe, "-"]
        const counted = Stats.transcriptFiles(files)
        assert.strictEqual(counted.length, files.length)
        for (const [i, file] of files.entries()) {
          const alone = file === missing || file === pipe || file === "-" ? undefined : yield* Stats.transcriptFile(file)
          assert.deepStrictEqual(counted[i], alone, file)
        }
        assert.strictEqual(counted.filter((s) => s !== undefined).length, files.length - 4)
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }).pipe(Effect.provide(NodeServices.layer)))
})
