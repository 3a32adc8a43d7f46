/**
 * `stats` counts transcript files on two threads (the caller's and a worker, each taking the next file): the
 * figures are those of one thread (and of the worker alone), in the order of the files, a message copied into several files counted for the
 * first, over the corpus, the fixtures and real-shaped inputs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { build } from "../../bench/realShaped.ts"
import * as StatsThreads from "../../src/transcript/internal/threads.ts"
import * as Stats from "../../src/transcript/Stats.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { jsonlFiles, transcriptCorpusFiles } from "./support.ts"

const withDir = async (f: (dir: string) => Promise<void>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-threads-"))
  try {
    await f(dir)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// On one thread, on the worker alone, and on both (the worker started at once); each with its own `seen`, which
// ends the same.
const everyWay = async (files: ReadonlyArray<string>) => {
  const seenOne = new Set<string>()
  const one = Stats.transcriptFiles(files, seenOne)
  for (const aloneMs of ["worker", 0] as const) {
    const seen = new Set<string>()
    assert.deepStrictEqual(await StatsThreads.transcriptFiles(files, seen, "every", aloneMs), one, String(aloneMs))
    assert.deepStrictEqual([...seen].sort(), [...seenOne].sort())
  }
  return one
}

describe("stats on two threads", () => {
  it("one thread's figures over the corpus and the fixtures, unreadable files left to the caller", async () => {
    const files = [...transcriptCorpusFiles, "-", "/no/such/file.jsonl", ...allStreamJsonFiles, ...transcriptCorpusFiles]
    const counted = await everyWay(files)
    assert.isAtLeast(counted.filter((s) => s !== undefined).length, 2 * (transcriptCorpusFiles.length - 1))
    assert.strictEqual(counted[transcriptCorpusFiles.length], undefined)
  })

  it("one thread's figures over real-shaped copies, with copies of one another", () =>
    withDir(async (dir) => {
      build(dir, 40, 4 * 1024 * 1024)
      const files = jsonlFiles(dir)
      // Each file twice: the second copies count no tokens (their messages were counted first).
      const counted = await everyWay([...files, ...files])
      const tokens = (s: Stats.FileStats | undefined) => Object.values(s!.models).reduce((n, m) => n + m.inputTokens + m.outputTokens, 0)
      assert.isAbove(tokens(counted[0]), 0)
      assert.strictEqual(tokens(counted[files.length]), 0)
    }))
})
