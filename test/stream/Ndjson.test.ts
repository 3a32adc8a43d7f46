import { assert, describe, it } from "@effect/vitest"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { DecodeError, type LineTooLong } from "../../src/stream/DecodeError.ts"
import * as Ndjson from "../../src/stream/Ndjson.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { byteStream, chunkAt, collect, collectUntilFailure, cutsArb, isInsideCharacter, referenceLines, utf8 } from "./support.ts"

const linesOf = (chunks: ReadonlyArray<Uint8Array>, options?: Ndjson.FailOptions) =>
  collect(byteStream(chunks).pipe(Ndjson.lines(options)))

const expectLines = (chunks: ReadonlyArray<Uint8Array>, expected: Array<[number, string]>, options?: Ndjson.FailOptions) => {
  const exit = linesOf(chunks, options)
  assert.isTrue(Exit.isSuccess(exit), String(exit))
  if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value.map((l) => [l.line, l.text]), expected)
}

/** `text`, cut at `cuts` (each taken modulo its size), splits into the reference splitter's lines. */
const expectReferenceLines = (text: string, cuts: ReadonlyArray<number>) => {
  const bytes = utf8(text)
  const exit = linesOf(chunkAt(bytes, cuts.map((c) => c % (bytes.length + 1))))
  assert.isTrue(Exit.isSuccess(exit))
  if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value, referenceLines(text))
}

/** Every way of cutting `bytes` into two chunks, and one byte per chunk. */
const everySplit = (bytes: Uint8Array): Array<Array<Uint8Array>> => [
  [bytes],
  ...Array.from({ length: bytes.length - 1 }, (_, i) => chunkAt(bytes, [i + 1])),
  chunkAt(bytes, Array.from({ length: bytes.length }, (_, i) => i))
]

describe("Ndjson.lines", () => {
  it("splits lines across chunks at every offset", () => {
    const bytes = utf8("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n")
    for (const chunks of everySplit(bytes)) {
      expectLines(chunks, [[1, "{\"a\":1}"], [2, "{\"b\":2}"], [3, "{\"c\":3}"]])
    }
  })

  it("keeps multi-byte characters split across chunks", () => {
    const text = "{\"t\":\"é€😀\"}\n{\"u\":\"日本\"}"
    for (const chunks of everySplit(utf8(text))) {
      expectLines(chunks, [[1, "{\"t\":\"é€😀\"}"], [2, "{\"u\":\"日本\"}"]])
    }
  })

  it("strips CR of CRLF, also when CR and LF are in different chunks", () => {
    for (const chunks of everySplit(utf8("{\"a\":1}\r\n{\"b\":2}\r\n"))) {
      expectLines(chunks, [[1, "{\"a\":1}"], [2, "{\"b\":2}"]])
    }
  })

  it("skips blank and whitespace-only lines but counts them", () => {
    expectLines([utf8("\n{\"a\":1}\n\n  \t\n\r\n{\"b\":2}\n\n")], [[2, "{\"a\":1}"], [6, "{\"b\":2}"]])
  })

  it("emits a last line without a final newline", () => {
    for (const chunks of everySplit(utf8("{\"a\":1}\n{\"b\":2}"))) {
      expectLines(chunks, [[1, "{\"a\":1}"], [2, "{\"b\":2}"]])
    }
  })

  it("strips a leading BOM, even split, but no later one", () => {
    for (const chunks of everySplit(utf8("\uFEFF{\"a\":1}\n\uFEFF{\"b\":2}\n"))) {
      expectLines(chunks, [[1, "{\"a\":1}"], [2, "\uFEFF{\"b\":2}"]])
    }
    expectLines([utf8("\uFEFF\n{\"a\":1}\n")], [[2, "{\"a\":1}"]])
    expectLines([utf8("\uFEFF")], [])
  })

  it("an empty stream gives no lines", () => {
    expectLines([], [])
    expectLines([utf8("\n\n")], [])
  })

  it("fails on invalid UTF-8 naming the line, after the lines before it", () => {
    const bytes = new Uint8Array([...utf8("{\"a\":1}\n{\"b\":\""), 0xff, 0xfe, ...utf8("\"}\n{\"c\":3}\n")])
    for (const chunks of everySplit(bytes)) {
      const { failure, values } = collectUntilFailure(byteStream(chunks).pipe(Ndjson.lines()))
      assert.deepStrictEqual(values.map((l) => l.line), [1])
      assert.instanceOf(failure, DecodeError)
      assert.strictEqual(failure!.reason._tag, "InvalidUtf8")
      assert.strictEqual(failure!.line, 2)
      assert.include(failure!.raw, "{\"b\":\"")
      assert.include(failure!.message, "line 2")
    }
  })

  it("a multi-byte character cut off by a newline is invalid UTF-8", () => {
    const bytes = new Uint8Array([...utf8("{\"a\":\""), 0xe2, 0x82, 0x0a, 0xac, ...utf8("\"}\n")])
    const exit = collect(byteStream([bytes]).pipe(Ndjson.lines({ onBadLine: "emit" })))
    assert.isTrue(Exit.isSuccess(exit))
    if (Exit.isSuccess(exit)) {
      assert.deepStrictEqual(exit.value.map((v) => v instanceof DecodeError ? [v.line, v.reason._tag] : [v.line]), [
        [1, "InvalidUtf8"],
        [2, "InvalidUtf8"]
      ])
    }
  })

  it("emit reports bad lines in-band and goes on", () => {
    const bytes = new Uint8Array([...utf8("{\"a\":1}\n"), 0xc3, 0x28, ...utf8("\n{\"c\":3}")])
    for (const chunks of everySplit(bytes)) {
      const exit = collect(byteStream(chunks).pipe(Ndjson.lines({ onBadLine: "emit" })))
      assert.isTrue(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) {
        const [a, bad, c] = exit.value
        assert.deepStrictEqual(a, { line: 1, text: "{\"a\":1}" })
        assert.instanceOf(bad, DecodeError)
        assert.strictEqual((bad as DecodeError).line, 2)
        assert.deepStrictEqual(c, { line: 3, text: "{\"c\":3}" })
      }
    }
  })

  describe("line length limit", () => {
    const line = (n: number) => "{\"x\":\"" + "a".repeat(n - 8) + "\"}"

    it("a line of exactly the limit passes; one byte more fails", () => {
      const ok = line(32)
      assert.strictEqual(ok.length, 32)
      for (const chunks of everySplit(utf8(`${ok}\r\n${ok}\n${ok}`))) {
        expectLines(chunks, [[1, ok], [2, ok], [3, ok]], { maxLineBytes: 32 })
      }
      for (const terminator of ["\n", "\r\n", ""]) {
        for (const chunks of everySplit(utf8(`${ok}\n${line(33)}${terminator}`))) {
          const { failure, values } = collectUntilFailure(byteStream(chunks).pipe(Ndjson.lines({ maxLineBytes: 32 })))
          assert.deepStrictEqual(values, [{ line: 1, text: ok }])
          assert.strictEqual(failure?.reason._tag, "LineTooLong")
          assert.strictEqual(failure?.line, 2)
          assert.strictEqual((failure?.reason as LineTooLong | undefined)?.maxLineBytes, 32)
          assert.include(failure!.raw, "{\"x\":\"aaa")
        }
      }
    })

    it("emit: a too-long line is reported once, numbers kept", () => {
      const long = line(100)
      const text = `${line(10)}\n${long}\n\n${line(20)}\n${long}`
      for (const chunks of [[utf8(text)], chunkAt(utf8(text), Array.from({ length: text.length }, (_, i) => i * 7))]) {
        const exit = collect(byteStream(chunks).pipe(Ndjson.lines({ onBadLine: "emit", maxLineBytes: 32 })))
        assert.isTrue(Exit.isSuccess(exit))
        if (Exit.isSuccess(exit)) {
          assert.deepStrictEqual(
            exit.value.map((v) => v instanceof DecodeError ? [v.line, v.reason._tag] : [v.line, v.text.length]),
            [[1, 10], [2, "LineTooLong"], [4, 20], [5, "LineTooLong"]]
          )
        }
      }
    })

    it("lines over 1 MiB pass with the default limit, whatever the chunking", () => {
      const big = line(3 * 1024 * 1024 + 17)
      const bytes = utf8(`${big}\n${line(10)}\n`)
      const chunks = chunkAt(bytes, Array.from({ length: 64 }, (_, i) => i * 65536 + 3))
      expectLines(chunks, [[1, big], [2, line(10)]])
    })

    it("long lines in series, longer then shorter, ASCII or not: each exactly", () => {
      // A spanning line's buffer is kept for the next: nothing of a longer line may show in a shorter one.
      const lines = [line(5 * 1024 * 1024), line(3 * 1024 * 1024).replace("aaaa", "é😀"), line(2 * 1024 * 1024 + 5), line(70 * 1024)]
      const bytes = utf8(lines.join("\n") + "\n")
      const chunks = chunkAt(bytes, Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => i * 65536 + 7))
      expectLines(chunks, lines.map((text, i): [number, string] => [i + 1, text]))
    })

    it("lines past the kept buffer's size, between short ones: each exactly", () => {
      // Past 8 MiB a spanning line grows in place (a resizable buffer), and is freed at its end.
      const lines = [
        line(20 * 1024 * 1024),
        line(1024),
        line(9 * 1024 * 1024).replace("aaaa", "é😀"),
        line(12 * 1024 * 1024 + 3),
        line(70 * 1024)
      ]
      const bytes = utf8(lines.join("\r\n") + "\n")
      const chunks = chunkAt(bytes, Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => i * 65536 + 7))
      expectLines(chunks, lines.map((text, i): [number, string] => [i + 1, text]))
    })
  })

  it("an upstream that reuses its buffer does not corrupt lines", () => {
    const buffer = new Uint8Array(4)
    function* reused() {
      for (const part of ["{\"a\"", ":1}\n", "{\"b\"", ":2}"]) {
        buffer.fill(0x20)
        buffer.set(utf8(part))
        yield buffer.subarray(0, part.length)
      }
    }
    expectLines(Array.from(reused(), (b) => b.slice()), [[1, "{\"a\":1}"], [2, "{\"b\":2}"]])
    const exit = collect(Stream.fromIterable(reused(), { chunkSize: 1 }).pipe(Ndjson.lines()))
    assert.isTrue(Exit.isSuccess(exit))
    if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value, [{ line: 1, text: "{\"a\":1}" }, { line: 2, text: "{\"b\":2}" }])
  })

  it("the default limit is 64 MiB", () => {
    const mib = new Uint8Array(1024 * 1024).fill(0x61)
    function* input() {
      yield utf8("{\"x\":\"")
      for (let i = 0; i < 65; i++) yield mib
      yield utf8("\"}\n{\"next\":1}\n")
    }
    const exit = collect(Stream.fromIterable(input(), { chunkSize: 1 }).pipe(Ndjson.lines({ onBadLine: "emit" })))
    assert.isTrue(Exit.isSuccess(exit))
    if (Exit.isSuccess(exit)) {
      const [error, next] = exit.value
      assert.instanceOf(error, DecodeError)
      assert.strictEqual((error as DecodeError).reason._tag, "LineTooLong")
      assert.strictEqual(((error as DecodeError).reason as LineTooLong).maxLineBytes, Ndjson.defaultMaxLineBytes)
      assert.strictEqual(Ndjson.defaultMaxLineBytes, 64 * 1024 * 1024)
      assert.deepStrictEqual(next, { line: 2, text: "{\"next\":1}" })
      assert.strictEqual(exit.value.length, 2)
    }
  })

  describe("every corpus file and fixture, any chunking", () => {
    for (const file of allStreamJsonFiles) {
      it(path.basename(file), () => {
        const bytes = new Uint8Array(fs.readFileSync(file))
        const expected = referenceLines(new TextDecoder().decode(bytes))
        expectLines([bytes], expected.map((l) => [l.line, l.text]))
        let cutCharacters = 0
        fc.assert(
          fc.property(cutsArb(bytes), (cuts) => {
            cutCharacters += cuts.filter((at) => isInsideCharacter(bytes, at)).length
            const exit = linesOf(chunkAt(bytes, cuts))
            assert.isTrue(Exit.isSuccess(exit))
            if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value, expected)
          }),
          { numRuns: 25 }
        )
        if (bytes.some((_, at) => isInsideCharacter(bytes, at))) assert.isAbove(cutCharacters, 0, "cuts inside characters")
      })
    }
  })

  it("property: any text, any chunking, matches the reference splitter", () => {
    const lineArb = fc.oneof(
      fc.string({ unit: "grapheme" }),
      fc.constantFrom("", " ", "\t", "\r", "\r\r", "a\rb", "\u00a0", "\u3000", "\uFEFF", "{\"a\":\"é😀\"}"),
      fc.array(fc.constantFrom("\r", "é", "😀", "x", " "), { maxLength: 12 }).map((parts) => parts.join(""))
    )
    fc.assert(
      fc.property(
        fc.array(lineArb, { maxLength: 20 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 30 }),
        (lines, crlf, cuts) => {
          // Bare CRs stay inside lines: only a CR right before LF is part of the terminator.
          expectReferenceLines(lines.map((l) => l.replace(/\n/g, "")).join(crlf ? "\r\n" : "\n"), cuts)
        }
      ),
      { numRuns: 500 }
    )
  })

  it("property: exactly the lines over the limit are reported", () => {
    const lineArb = fc.array(fc.constantFrom("a", "é", "😀", "\r", " "), { maxLength: 24 }).map((p) => p.join(""))
    fc.assert(
      fc.property(
        fc.array(lineArb, { maxLength: 12 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (lines, crlf, limit, cuts) => {
          const text = lines.join(crlf ? "\r\n" : "\n")
          const bytes = utf8(text)
          const expected = text.split("\n").flatMap((raw, i) => {
            const t = raw.endsWith("\r") ? raw.slice(0, -1) : raw
            if (utf8(t).length > limit) return [[i + 1, "LineTooLong"]]
            return /^[ \t\r]*$/.test(t) ? [] : [[i + 1, t]]
          })
          const exit = collect(
            byteStream(chunkAt(bytes, cuts.map((c) => c % (bytes.length + 1)))).pipe(Ndjson.lines({ onBadLine: "emit", maxLineBytes: limit }))
          )
          assert.isTrue(Exit.isSuccess(exit))
          if (Exit.isSuccess(exit)) {
            assert.deepStrictEqual(exit.value.map((v) => v instanceof DecodeError ? [v.line, v.reason._tag] : [v.line, v.text]), expected)
          }
        }
      ),
      { numRuns: 500 }
    )
  })

  describe("long lines of non-ASCII text (decoded through ICU on Node)", () => {
    const long = (seed: string, bytes: number) => {
      let text = "{\"t\":\""
      while (utf8(text).length < bytes) text += seed
      return text + "\"}"
    }
    const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

    it("property: any text, any chunking, matches the reference splitter", () => {
      const pieceArb = fc.constantFrom("a", "é", "€", "😀", "日本", "\uFEFF", "\r", " ", "\\u00e9", "ab cd ")
      const lineArb = fc.oneof(
        fc.array(pieceArb, { minLength: 100, maxLength: 1200 }).map((p) => p.join("")),
        fc.string({ unit: "grapheme", minLength: 200, maxLength: 1500 })
      )
      fc.assert(
        fc.property(fc.boolean(), fc.array(lineArb, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), (bom, lines, cuts) =>
          expectReferenceLines((bom ? "\uFEFF" : "") + lines.map((l) => l.replace(/\n/g, "")).join("\n"), cuts)),
        { numRuns: 200 }
      )
    })

    it("lines around the decoder's size switches decode alike", () => {
      // A line of exactly `bytes` bytes, ending in a 2-byte character.
      const sized = (bytes: number) => {
        const head = "{\"t\":\"" + "日é".repeat(Math.floor((bytes - 10) / 5))
        return head + "a".repeat(bytes - 4 - utf8(head).length) + "é\"}"
      }
      for (const bytes of [511, 512, 1024 * 1024, 1024 * 1024 + 1]) {
        const line = sized(bytes)
        assert.strictEqual(utf8(line).length, bytes)
        const text = `${line}\n${line}`
        for (const chunks of [[utf8(text)], chunkAt(utf8(text), [7, bytes - 3, bytes + 700])]) {
          expectLines(chunks, [[1, line], [2, line]])
        }
      }
    })

    it("a BOM is stripped from a long first line only", () => {
      const line = long("é€😀", 4096)
      expectLines([utf8(`\uFEFF${line}\n\uFEFF${line}\n`)], [[1, line], [2, `\uFEFF${line}`]])
    })

    it("invalid UTF-8 in a long line is reported as the fatal decoder does", () => {
      const before = utf8(long("é日", 2000))
      const bad: ReadonlyArray<ReadonlyArray<number>> = [
        [0xff], [0xc3, 0x28], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80]
      ]
      for (const sequence of bad) {
        const line = new Uint8Array([...before.subarray(0, 1500), ...sequence, ...before.subarray(1500)])
        assert.throws(() => fatal.decode(line))
        const bytes = new Uint8Array([...utf8("{\"a\":1}\n"), ...line, ...utf8("\n{\"c\":3}\n")])
        for (const chunks of [[bytes], chunkAt(bytes, [5, 900, 2100])]) {
          const exit = collect(byteStream(chunks).pipe(Ndjson.lines({ onBadLine: "emit" })))
          assert.isTrue(Exit.isSuccess(exit))
          if (Exit.isSuccess(exit)) {
            assert.deepStrictEqual(exit.value.map((v) => v instanceof DecodeError ? [v.line, v.reason._tag] : [v.line]), [
              [1],
              [2, "InvalidUtf8"],
              [3]
            ])
            const error = exit.value[1] as DecodeError
            assert.instanceOf(error.reason.cause, TypeError)
            assert.strictEqual(error.detail, `the line's ${line.length} bytes are not valid UTF-8`)
          }
        }
      }
    })
  })

  it("the splitter works without Effect", () => {
    const splitter = Ndjson.makeSplitter({ onBadLine: "emit" })
    const out: Array<Ndjson.Line | DecodeError> = []
    splitter.push(utf8("{\"a\":"), out)
    assert.deepStrictEqual(out, [])
    splitter.push(utf8("1}\n{"), out)
    splitter.end(out)
    assert.deepStrictEqual(out.map((l) => l instanceof DecodeError ? l.reason._tag : l.text), ["{\"a\":1}", "{"])
  })

  it("is data-first and data-last", () => {
    const s = byteStream([utf8("{}\n")])
    assert.deepStrictEqual(collect(Ndjson.lines(s, { maxLineBytes: 10 })), collect(s.pipe(Ndjson.lines({ maxLineBytes: 10 }))))
  })
})
