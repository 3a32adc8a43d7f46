/**
 * The real-shaped sets of `bench/transcripts.ts` are what their names say: the bytes asked for, in files that
 * each start as a real transcript does.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { build, sources } from "../../bench/realShaped.ts"
import { jsonlFiles, withTempDir } from "../transcript/support.ts"

const withDir = (f: (dir: string) => void) => withTempDir("ecc-real-shaped-", f)

// A line without its ids (uuids and the API's prefixed ids), to compare a copy with its source.
const idless = (line: string) =>
  line.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b(?:msg|req|toolu|srvtoolu)_[0-9A-Za-z]+/g, "")

describe("real-shaped sets", () => {
  it("the bytes asked for, every file starting as a real transcript", () =>
    withDir((dir) => {
      const bytes = 4 * 1024 * 1024
      build(dir, 40, bytes)
      const files = jsonlFiles(dir)
      assert.strictEqual(files.length, 40)
      const sizes = files.map((file) => fs.statSync(file).size)
      const total = sizes.reduce((n, size) => n + size, 0)
      // Most real transcripts are larger than a file's share: written whole, the set held about twice the bytes.
      assert.isAtMost(Math.abs(total - bytes) / bytes, 0.05, `${total} bytes`)
      const firstLines = new Set(sources().map((text) => idless(text.slice(0, text.indexOf("\n")))))
      for (const file of files) {
        const text = fs.readFileSync(file, "utf8")
        assert.isTrue(text.endsWith("\n"), file)
        assert.isTrue(firstLines.has(idless(text.slice(0, text.indexOf("\n")))), file)
      }
    }))

  it("not cut: whole transcripts, one at least in each file", () =>
    withDir((dir) => {
      build(dir, 20, 20, 32 * 1024, false)
      const whole = new Set(sources(32 * 1024).map((text) => idless(text.endsWith("\n") ? text : text + "\n")))
      for (const file of jsonlFiles(dir)) assert.isTrue(whole.has(idless(fs.readFileSync(file, "utf8"))), file)
    }))
})
