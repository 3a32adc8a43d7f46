/**
 * `stats` counts a transcript file from its entries directly (`Stats.transcriptFile`): the same figures as
 * counting the stream-json messages the entries stand for (`Stats.transcriptSink`), on every transcript of the
 * corpus, on transcripts the real CLI writes, on transcripts the benchmark generates (lines spanning the reads included) and on bad lines.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { generate } from "../../bench/transcripts.ts"
import * as Stats from "../../src/cli/Stats.ts"
import * as TranscriptDecode from "../../src/transcript/Decode.ts"
import { jsonlFiles, realConfigDirs, realScenarios, transcriptCorpusFiles } from "./support.ts"

// Both ways of counting one file.
const both = (file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const direct = yield* Stats.transcriptFile(file)
    if (direct === undefined) return assert.fail(`${file} is not read as a transcript`)
    const viaMessages = yield* fs.stream(file).pipe(
      TranscriptDecode.records({ onBadLine: "emit" }),
      Stream.run(Stats.transcriptSink(file))
    )
    return { direct, viaMessages }
  }).pipe(Effect.provide(NodeServices.layer))

const same = (files: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const all = yield* Effect.forEach(files, both)
    for (const { direct, viaMessages } of all) assert.deepStrictEqual(direct, viaMessages, direct.path)
    return all.map((r) => r.direct)
  })

describe("stats of a transcript file", () => {
  it.effect("the corpus: the same figures as through the messages", () =>
    Effect.gen(function*() {
      const counted = yield* same(transcriptCorpusFiles)
      assert.isAtLeast(counted.length, 8)
      // The corpus holds tool calls, their durations and tokens: the comparison is not of empty figures.
      const total = Stats.total("corpus", counted)
      assert.isAbove(Object.keys(total.tools).length, 3)
      assert.isAbove(total.tools.Task!.durationMs, 0)
      assert.isAbove(Object.keys(total.models).length, 4)
    }))

  it.live("transcripts the real CLI wrote", () =>
    Effect.gen(function*() {
      const dirs = yield* realConfigDirs(realScenarios)
      const counted = yield* same(dirs.flatMap((dir) => jsonlFiles(path.join(dir, "projects"))))
      // A subagent's calls and the model's tokens among them.
      const total = Stats.total("real", counted)
      assert.isAbove(total.tools.Task!.calls, 0)
      assert.isAbove(Object.values(total.models).reduce((n, m) => n + m.outputTokens, 0), 0)
    }), 300_000)

  it.effect("generated transcripts, some larger than a read", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-"))
      try {
        generate(path.join(dir, "small"), 20, 2 * 1024 * 1024)
        generate(path.join(dir, "large"), 2, 5 * 1024 * 1024)
        const files = jsonlFiles(dir)
        assert.strictEqual(files.length, 22)
        const counted = yield* same(files)
        const total = Stats.total("generated", counted)
        assert.isAbove(total.tools.Bash!.calls, 0)
        assert.strictEqual(Object.keys(total.models).length, 3)
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }))

  it.effect("bad lines, unknown entries and blocks, denials", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-"))
      try {
        const envelope = { sessionId: "s", cwd: "/", uuid: "u", parentUuid: null, isSidechain: false, timestamp: "2026-01-01T00:00:00.000Z" }
        const lines = [
          { ...envelope, type: "assistant", message: { id: "m1", type: "message", role: "assistant", model: "claude-sonnet-4-20250514", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }, { type: "new_block_kind" }], stop_reason: null, usage: { input_tokens: 1, output_tokens: 2 } } },
          { ...envelope, type: "user", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", is_error: true, content: "The user doesn't want to proceed with this tool use. The tool use was rejected." }] } },
          { ...envelope, type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "nobody", content: "ok" }] } },
          { type: "a-future-entry", x: 1 },
          { ...envelope, type: "assistant", message: "not a message" }
        ].map((l) => JSON.stringify(l))
        const file = path.join(dir, "bad.jsonl")
        const text = [lines[0], "{not json", "", ...lines.slice(1)].join("\n") + "\n"
        // The last line is not UTF-8.
        fs.writeFileSync(file, Buffer.concat([Buffer.from(text), Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]))
        const [counted] = yield* same([file])
        assert.deepStrictEqual(counted!.failures.map((f) => f.reason.split(":")[0]), ["InvalidJson", "SchemaMismatch", "InvalidUtf8"])
        assert.strictEqual(counted!.unknown, 1)
        assert.strictEqual(counted!.tools.Bash!.denied, 1)
        assert.strictEqual(counted!.tools["(unknown tool)"]!.calls, 0)
        assert.deepStrictEqual(counted!.unknownTypes, { "a-future-entry": 1, "assistant block new_block_kind": 1 })
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }))
})
