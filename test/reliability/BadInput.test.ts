/**
 * Hostile and broken stream-json through the library's decode pipeline (bytes → Ndjson → decode), strict
 * and lenient: never a defect or an uncaught exception, always a typed error naming the line (with a raw cut)
 * or a message, and the good lines around them decoded exactly as without them. Titles read
 * "<input>: <defined behaviour>"; `scripts/reliability-table.ts` turns them into the README's table.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as childProcess from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../src/ClaudeCli.ts"
import * as Fixture from "../../src/layers/Fixture.ts"
import type { Message } from "../../src/schema/Message.ts"
import * as Decode from "../../src/stream/Decode.ts"
import { DecodeError, type LineTooLong } from "../../src/stream/DecodeError.ts"
import { defaultMaxLineBytes } from "../../src/stream/Ndjson.ts"
import { allStreamJsonFiles } from "../support/Corpus.ts"
import { reasonOf, runToEnd, tempDir } from "../layers/support.ts"
import {
  assertNoDefect,
  assertRawCut,
  assertStrictIsLenientPrefix,
  chunked,
  decodeBoth,
  insertOutlines,
  joinLines,
  kindOf,
  type Outline,
  splitLines
} from "./support/decoding.ts"
import * as Hostile from "./support/hostile.ts"
import { afterAGoodLine } from "./support/faults.ts"
import { formatPath, issuePaths, keptOpaque, mutations } from "./support/mutations.ts"

const root = path.resolve(import.meta.dirname, "../..")
const bin = path.join(root, "src", "cli", "main.ts")

const expected = JSON.parse(fs.readFileSync(Hostile.expectedFile, "utf8")) as Record<
  string,
  ReadonlyArray<{ readonly case: string; readonly expect: Hostile.Expect }>
>

const committedLines = (name: string): Array<Uint8Array> => {
  const pieces = splitLines(fs.readFileSync(path.join(Hostile.badInputDir, `${name}.ndjson`)))
  assert.strictEqual(pieces.pop()!.length, 0, `${name}.ndjson ends with a newline`)
  return pieces
}

const utf8 = (text: string) => new TextEncoder().encode(text)
// Odd-sized chunks, so lines and multi-byte characters are cut across reads.
const chunkBytes = 4093
const base = new Map<string, ReadonlyArray<Outline>>()
const baseOf = (file: string, bytes: Uint8Array) =>
  Effect.gen(function*() {
    const known = base.get(file)
    if (known !== undefined) return known
    const decoded = yield* decodeBoth(() => chunked(bytes, chunkBytes))
    base.set(file, decoded.lenient)
    return decoded.lenient
  })

/**
 * The lines of committed file `name` inserted in the middle of every corpus and fixture file: each line
 * decodes to what expected.json says, with a raw cut when it is an error; every other line decodes exactly
 * as in the file alone; strict decoding is the lenient result cut at its first error.
 */
const insertEverywhere = (name: string) =>
  Effect.gen(function*() {
    const hostile = committedLines(name)
    const expects = expected[`${name}.ndjson`]
    assert.strictEqual(hostile.length, expects.length, "one expectation per line")
    for (const file of allStreamJsonFiles) {
      const bytes = fs.readFileSync(file)
      const pieces = splitLines(bytes)
      const at = Math.floor((pieces.length - 1) / 2)
      const mixed = joinLines([...pieces.slice(0, at), ...hostile, ...pieces.slice(at)])
      const decoded = yield* decodeBoth(() => chunked(mixed, chunkBytes))
      const inserted = decoded.lenient.filter((o) => o.line > at && o.line <= at + hostile.length)
      assert.deepStrictEqual(
        inserted.map((o) => [o.line - at, kindOf(o)]),
        expects.map((e, i) => [i + 1, e.expect]),
        `${name} in ${path.basename(file)}: ${expects.map((e) => e.case).join(" | ")}`
      )
      const outlines = yield* baseOf(file, bytes)
      assert.deepStrictEqual(decoded.lenient, insertOutlines(outlines, at + 1, inserted), path.basename(file))
      assertStrictIsLenientPrefix(decoded)
      for (const error of decoded.errors.filter((e) => e.line > at && e.line <= at + hostile.length)) {
        assertRawCut(error, hostile[error.line - at - 1]!)
      }
    }
  })

/** The messages of a committed file decoded on its own (its errors left out). */
const messagesOf = (name: string): Array<Message> =>
  Decode.decodeAll(fs.readFileSync(path.join(Hostile.badInputDir, `${name}.ndjson`)))
    .flatMap((d) => d instanceof DecodeError ? [] : [d.message])

const ownKeys = (o: object) => Object.getOwnPropertyNames(o).sort()

describe("Bad input", () => {
  describe("committed bad-input files", () => {
    // Every file is described in expected.json and the README.
    it.effect("byte for byte what scripts/bad-input.ts generates, all described", () =>
      Effect.sync(() => {
        const readme = fs.readFileSync(path.join(Hostile.badInputDir, "README.md"), "utf8")
        for (const [name, cases] of Object.entries(Hostile.committed)) {
          const onDisk = fs.readFileSync(path.join(Hostile.badInputDir, `${name}.ndjson`))
          assert.isTrue(Buffer.from(Hostile.fileBytes(cases)).equals(onDisk), `${name}.ndjson is stale: run node scripts/bad-input.ts`)
          assert.include(readme, `${name}.ndjson`)
        }
        assert.strictEqual(fs.readFileSync(Hostile.expectedFile, "utf8"), Hostile.expectedJson())
        assert.deepStrictEqual(
          fs.readdirSync(Hostile.badInputDir).filter((f) => f.endsWith(".ndjson")).sort(),
          Object.keys(Hostile.committed).map((n) => `${n}.ndjson`).sort()
        )
      }))
  })

  describe("truncated lines (every corpus and fixture file)", () => {
    // Cut in a string, after a colon, in an escape; a lost newline; a plain-text warning. Each error carries the line's raw cut.
    it.effect("InvalidJson per cut line; other lines unaffected", () =>
      insertEverywhere("truncated"))
  })

  describe("invalid UTF-8 (every corpus and fixture file)", () => {
    // Lone continuation, overlong, cut sequence, surrogate, above U+10FFFF, 0xFF, Latin-1. Valid multi-byte text decodes.
    it.effect("InvalidUtf8 per bad line; other lines unaffected", () =>
      insertEverywhere("invalid-utf8"))
  })

  describe("NUL bytes (every corpus and fixture file)", () => {
    // In a string, alone, before or after the object, 1000 in a row; other lines unaffected.
    it.effect("InvalidJson per line; escaped \\u0000 decodes", () =>
      insertEverywhere("nul-bytes"))
  })

  describe("numbers out of range", () => {
    // 1e400, -1e400, 1e-400, beyond 2^53, -0: ±1e400 (±Infinity to JSON.parse) are SchemaMismatch, the others decode as
    // JSON.parse reads them (0, nearest double, -0). NaN, Infinity, hex and leading zeros are InvalidJson; a number as a
    // string is SchemaMismatch.
    it.effect("non-finite numbers are SchemaMismatch, others as JSON.parse, non-JSON literals InvalidJson", () =>
      Effect.gen(function*() {
        yield* insertEverywhere("numbers")
        const figures = messagesOf("numbers").map((m) =>
          m._tag === "ResultSuccess" ? [m.total_cost_usd, m.duration_ms, m.duration_api_ms, m.num_turns] : []
        )
        assert.deepStrictEqual(figures.map((f) => f.length), [4, 4, 4])
        assert.strictEqual(figures[0][2], 0)
        assert.strictEqual(figures[1][3], 123456789012345678901234567890)
        assert.isTrue(Object.is(figures[2][3], -0))
      }))
  })

  describe("duplicate keys (every corpus and fixture file)", () => {
    // An unknown type gives UnknownMessage, a wrong-typed field SchemaMismatch.
    it.effect("the last one wins, as in JSON.parse", () =>
      Effect.gen(function*() {
        yield* insertEverywhere("duplicate-keys")
        const [unknown, assistant, error, result] = messagesOf("duplicate-keys")
        assert.strictEqual(unknown._tag === "UnknownMessage" && unknown.type, "banana")
        assert.strictEqual(assistant._tag, "AssistantMessage")
        assert.strictEqual(error._tag === "ResultError" && error.subtype, "error_during_execution")
        assert.strictEqual(result._tag === "ResultSuccess" && result.session_id, "second")
      }))
  })

  describe("prototype-pollution keys (every corpus and fixture file)", () => {
    // __proto__, constructor, prototype as keys, types and model names.
    it.effect("own data or ignored, Object.prototype untouched", () =>
      Effect.gen(function*() {
        const before = [ownKeys(Object.prototype), ownKeys(Array.prototype), ownKeys(Function.prototype)]
        yield* insertEverywhere("prototype-pollution")
        const messages = messagesOf("prototype-pollution")
        assert.deepStrictEqual([ownKeys(Object.prototype), ownKeys(Array.prototype), ownKeys(Function.prototype)], before)
        assert.isUndefined(({} as Record<string, unknown>).polluted)
        const input = (messages[2] as Extract<Message, { _tag: "AssistantMessage" }>).toolUses[0]!.input
        assert.isTrue(Object.hasOwn(input, "__proto__"), "__proto__ stays an own key of the tool input")
        assert.strictEqual(Object.getPrototypeOf(input), Object.prototype, "and does not become its prototype")
        assert.isUndefined((input as Record<string, unknown>).polluted)
        const result = messages[messages.length - 1]
        assert.strictEqual(result._tag, "ResultSuccess")
        const usage = (result as Extract<Message, { _tag: "ResultSuccess" }>).modelUsage ?? {}
        assert.isTrue(Object.hasOwn(usage, "__proto__"), "a model named __proto__ is an own key")
        assert.strictEqual(Object.getPrototypeOf(usage), Object.prototype)
      }))
  })

  describe("a last line without newline (every corpus and fixture file)", () => {
    it.effect("InvalidJson naming it, after every line before", () =>
      Effect.gen(function*() {
        for (const file of allStreamJsonFiles) {
          const bytes = fs.readFileSync(file)
          const pieces = splitLines(bytes)
          const whole = pieces[pieces.length - 1]!.length === 0 ? pieces.slice(0, -1) : pieces
          const cut = utf8(Hostile.helloLines.assistant.slice(0, 100))
          const decoded = yield* decodeBoth(() => chunked(joinLines([...whole, cut]), chunkBytes))
          const expectedOutlines = [...yield* baseOf(file, bytes), { line: whole.length + 1, reason: "InvalidJson" as const }]
          assert.deepStrictEqual(decoded.lenient, expectedOutlines, path.basename(file))
          assertStrictIsLenientPrefix(decoded)
        }
      }))
  })

  describe("100k levels of nesting", () => {
    // In a tool input, an unknown message, an extra field, at the top, where a string belongs, unclosed.
    it.effect("a message or a typed error, never a stack overflow", () =>
      Effect.gen(function*() {
        const cases = Hostile.deepCases(100_000)
        const lines = [Hostile.helloLines.init, ...cases.map((c) => c.bytes), Hostile.helloLines.result].map((l) =>
          typeof l === "string" ? utf8(l) : l
        )
        const decoded = yield* decodeBoth(() => chunked(joinLines([...lines, new Uint8Array(0)]), 64 * 1024))
        assert.deepStrictEqual(decoded.lenient.map(kindOf), ["SystemInit", ...cases.map((c) => c.expect), "ResultSuccess"])
        assert.deepStrictEqual(decoded.lenient.map((o) => o.line), lines.map((_, i) => i + 1))
        assertStrictIsLenientPrefix(decoded)
        for (const error of decoded.errors) assertRawCut(error, lines[error.line - 1]!)
      }))
  })

  describe("10^6 tiny lines, some invalid or unknown", () => {
    // Every 1000th line invalid, every 7th unknown: "fail" stops at line 1000 after 999 messages; "emit" gives 1000 InvalidJson.
    it.effect("fail at the first bad line; emit one item per line", () =>
      Effect.gen(function*() {
        const count = 1_000_000
        const tally = { keep: 0, unknown: 0, errors: 0, errorLinesOk: true, lastLine: 0 }
        yield* Stream.fromIterable(Hostile.tinyLines(count, 1000, 7)).pipe(
          Decode.records({ onBadLine: "emit" }),
          Stream.runForEach((item) =>
            Effect.sync(() => {
              tally.lastLine = item.line
              if (item instanceof DecodeError) {
                tally.errors++
                tally.errorLinesOk &&= item.line % 1000 === 0 && item.reason._tag === "InvalidJson"
              } else if (item.message._tag === "KeepAlive") tally.keep++
              else if (item.message._tag === "UnknownMessage") tally.unknown++
            })
          )
        )
        // Counted independently of the decoder: multiples of 7 that are not multiples of 1000.
        const unknown = Math.floor(count / 7) - Math.floor(count / 7000)
        assert.deepStrictEqual(tally, { keep: count - 1000 - unknown, unknown, errors: 1000, errorLinesOk: true, lastLine: count })
        let strictCount = 0
        const exit = yield* Stream.fromIterable(Hostile.tinyLines(count, 1000, 7)).pipe(
          Decode.messages(),
          Stream.runForEach(() => Effect.sync(() => void strictCount++)),
          Effect.exit
        )
        assertNoDefect(exit, "strict")
        assert.strictEqual(strictCount, 999)
        const error = exit._tag === "Failure" ? exit.cause.reasons[0] : undefined
        assert.isTrue(error?._tag === "Fail" && error.error.line === 1000 && error.error.reason._tag === "InvalidJson")
      }))
  })

  describe("a 100 MiB line over the 64 MiB limit", () => {
    // The error carries a raw cut; "fail" stops there after the lines before.
    it.effect("LineTooLong naming the line; emit decodes the lines after", () =>
      Effect.gen(function*() {
        const around = [Hostile.helloLines.init, Hostile.helloLines.assistant].map(utf8)
        const chunks = function*() {
          yield joinLines([...around, new Uint8Array(0)])
          yield* Hostile.bigLine(100 * 1024 * 1024)
          yield joinLines([new Uint8Array(0), utf8(Hostile.helloLines.result), new Uint8Array(0)])
        }
        const decoded = yield* decodeBoth(chunks)
        assert.deepStrictEqual(decoded.lenient.map((o) => [o.line, kindOf(o)]), [
          [1, "SystemInit"],
          [2, "AssistantMessage"],
          [3, "LineTooLong"],
          [4, "ResultSuccess"]
        ])
        assertStrictIsLenientPrefix(decoded)
        const [error] = decoded.errors
        assert.strictEqual(error.reason._tag, "LineTooLong")
        assert.strictEqual((error.reason as LineTooLong).maxLineBytes, defaultMaxLineBytes)
        assertRawCut(error, utf8(`{"type":"keep_alive","pad":"      `))
      }))
  })

  describe("a line over a lowered maxLineBytes, through ClaudeCli", () => {
    // 2 MiB over 1 MiB, on the Fixture layer.
    it.effect("LineTooLong naming line and limit; emit keeps every other message", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("bad-input-")
        const file = path.join(dir, "big.jsonl")
        const big = Buffer.concat(Array.from(Hostile.bigLine(2 * 1024 * 1024)))
        fs.writeFileSync(file, Buffer.concat([
          utf8(Hostile.helloLines.init + "\n"),
          big,
          utf8(`\n${Hostile.helloLines.assistant}\n${Hostile.helloLines.result}\n`)
        ]))
        const layer = Fixture.layer(file, { maxLineBytes: 1024 * 1024 })
        const strict = yield* runToEnd(Stream.provide(ClaudeCli.query("q"), layer))
        assertNoDefect(strict.exit, "strict")
        assert.deepStrictEqual(strict.items.map((m) => m._tag), ["SystemInit"])
        const reason = reasonOf(strict.exit)
        assert.deepStrictEqual(reason._tag === "LineTooLong" && [reason.line, reason.limit], [2, 1024 * 1024])
        const lenient = yield* runToEnd(Stream.provide(ClaudeCli.query("q", { onBadLine: "emit" }), layer))
        assertNoDefect(lenient.exit, "lenient")
        assert.strictEqual(lenient.exit._tag, "Success")
        assert.deepStrictEqual(lenient.items.map((m) => m instanceof DecodeError ? `${m.reason._tag}@${m.line}` : m._tag), [
          "SystemInit",
          "LineTooLong@2",
          "AssistantMessage",
          "ResultSuccess"
        ])
      }))
  })

  describe("the committed bad-input files through ClaudeCli", () => {
    // On the Fixture layer: "fail" gives DecodeFailed after the messages before the bad line.
    it.effect("fail at the first bad line; emit yields every line and the result", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("bad-input-")
        for (const name of Object.keys(Hostile.committed)) {
          const file = path.join(dir, `${name}.jsonl`)
          const hostile = committedLines(name)
          const expects = expected[`${name}.ndjson`].map((e) => e.expect)
          fs.writeFileSync(file, joinLines([utf8(Hostile.helloLines.init), ...hostile, utf8(Hostile.helloLines.result), new Uint8Array(0)]))
          const layer = Fixture.layer(file)
          const kinds = ["SystemInit", ...expects, "ResultSuccess"]
          const lenient = yield* runToEnd(Stream.provide(ClaudeCli.query("q", { onBadLine: "emit" }), layer))
          assertNoDefect(lenient.exit, name)
          assert.strictEqual(lenient.exit._tag, "Success", name)
          assert.deepStrictEqual(lenient.items.map((m) => m instanceof DecodeError ? m.reason._tag : m._tag), kinds, name)
          const strict = yield* runToEnd(Stream.provide(ClaudeCli.query("q"), layer))
          assertNoDefect(strict.exit, name)
          const firstBad = kinds.findIndex((k) => ["InvalidJson", "InvalidUtf8", "SchemaMismatch", "LineTooLong"].includes(k))
          assert.deepStrictEqual(strict.items.map((m) => m._tag), kinds.slice(0, firstBad), name)
          const reason = reasonOf(strict.exit)
          assert.deepStrictEqual(reason._tag === "DecodeFailed" && reason.line, firstBad + 1, name)
        }
      }))
  })

  describe("wrong types in every field (every corpus and fixture file)", () => {
    // Every known message; an opaque value is kept as written, and the good lines around decode.
    it.effect("SchemaMismatch naming line and path, or kept opaque", () =>
      Effect.gen(function*() {
        let failed = 0
        for (const file of allStreamJsonFiles) {
          const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "")
          const all = mutations(lines)
          if (all.length === 0) continue
          // Each mutated line follows its own source line, which must decode as alone.
          const text = all.flatMap((m) => [lines[m.source]!, m.text]).join("\n") + "\n"
          const records = Decode.decodeAll(text)
          assert.strictEqual(records.length, 2 * all.length)
          const decoded = yield* decodeBoth(() => chunked(utf8(text), 64 * 1024))
          assertStrictIsLenientPrefix(decoded)
          all.forEach((mutation, i) => {
            const good = records[2 * i]!
            const bad = records[2 * i + 1]!
            const where = `${path.basename(file)}:${mutation.source + 1} at ${formatPath(mutation.path)}`
            assert.isFalse(good instanceof DecodeError, `the good line before ${where}`)
            assert.strictEqual(bad.line, 2 * i + 2)
            if (bad instanceof DecodeError) {
              failed++
              assert.strictEqual(bad.reason._tag, "SchemaMismatch", where)
              const named = formatPath(mutation.path)
              const paths = issuePaths(bad.detail)
              const top = mutation.path.length === 1 && (mutation.path[0] === "type" || mutation.path[0] === "subtype")
              assert.isTrue(
                top ? bad.detail.includes(`"${mutation.path[0]}"`) : paths.some((p) => named.startsWith(p)),
                `${where}: the error names the path: ${bad.detail}`
              )
            } else {
              assert.notStrictEqual(bad.message._tag, "UnknownMessage", where)
              assert.isTrue(keptOpaque(bad.message, mutation), `${where}: decoded, so the value must be opaque or ignored`)
            }
          })
        }
        assert.isAbove(failed, 10_000, "most mutations break a checked field")
      }), 240_000) // tens of thousands of mutated lines, each decoded twice: about 45 s alone, longer under load
  })

  describe("100 MB of random bytes to stats, as a file and through a FIFO", () => {
    // As view: input with no JSON line in its first 256 KB is not read on (it took 17 s and printed 388k lines).
    it.live("BadInput (exit 3) in one message, at most 2 MiB read", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir("random-")
        const file = path.join(dir, "random.bin")
        const size = 100 * 1024 * 1024
        const chunk = 1024 * 1024
        const fd = fs.openSync(file, "w")
        for (let at = 0; at < size; at += chunk) fs.writeSync(fd, crypto.randomBytes(chunk))
        fs.closeSync(fd)
        const run = childProcess.spawnSync(process.execPath, [bin, "stats", file], { encoding: "utf8", timeout: 60_000 })
        assert.strictEqual(run.status, 3, run.stderr.slice(0, 2000))
        assert.strictEqual(run.stdout, "")
        assert.strictEqual(run.stderr, `\nERROR\n  ${file} is neither stream-json nor a session transcript: no JSON line in its first 256 KB\n`)
        // Through a FIFO, what it read is what the writer got in before it was closed.
        const fifo = path.join(dir, "random.jsonl")
        childProcess.execFileSync("mkfifo", [fifo])
        const child = childProcess.spawn(process.execPath, [bin, "stats", fifo], { stdio: ["ignore", "pipe", "pipe"] })
        yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
        let stderr = ""
        child.stderr.setEncoding("utf8").on("data", (s: string) => stderr += s)
        const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
        const written = yield* Effect.promise(async () => {
          const writer = await fs.promises.open(fifo, "w")
          let total = 0
          try {
            while (total < size) total += (await writer.write(crypto.randomBytes(chunk / 16))).bytesWritten
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error
          } finally {
            await writer.close()
          }
          return total
        })
        assert.strictEqual(yield* Effect.promise(() => exited), 3, stderr)
        assert.isAtMost(written, 2 * 1024 * 1024)
        assert.include(stderr, "no JSON line in its first 256 KB")
      }), 120_000)
  })

  describe("10,000 bad lines after a good one to stats", () => {
    it.effect("each counted; 20 shown with their reasons, one line for the rest", () =>
      Effect.gen(function*() {
        const file = afterAGoodLine(yield* tempDir("many-bad-"), Array.from({ length: 10_000 }, () => "{\"type\":"))
        const text = childProcess.spawnSync(process.execPath, [bin, "stats", file], { encoding: "utf8", timeout: 60_000 })
        assert.strictEqual(text.status, 1, text.stderr)
        const lines = text.stdout.trimEnd().split("\n")
        assert.strictEqual(lines.filter((l) => l.includes(" failed: ")).length, 20)
        assert.strictEqual(lines.at(-1), "  9980 more failed lines not shown")
        assert.isAtMost(lines.length, 30)
        const json = childProcess.spawnSync(process.execPath, [bin, "stats", "--format", "json", file], { encoding: "utf8", timeout: 60_000 })
        const [counted] = JSON.parse(json.stdout).files
        assert.deepStrictEqual([counted.failed, counted.failures.length, counted.failures[19].line], [10_000, 20, 21])
      }), 120_000)
  })
})
