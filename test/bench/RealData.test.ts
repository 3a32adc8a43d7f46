import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as realData from "../../bench/realData.ts"

const ids = (text: string, key: string) => [...text.matchAll(new RegExp(`"${key}":"([^"]+)"`, "g"))].map((m) => m[1]!)

describe("real-shaped bench inputs", () => {
  it("fresh ids: new in every copy, the same within one, tool results still match their calls", () => {
    const line = `{"session_id":"0fa1b2c3-1111-2222-3333-444455556666","id":"toolu_01Ab","tool_use_id":"toolu_01Ab",` +
      `"message":{"id":"msg_01Xy"},"request_id":"req_9"}`
    const [a, b] = [realData.freshIds(line, 1), realData.freshIds(line, 2)]
    assert.strictEqual(realData.freshIds(line, 0), line)
    assert.notStrictEqual(a, b)
    assert.deepStrictEqual(ids(a, "id"), ["toolu_01Abc1", "msg_01Xyc1"])
    assert.deepStrictEqual(ids(a, "tool_use_id"), ["toolu_01Abc1"])
    assert.match(ids(b, "session_id")[0]!, /^[0-9a-f]{8}-1111-2222-3333-444455556666$/)
    assert.notStrictEqual(ids(a, "session_id")[0], ids(b, "session_id")[0])
  })

  it("reads the corpus and the fixtures, each file once", () => {
    const captures = realData.captures()
    assert.isTrue(captures.some((c) => c.file.includes(path.join("shared", "corpus", "public"))))
    assert.isTrue(captures.some((c) => c.file.includes(path.join("fixtures", "recorded"))))
    assert.isTrue(captures.some((c) => c.partial) && captures.some((c) => !c.partial))
    const texts = captures.map((c) => c.lines.join("\n"))
    assert.strictEqual(new Set(texts).size, texts.length)
  })

  it("the cost curve's inputs: JSON lines of the size asked, at least the bytes asked", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-curve-"))
    try {
      const file = path.join(dir, "curve.jsonl")
      for (const lineBytes of [1024, 256 * 1024]) {
        const written = realData.writeCurve(file, lineBytes, 1_000_000)
        const lines = fs.readFileSync(file, "utf8").split("\n").slice(0, -1)
        assert.strictEqual(lines.length, written.lines)
        assert.isAtLeast(written.bytes, 1_000_000)
        for (const line of lines) {
          assert.strictEqual((JSON.parse(line) as { type: string }).type, "assistant")
          // Fresh ids add a few bytes to the line of the size asked.
          assert.closeTo(Buffer.byteLength(line) + 1, lineBytes, 16)
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  for (const partial of [true, false]) {
    it(`writes JSON lines ${partial ? "with" : "without"} partial messages, at least the size asked`, () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-real-"))
      try {
        const file = path.join(dir, "real.jsonl")
        const written = realData.write(file, { bytes: 3_000_000, partial })
        const text = fs.readFileSync(file, "utf8")
        const lines = text.split("\n").slice(0, -1)
        assert.strictEqual(written.bytes, Buffer.byteLength(text))
        assert.isAtLeast(written.bytes, 3_000_000)
        assert.strictEqual(written.lines, lines.length)
        const types = lines.map((l) => (JSON.parse(l) as { type: string }).type)
        assert.strictEqual(types.includes("stream_event"), partial)
        // No two copies alike: the uuids of the first line of each copy differ.
        const perCopy = written.lines / written.copies
        const first = (k: number) => ids(lines[k * perCopy]!, "uuid").concat(ids(lines[k * perCopy]!, "session_id"))
        assert.isAbove(written.copies, 1)
        assert.notDeepEqual(first(0), first(1))
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    })
  }
})
