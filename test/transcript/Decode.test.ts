import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Transcript from "../../src/schema/Transcript.ts"
import { DecodeError } from "../../src/stream/DecodeError.ts"
import * as TranscriptDecode from "../../src/transcript/Decode.ts"
import { decodeKnown, jsonlFiles, rawEntries, realConfigDirs, realScenarios, transcriptCorpusFiles } from "./support.ts"
import { stateLines } from "./written.ts"

const decodeFile = (file: string) => TranscriptDecode.decodeAll(fs.readFileSync(file))

const entriesOf = (file: string) =>
  decodeFile(file).map((r) => {
    if (r instanceof DecodeError) throw new Error(`${path.basename(file)}: ${r.message}`)
    return r.entry
  })

describe("transcript decoding", () => {
  describe("corpus", () => {
    it("has files", () => {
      assert.isAtLeast(transcriptCorpusFiles.length, 8)
    })

    for (const file of transcriptCorpusFiles) {
      it(path.basename(file, ".jsonl"), () => {
        const raw = rawEntries(file)
        const entries = entriesOf(file)
        assert.strictEqual(entries.length, raw.length)
        entries.forEach((entry, i) => {
          const known = Transcript.isKnownType(raw[i].type, raw[i].subtype)
          assert.strictEqual(entry._tag === "UnknownEntry", !known, `line ${i + 1}: ${raw[i].type}`)
          if (entry._tag !== "UnknownEntry" && "uuid" in entry && raw[i].uuid !== undefined) {
            assert.strictEqual(entry.uuid, raw[i].uuid)
          }
        })
        // Messages keep the API payload: the same content blocks, in order.
        entries.forEach((entry, i) => {
          if (Transcript.isMessage(entry) && Array.isArray(raw[i].message.content)) {
            assert.deepStrictEqual(
              (entry.message.content as ReadonlyArray<{ readonly type: string }>).map((b) => b.type),
              raw[i].message.content.map((b: { type: string }) => b.type)
            )
          }
        })
      })
    }
  })

  it.live("real CLI transcripts decode with no unknown entries", () =>
    Effect.gen(function*() {
      const dirs = yield* realConfigDirs(realScenarios)
      const files = dirs.flatMap((dir) => jsonlFiles(path.join(dir, "projects")))
      // Each scenario's main transcript, and the subagent's.
      assert.isAtLeast(files.length, realScenarios.length + 1)
      assert.isTrue(files.some((file) => file.includes(`${path.sep}subagents${path.sep}agent-`)))
      const tags = new Set<string>()
      for (const file of files) {
        const raw = rawEntries(file)
        const entries = entriesOf(file)
        assert.strictEqual(entries.length, raw.length)
        const unknown = entries.filter((e) => e._tag === "UnknownEntry").map((e) => (e as Transcript.UnknownEntry).type)
        assert.deepStrictEqual(unknown, [], path.basename(file))
        for (const entry of entries) tags.add(entry._tag)
      }
      for (const tag of ["UserEntry", "AssistantEntry", "AttachmentEntry", "CompactBoundaryEntry", "ApiErrorEntry"]) {
        assert.isTrue(tags.has(tag), tag)
      }
    }))

  describe("bad lines", () => {
    const good = JSON.stringify({ type: "summary", summary: "A title", leafUuid: "u1" })
    const broken = JSON.stringify({ type: "summary", summary: 42 })
    const unknown = JSON.stringify({ type: "brand-new", x: 1 })
    const text = [good, broken, "not json", unknown].join("\n") + "\n"
    const bytes = Stream.make(new TextEncoder().encode(text))

    it("a known type with broken fields is a typed error naming the field", () => {
      const result = Transcript.decodeEntry(JSON.parse(broken))
      assert.isTrue(Result.isFailure(result))
      const error = (result as Result.Failure<never, Transcript.TranscriptEntryError>).failure
      assert.strictEqual(error.reason._tag, "InvalidFields")
      assert.include(error.message, "summary")
    })

    it("an unknown type is kept as a value", () => {
      const result = Transcript.decodeEntry(JSON.parse(unknown))
      assert.isTrue(Result.isSuccess(result))
      const entry = (result as Result.Success<Transcript.Entry, never>).success
      assert.strictEqual(entry._tag, "UnknownEntry")
      assert.deepStrictEqual((entry as Transcript.UnknownEntry).raw, { type: "brand-new", x: 1 })
    })

    it.effect("onBadLine fail: the entries before, then the first bad line", () =>
      Effect.gen(function*() {
        const seen: Array<Transcript.Entry> = []
        const error = yield* bytes.pipe(
          TranscriptDecode.entries(),
          Stream.runForEach((e) => Effect.sync(() => seen.push(e))),
          Effect.flip
        )
        assert.deepStrictEqual(seen.map((e) => e._tag), ["SummaryEntry"])
        assert.strictEqual(error.reason._tag, "SchemaMismatch")
        assert.strictEqual(error.line, 2)
      }))

    it.effect("onBadLine emit: every line, bad ones in-band", () =>
      Effect.gen(function*() {
        const out = yield* bytes.pipe(TranscriptDecode.records({ onBadLine: "emit" }), Stream.runCollect)
        assert.deepStrictEqual(
          out.map((r) => r instanceof DecodeError ? `${r.line}:${r.reason._tag}` : `${r.line}:${r.entry._tag}`),
          ["1:SummaryEntry", "2:SchemaMismatch", "3:InvalidJson", "4:UnknownEntry"]
        )
      }))

    it.effect("reads a file through FileSystem", () =>
      Effect.gen(function*() {
        const fsx = yield* FileSystem.FileSystem
        const file = transcriptCorpusFiles[0]
        const entries = yield* fsx.stream(file).pipe(TranscriptDecode.entries(), Stream.runCollect)
        assert.strictEqual(entries.length, rawEntries(file).length)
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  describe("older CLIs", () => {
    it("a 1.0.x system entry without a subtype is a note", () => {
      const line = {
        parentUuid: null,
        isSidechain: false,
        sessionId: "test-session",
        version: "1.0.56",
        type: "system",
        content: "Claude Opus 4 limit reached, now using Sonnet 4",
        isMeta: false,
        timestamp: "2025-07-20T22:57:25.000Z",
        uuid: "system-warning-1",
        level: "warning"
      }
      const [record] = TranscriptDecode.decodeAll(JSON.stringify(line) + "\n")
      assert.isFalse(record instanceof DecodeError, String(record))
      const entry = (record as TranscriptDecode.DecodedEntry).entry
      assert.strictEqual(entry._tag, "SystemNoteEntry")
      assert.isTrue(Transcript.isSystem(entry) && Transcript.isConversation(entry))
      assert.strictEqual((entry as Transcript.SystemNoteEntry).content, line.content)
      assert.strictEqual((entry as Transcript.SystemNoteEntry).level, "warning")
      assert.isUndefined((entry as Transcript.SystemNoteEntry).subtype)
      assert.isTrue(Transcript.isKnownType("system"))
    })

    it("a system entry with a subtype that is not a string is still an error", () => {
      const result = Transcript.decodeEntry({ type: "system", subtype: 3, uuid: "u" })
      assert.isTrue(Result.isFailure(result))
    })
  })

  describe("entry types of the pinned CLI", () => {
    for (const [line, tag, field, value] of stateLines) {
      it(`${line.type} ${field === "worktreeSession" && value === null ? "(left)" : ""}`.trim(), () => {
        assert.deepStrictEqual(decodeKnown(line, tag)[field], value)
      })
    }

    it("a broken one is a typed error naming its field", () => {
      const result = Transcript.decodeEntry({ type: "pr-link", prNumber: "12", prUrl: "u", prRepository: "o/r" })
      assert.isTrue(Result.isFailure(result))
      const error = (result as Result.Failure<never, Transcript.TranscriptEntryError>).failure
      assert.strictEqual(error.reason._tag, "InvalidFields")
      assert.include(error.message, "prNumber")
    })

    it("a progress entry links the conversation", () => {
      const entry = Transcript.decodeEntry(stateLines[0]![0])
      assert.isTrue(Result.isSuccess(entry) && Transcript.isConversation(entry.success))
    })
  })
})
