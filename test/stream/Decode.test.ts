import { assert, describe, it } from "@effect/vitest"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as DecodeErrors from "../../src/stream/DecodeError.ts"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as Result from "effect/Result"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { decodeMessage, type Message } from "../../src/schema/Message.ts"
import * as Decode from "../../src/stream/Decode.ts"
import { DecodeError } from "../../src/stream/DecodeError.ts"
import { tempDir } from "../layers/support.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { byteStream, chunkAt, collect, collectUntilFailure, cutsArb, isInsideCharacter, referenceLines, utf8 } from "./support.ts"

/** The expected messages of a file, computed line by line with JSON.parse and the schema directly. */
const expectedMessages = (text: string): Array<{ line: number; message: Message }> =>
  referenceLines(text).map(({ line, text }) => {
    const result = decodeMessage(JSON.parse(text))
    if (Result.isFailure(result)) throw new Error(`corpus line ${line} does not decode: ${result.failure.message}`)
    return { line, message: result.success }
  })

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const p of parts) {
    out.set(p, offset)
    offset += p.length
  }
  return out
}

// Lines that never decode, each with the reason it must give.
const garbageArb: fc.Arbitrary<{ bytes: Uint8Array; reason: Decode.DecodeError["reason"]["_tag"] }> = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => ({
    bytes: utf8(`warning: ${s.replace(/[\r\n]/g, " ")}`),
    reason: "InvalidJson" as const
  })),
  // A cut JSON object: without a closing brace it can never parse.
  fc.string({ maxLength: 10 }).map((s) => ({
    bytes: utf8(`{"type":"assistant",${s.replace(/[{}\r\n]/g, "")}`),
    reason: "InvalidJson" as const
  })),
  fc.constantFrom(
    { bytes: utf8("42"), reason: "SchemaMismatch" as const },
    { bytes: utf8("[\"type\"]"), reason: "SchemaMismatch" as const },
    { bytes: utf8("{\"no_type\":true}"), reason: "SchemaMismatch" as const },
    { bytes: utf8("{\"type\":\"assistant\"}"), reason: "SchemaMismatch" as const },
    { bytes: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), reason: "InvalidUtf8" as const },
    { bytes: new Uint8Array([0x7b, 0xe2, 0x82, 0x7d]), reason: "InvalidUtf8" as const }
  )
)

describe("Decode", () => {
  describe("every corpus file and fixture", () => {
    for (const file of allStreamJsonFiles) {
      describe(path.basename(file), () => {
        const bytes = new Uint8Array(fs.readFileSync(file))
        const expected = expectedMessages(new TextDecoder().decode(bytes))

        it("decodes each line to its messages, raw text kept", () => {
          const exit = collect(byteStream([bytes]).pipe(Decode.records()))
          assert.isTrue(Exit.isSuccess(exit), String(exit))
          if (Exit.isSuccess(exit)) {
            assert.deepStrictEqual(exit.value.map((r) => ({ line: r.line, message: r.message })), expected)
            const lines = referenceLines(new TextDecoder().decode(bytes))
            assert.deepStrictEqual(exit.value.map((r) => r.raw), lines.map((l) => l.text))
          }
        })

        it("decodeLineMessage gives each line's message, as decodeLine does", () => {
          for (const line of referenceLines(new TextDecoder().decode(bytes))) {
            const record = Decode.decodeLine(line)
            assert.deepStrictEqual(Decode.decodeLineMessage(line), DecodeErrors.isDecodeError(record) ? record : record.message)
          }
          assert.deepStrictEqual(
            referenceLines(new TextDecoder().decode(bytes)).map((line) => Decode.decodeLineMessage(line)),
            expected.map((e) => e.message)
          )
        })

        it.effect("a Node file stream decodes to the same messages", () =>
          Effect.gen(function*() {
            const stream = NodeStream.fromReadable({ evaluate: () => fs.createReadStream(file, { highWaterMark: 997 }) })
            const decoded = yield* Stream.runCollect(stream.pipe(Decode.messages()))
            assert.deepStrictEqual(decoded, expected.map((e) => e.message))
          }))

        it.effect("Decode.file decodes to the same messages", () =>
          Effect.gen(function*() {
            const decoded = yield* Stream.runCollect(Decode.file(file))
            assert.deepStrictEqual(decoded, expected.map((e) => e.message))
          }).pipe(Effect.provide(NodeFileSystem.layer)))

        it("property: any byte chunking decodes the same", () => {
          const messages = expected.map((e) => e.message)
          let cutCharacters = 0
          fc.assert(
            fc.property(cutsArb(bytes), (cuts) => {
              cutCharacters += cuts.filter((at) => isInsideCharacter(bytes, at)).length
              const exit = collect(byteStream(chunkAt(bytes, cuts)).pipe(Decode.messages()))
              assert.isTrue(Exit.isSuccess(exit))
              if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value, messages)
            }),
            { numRuns: 20 }
          )
          if (bytes.some((_, at) => isInsideCharacter(bytes, at))) assert.isAbove(cutCharacters, 0, "cuts inside characters")
        })

        it("property: garbage lines fail or are reported in-band", () => {
          const original = bytes.length === 0 ? [] : splitKeepingBlanks(bytes)
          fc.assert(
            fc.property(
              fc.array(fc.tuple(fc.nat(), garbageArb), { minLength: 1, maxLength: 6 }),
              cutsArb(bytes.length + 64),
              (insertions, cuts) => {
                const lines: Array<{ bytes: Uint8Array; reason?: Decode.DecodeError["reason"]["_tag"] }> = original.map((
                  b
                ) => ({ bytes: b }))
                for (const [at, garbage] of insertions) lines.splice(at % (lines.length + 1), 0, garbage)
                const input = concat(lines.flatMap((l) => [l.bytes, utf8("\n")]))
                const goodLines = lines.flatMap((l, i) => l.reason === undefined ? [i + 1] : [])
                const badLines = lines.flatMap((l, i) => l.reason === undefined ? [] : [[i + 1, l.reason] as const])

                const lenient = collect(byteStream(chunkAt(input, cuts)).pipe(Decode.records({ onBadLine: "emit" })))
                assert.isTrue(Exit.isSuccess(lenient))
                if (!Exit.isSuccess(lenient)) return
                const failures = lenient.value.filter((v) => v instanceof DecodeError)
                const good = lenient.value.filter((v) => !(v instanceof DecodeError))
                assert.deepStrictEqual(failures.map((f) => [f.line, f.reason._tag] as const), badLines)
                assert.deepStrictEqual(good.map((g) => g.message), expected.map((e) => e.message))
                // Blank lines of the original are skipped but counted.
                const nonBlank = goodLines.filter((n) => lines[n - 1]!.bytes.some((b) => b > 32))
                assert.deepStrictEqual(good.map((g) => g.line), nonBlank)

                const strict = collectUntilFailure(byteStream(chunkAt(input, cuts)).pipe(Decode.messages()))
                const [firstBad, reason] = badLines[0]!
                assert.strictEqual(strict.failure?.line, firstBad)
                assert.strictEqual(strict.failure?.reason._tag, reason)
                assert.deepStrictEqual(
                  strict.values,
                  good.filter((g) => g.line < firstBad).map((g) => g.message)
                )
              }
            ),
            { numRuns: 15 }
          )
        })
      })
    }
  })

  it("framed lines decode the same way, data-first too", () => {
    const text = "{\"type\":\"brand_new\"}\nwarning: not json\n{\"type\":\"other_new\"}\n"
    const lines = Stream.make({ line: 1, text: "{\"type\":\"brand_new\"}" }, { line: 2, text: "warning: not json" }, {
      line: 3,
      text: "{\"type\":\"other_new\"}"
    })
    const viaBytes = collect(Decode.records(byteStream([utf8(text)]), { onBadLine: "emit" }))
    const viaLines = collect(Decode.fromLines(lines, { onBadLine: "emit" }))
    assert.deepStrictEqual(viaLines, viaBytes)
    assert.deepStrictEqual(Exit.isSuccess(viaBytes) ? viaBytes.value : [], Decode.decodeAll(text))
    const strict = collectUntilFailure(Decode.fromLines(lines))
    assert.strictEqual(strict.values.length, 1)
    assert.strictEqual(strict.failure?.line, 2)
  })

  it("decodeLineMessage fails as decodeLine does", () => {
    for (const text of ["warning: not JSON", "42", "{\"type\":\"assistant\"}", "{\"x\":1"]) {
      const line = { line: 3, text }
      const error = Decode.decodeLineMessage(line)
      assert.instanceOf(error, DecodeError)
      assert.deepStrictEqual(error, Decode.decodeLine(line))
    }
  })

  it("errors carry the line number, a raw cut and the reason", () => {
    const long = `not json ${"x".repeat(1000)}`
    const out = Decode.decodeAll(`\n${long}\n{"type":"assistant"}\n`)
    assert.strictEqual(out.length, 2)
    const [a, b] = out as [DecodeError, DecodeError]
    assert.strictEqual(a.reason._tag, "InvalidJson")
    assert.strictEqual(a.line, 2)
    assert.isTrue(a.raw.startsWith("not json xxx"))
    assert.isBelow(a.raw.length, 300)
    assert.include(a.message, "line 2: invalid JSON")
    assert.strictEqual(b.reason._tag, "SchemaMismatch")
    assert.strictEqual(b.line, 3)
    assert.strictEqual(b.raw, "{\"type\":\"assistant\"}")
    assert.include(b.message, "line 3: schema mismatch")
  })

  it("an unknown message type passes, with fail too", () => {
    const exit = collect(byteStream([utf8("{\"type\":\"brand_new\",\"x\":1}\n")]).pipe(Decode.messages()))
    assert.isTrue(Exit.isSuccess(exit))
    if (Exit.isSuccess(exit)) assert.strictEqual(exit.value.length, 1)
  })

  it("a line over the limit fails, or is skipped with emit", () => {
    const ok = "{\"type\":\"brand_new\"}"
    const input = utf8(`${ok}\n{"type":"brand_new","pad":"${"p".repeat(100)}"}\n${ok}\n`)
    const strict = collectUntilFailure(byteStream([input]).pipe(Decode.messages({ maxLineBytes: 64 })))
    assert.strictEqual(strict.values.length, 1)
    assert.strictEqual(strict.failure?.reason._tag, "LineTooLong")
    assert.strictEqual(strict.failure?.line, 2)
    const lenient = collect(byteStream([input]).pipe(Decode.records({ onBadLine: "emit", maxLineBytes: 64 })))
    assert.isTrue(Exit.isSuccess(lenient))
    if (Exit.isSuccess(lenient)) {
      assert.deepStrictEqual(lenient.value.map((v) => v instanceof DecodeError ? v.reason._tag : v.line), [1, "LineTooLong", 3])
    }
  })

  it("lines over 1 MiB decode with the default limit", () => {
    const text = "é".repeat(1024 * 1024)
    const line = JSON.stringify({ type: "brand_new", text })
    const exit = collect(byteStream(chunkAt(utf8(line), [1, 70000, 70001, 1500000])).pipe(Decode.records()))
    assert.isTrue(Exit.isSuccess(exit))
    if (Exit.isSuccess(exit)) assert.strictEqual(exit.value[0]!.raw, line)
  })
})

describe("Decode.file", () => {
  // `bytes` in a file of its own, in a folder removed with the test's scope.
  const withFile = <A, E>(bytes: Uint8Array, use: (file: string) => Effect.Effect<A, E, FileSystem.FileSystem>) =>
    Effect.gen(function*() {
      const file = path.join(yield* tempDir("decode-file-"), "capture.jsonl")
      fs.writeFileSync(file, bytes)
      return yield* use(file)
    }).pipe(Effect.scoped, Effect.provide(NodeFileSystem.layer))

  it.effect("reads a file of many reads, lines across their bounds", () => {
    // The corpus end to end until past four reads of 256 KiB: lines fall across every bound.
    const parts: Array<Uint8Array> = []
    let size = 0
    for (let i = 0; size <= 4 * 256 * 1024; i++) {
      const part = new Uint8Array(fs.readFileSync(allStreamJsonFiles[i % allStreamJsonFiles.length]!))
      const ended = part.length === 0 || part[part.length - 1] === 0x0a ? part : concat([part, utf8("\n")])
      parts.push(ended)
      size += ended.length
    }
    const bytes = concat(parts)
    const expected = expectedMessages(new TextDecoder().decode(bytes)).map((e) => e.message)
    return withFile(bytes, (file) =>
      Effect.map(Stream.runCollect(Decode.file(file)), (decoded) => {
        assert.deepStrictEqual(decoded, expected)
      }))
  })

  it.effect("fails at a bad line after the messages before it, or emits it", () => {
    const bytes = utf8("{\"type\":\"brand_new\"}\nwarning: not json\n{\"type\":\"other_new\"}\n")
    return withFile(bytes, (file) =>
      Effect.gen(function*() {
        const seen: Array<string> = []
        const failed = yield* Effect.flip(Stream.runForEach(Decode.file(file), (m) => Effect.sync(() => seen.push(m.type))))
        assert.deepStrictEqual(seen, ["brand_new"])
        assert.strictEqual(failed._tag, "DecodeError")
        if (failed._tag === "DecodeError") assert.deepStrictEqual([failed.line, failed.reason._tag], [2, "InvalidJson"])
        const emitted = yield* Stream.runCollect(Decode.file(file, { onBadLine: "emit" }))
        assert.deepStrictEqual(emitted.map((v) => v instanceof DecodeError ? v.line : v.type), ["brand_new", 2, "other_new"])
      }))
  })

  it.effect("a missing file fails with the file system's NotFound", () =>
    Effect.gen(function*() {
      const missing = path.join(os.tmpdir(), "decode-file-missing", "none.jsonl")
      const failed = yield* Effect.flip(Stream.runCollect(Decode.file(missing)))
      assert.strictEqual(failed._tag, "PlatformError")
      if (failed._tag === "PlatformError") {
        assert.strictEqual(failed.reason._tag, "NotFound")
        assert.include(failed.message, missing)
      }
    }).pipe(Effect.provide(NodeFileSystem.layer)))
})

/** A file's lines as bytes, blank ones kept (terminators dropped, CR kept). */
const splitKeepingBlanks = (bytes: Uint8Array): Array<Uint8Array> => {
  const lines: Array<Uint8Array> = []
  let start = 0
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      lines.push(bytes.subarray(start, i))
      start = i + 1
    }
  }
  if (start < bytes.length) lines.push(bytes.subarray(start))
  return lines
}
