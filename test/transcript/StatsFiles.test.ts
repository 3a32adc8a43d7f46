/**
 * `stats` counts transcript files through `node:fs` synchronously first (`Stats.transcriptFiles`): each file's
 * figures are those `Stats.transcriptFile` gives it, in the order given; what it cannot count is left to the caller.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generate } from "../../bench/transcripts.ts"
import * as Stats from "../../src/cli/Stats.ts"
import * as TranscriptDecode from "../../src/transcript/Decode.ts"
import { jsonlFiles, transcriptCorpusFiles } from "./support.ts"

layer(NodeServices.layer)("stats of many transcript files", (it) => {
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
    }))

  it.effect("a message copied into several files counts for the first, on every path alike", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-copies-"))
      try {
        // The corpus transcripts with tokens, and a copy of each under another session id (a fork). (A recorded
        // transcript of a rejected request has a request id and no tokens: nothing for a copy to leave out.)
        const tokens = (s: Stats.FileStats | undefined) => Object.values(s!.models).reduce((n, m) => n + m.inputTokens + m.outputTokens, 0)
        const originals = transcriptCorpusFiles.filter((file) =>
          fs.readFileSync(file, "utf8").includes("\"requestId\"") && tokens(Stats.transcriptFileSync(file)) > 0
        )
        assert.isAbove(originals.length, 1)
        const copies = originals.map((file, i) => {
          const copy = path.join(dir, `copy-${i}.jsonl`)
          fs.writeFileSync(copy, fs.readFileSync(file, "utf8").replaceAll("\"sessionId\":\"", "\"sessionId\":\"copy-"))
          return copy
        })
        const files = [...originals, ...copies]
        const fast = Stats.transcriptFiles(files, new Set())
        const one = new Set<string>()
        const reference = new Set<string>()
        for (const [i, file] of files.entries()) {
          assert.deepStrictEqual(fast[i], yield* Stats.transcriptFile(file, one), file)
          const viaMessages = yield* FileSystem.FileSystem.pipe(
            Effect.flatMap((fs) => fs.stream(file).pipe(TranscriptDecode.records({ onBadLine: "emit" }), Stream.run(Stats.transcriptSink(file, reference))))
          )
          assert.deepStrictEqual(fast[i], viaMessages, file)
        }
        // The copies' tokens were counted with their originals; their tools are their own.
        assert.isAbove(fast.slice(0, originals.length).reduce((n, s) => n + tokens(s), 0), 0)
        for (const [i, copy] of copies.entries()) {
          const alone = Stats.transcriptFileSync(copy)!
          const withOriginal = fast[originals.length + i]!
          assert.isBelow(tokens(withOriginal), tokens(alone), copy)
          assert.deepStrictEqual(withOriginal.tools, alone.tools, copy)
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }))
})
