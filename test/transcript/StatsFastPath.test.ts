/**
 * `stats` counts the transcript lines that hold nothing but their kind from their bytes, without decoding or
 * parsing them (`Stats.LineCheck` `"counted"`, the command's default): the figures are those of the full path
 * (`"every"`, `--every-line`: each line through the schema) over the corpus, the fixtures and real-shaped inputs,
 * and over lines made to mislead a scan of the bytes; only a line of such a kind broken inside is counted
 * otherwise (as decoded, not failed or unfit).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { build } from "../../bench/realShaped.ts"
import { generate } from "../../bench/transcripts.ts"
import * as Stats from "../../src/transcript/Stats.ts"
import * as Run from "../cli/support/Run.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { jsonlFiles, transcriptCorpusFiles, withTempDir } from "./support.ts"

const bothWays = (files: ReadonlyArray<string>) => ({
  counted: Stats.transcriptFiles(files, new Set(), "counted"),
  every: Stats.transcriptFiles(files, new Set(), "every")
})

const withDir = (f: (dir: string) => void) => withTempDir("ecc-stats-fast-", f)

describe("stats fast path", () => {
  it("the full path's figures over the corpus and the fixtures", () => {
    const files = [...transcriptCorpusFiles, ...allStreamJsonFiles]
    const { counted, every } = bothWays(files)
    assert.deepStrictEqual(counted, every)
    // The transcripts are counted (the rest, stream-json, is left to the caller on both paths).
    assert.isAtLeast(counted.filter((s) => s !== undefined).length, transcriptCorpusFiles.length - 1)
  })

  it("the full path's figures over real-shaped and generated inputs", () =>
    withDir((dir) => {
      build(path.join(dir, "real"), 30, 3 * 1024 * 1024)
      generate(path.join(dir, "generated"), 10, 1024 * 1024)
      const files = jsonlFiles(dir)
      const { counted, every } = bothWays(files)
      assert.deepStrictEqual(counted, every)
      const total = Stats.total("all", counted.filter((s) => s !== undefined))
      assert.isAbove(total.decoded, 1000)
      assert.isAbove(Object.keys(total.tools).length, 3)
    }))

  it("lines made to mislead a scan of their text count as on the full path", () =>
    withDir((dir) => {
      const base = { parentUuid: null, isSidechain: false, userType: "external", cwd: "/w", sessionId: "s", version: "2.1.1" }
      const user = (content: unknown, extra: object = {}) => ({ ...base, ...extra, type: "user", message: { role: "user", content }, uuid: "u", timestamp: "2026-01-01T00:00:00.000Z" })
      const lines = [
        // A prompt quoting JSON: its `"type":"` is escaped, inside a string.
        user("say {\"type\":\"assistant\",\"usage\":{}}"),
        // The entry's type after a nested object, and a nested type before the entry's.
        { snapshot: { messageId: "m", type: "x" }, type: "file-history-snapshot", messageId: "m" },
        { nested: { type: "summary" }, type: "summary", summary: "s" },
        // A nested type alone: the line has none of its own.
        { nested: { type: "summary" }, summary: "s" },
        // Blocks, a subtype, an unknown type, a type with an escape, a system note.
        user([{ type: "text", text: "hi" }, { type: "mystery" }]),
        { type: "summary", summary: "s", subtype: "odd" },
        { type: "no-such-entry", summary: "s" },
        { type: "sum\u0000mary", summary: "s" },
        { ...base, type: "system", content: "note", uuid: "n", timestamp: "2026-01-01T00:00:00.000Z" },
        { type: "summary", summary: "plain", leafUuid: "u" }
      ]
      const file = path.join(dir, "misleading.jsonl")
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n" +
        // A line cut short (a write cut off): not an object as far as its ends show.
        "{\"type\":\"summary\",\"summary\":\"cut\n")
      const { counted, every } = bothWays([file])
      assert.deepStrictEqual(counted, every)
      assert.strictEqual(every[0]!.failed, 2)
      assert.strictEqual(every[0]!.unknown, 2)
    }))

  it("lines whose type is not where a scan of their start finds it count as on the full path", () =>
    withDir((dir) => {
      const base = { parentUuid: null, isSidechain: false, userType: "external", cwd: "/w", sessionId: "s", version: "2.1.1" }
      const at = { uuid: "a", timestamp: "2026-01-01T00:00:00.000Z" }
      const prompt = (content: unknown) => ({ ...base, type: "user", message: { role: "user", content }, ...at })
      const lines = [
        // The entry's type after a nested one (as in an attachment), a nested subtype, a prompt quoting a block.
        JSON.stringify({ ...base, attachment: { type: "file", content: "say \\\"" }, type: "attachment", ...at }),
        JSON.stringify({ nested: { subtype: "x", type: "y" }, type: "summary", summary: "s" }),
        JSON.stringify(prompt("{\"type\":\"tool_result\"}")),
        // Strings ending in backslashes, before and after the type.
        JSON.stringify({ summary: "s\\", type: "summary", leafUuid: "u\\\\" }),
        // A second top-level type (JSON.parse keeps the last), a top-level subtype after nested objects.
        "{\"type\":\"summary\",\"summary\":\"s\",\"type\":\"user\"}",
        JSON.stringify({ nested: { a: [1, { b: "}" }] }, type: "summary", summary: "s", subtype: "odd" }),
        // Two objects on one line, a bracket closing too soon, a key with a space before its colon.
        "{\"type\":\"summary\",\"summary\":\"s\"}{\"type\":\"summary\"}",
        "{\"type\":\"summary\",\"summary\":\"s\"}{\"summary\":\"t\"}",
        "{\"type\":\"summary\",\"summary\":\"s\"}]}",
        "{\"type\" :\"summary\",\"summary\":\"s\"}"
      ]
      const file = path.join(dir, "misplaced.jsonl")
      fs.writeFileSync(file, lines.join("\n") + "\n")
      const { counted, every } = bothWays([file])
      assert.deepStrictEqual(counted, every)
      assert.deepStrictEqual([every[0]!.decoded, every[0]!.failed], [6, 4])
    }))

  it("lines across reads, long lines, CRLF, BOMs, bad UTF-8 and a last line unended count as on the full path", () =>
    withDir((dir) => {
      const summary = (text: string) => JSON.stringify({ type: "summary", summary: text, leafUuid: "u" })
      const at = { parentUuid: null, isSidechain: false, userType: "external", cwd: "/w", sessionId: "s", version: "2.1.1", uuid: "a", timestamp: "2026-01-01T00:00:00.000Z" }
      const attachment = (text: string) => JSON.stringify({ ...at, attachment: { type: "file", content: text }, type: "attachment" })
      const file = path.join(dir, "edges.jsonl")
      const lines = [
        // Lines of a few bytes to more than a read (64 KiB) and more than what is held to be told (8 MiB).
        ...[10, 70_000, 200_000, 9 * 1024 * 1024].flatMap((n) => [summary("x".repeat(n)), attachment("é\"".repeat(n / 4))]),
        "",
        summary("crlf") + "\r",
        "\ufeff" + summary("a BOM after the first line is data"),
        "   ",
        summary("last, no terminator")
      ]
      const text = Buffer.concat([
        Buffer.from("\ufeff" + summary("a BOM on the first line") + "\n" + lines.join("\n").slice(0, -1 - summary("last, no terminator").length) + "\n"),
        // A summary with bytes that are not UTF-8 inside its text, then the last line.
        Buffer.from("{\"type\":\"summary\",\"summary\":\""), Buffer.from([0xff, 0xfe]), Buffer.from("\"}\n"),
        Buffer.from(summary("last, no terminator"))
      ])
      fs.writeFileSync(file, text)
      const { counted, every } = bothWays([file])
      assert.deepStrictEqual(counted, every)
      assert.deepStrictEqual([every[0]!.lines, every[0]!.decoded, every[0]!.failed, every[0]!.blank], [15, 11, 2, 2])
    }))

  it("a line broken inside, of a kind that counts nothing else: told only when every line is checked", () =>
    withDir((dir) => {
      const file = path.join(dir, "broken-inside.jsonl")
      // A summary without its summary text (an unfit bookkeeping line), one with a syntax error inside and an
      // attachment without its envelope: objects of a known type as far as their ends show, broken inside. A
      // prompt without its message is checked either way (prompts are never told by their bytes).
      fs.writeFileSync(
        file,
        [{ type: "summary", summary: "s" }, { type: "summary", leafUuid: 7 }, { type: "attachment", uuid: "u" }]
          .map((l) => JSON.stringify(l)).join("\n") + "\n{\"type\":\"summary\" broken}\n" +
          JSON.stringify({ type: "user", uuid: "u" }) + "\n"
      )
      const { counted, every } = bothWays([file])
      assert.deepStrictEqual([every[0]!.decoded, every[0]!.unfit, every[0]!.failed], [2, 1, 3])
      assert.deepStrictEqual([counted[0]!.decoded, counted[0]!.unfit, counted[0]!.failed], [4, 0, 1])
      assert.deepStrictEqual(counted[0]!.kinds, { summary: 3, attachment: 1 })
      assert.deepStrictEqual(counted[0]!.failures.map((f) => f.line), [5])
      // The command tells such lines by their bytes unless told to check every line.
      const figures = (args: ReadonlyArray<string>) => {
        const [stats] = JSON.parse(Run.cli(["stats", "--format", "json", ...args, file]).stdout).files
        return [stats.decoded, stats.unfit, stats.failed]
      }
      assert.deepStrictEqual(figures(["--every-line"]), [2, 1, 3])
      assert.deepStrictEqual(figures([]), [4, 0, 1])
    }))
})
