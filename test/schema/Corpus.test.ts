/**
 * Every line of the corpus and of the fixtures decodes, and encodes back: to
 * the very JSON object for the fixtures recorded by the current CLI (no field
 * is lost), to a subset of the original for older captures (fields the
 * schemas do not know may be dropped, never altered). The composable
 * `Message` union decodes each line as `decodeMessage` does.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as path from "node:path"
import { decodeMessage, encodeMessage, Message } from "../../src/schema/Message.ts"
import { allStreamJsonFiles, fixturesDir, readLines, staleCopies } from "../support/Corpus.ts"

// Every key the encoder wrote must be in the original with the same value;
// nested objects are compared the same way (unknown extras may be dropped).
const assertKnownFieldsOf = (encoded: unknown, original: unknown, at: string): void => {
  if (typeof encoded !== "object" || encoded === null) {
    assert.deepStrictEqual(encoded, original, at)
    return
  }
  assert.isTrue(typeof original === "object" && original !== null, `${at}: expected an object in the original`)
  if (Array.isArray(encoded)) {
    assert.isTrue(Array.isArray(original), `${at}: expected an array`)
    assert.strictEqual(encoded.length, (original as Array<unknown>).length, `${at}: array length`)
    encoded.forEach((item, i) => assertKnownFieldsOf(item, (original as Array<unknown>)[i], `${at}[${i}]`))
    return
  }
  for (const [key, value] of Object.entries(encoded)) {
    assert.isTrue(Object.hasOwn(original as object, key), `${at}.${key}: not in the original`)
    assertKnownFieldsOf(value, (original as Record<string, unknown>)[key], `${at}.${key}`)
  }
}

const fallbacks = new Set(["UnknownMessage", "UnknownBlock", "UnknownEvent", "UnknownDelta", "UnknownRequest", "UnknownOrigin"])

/** The fallback values anywhere in a decoded message, with their paths. */
const unknownsIn = (value: unknown, at: string): ReadonlyArray<string> => {
  if (typeof value !== "object" || value === null) return []
  const tag = (value as { readonly _tag?: unknown })._tag
  if (typeof tag === "string" && fallbacks.has(tag)) return [`${at}: ${tag}`]
  return Object.entries(value).flatMap(([key, item]) => unknownsIn(item, `${at}.${key}`))
}

const recordedDir = path.join(fixturesDir, "recorded")
const decodeWithUnion = Schema.decodeUnknownResult(Message)

describe("every line of the corpus and of the fixtures", () => {
  for (const file of allStreamJsonFiles) {
    const recorded = path.dirname(file) === recordedDir
    const name = path.basename(file)
    it(`decodes and round-trips ${name}${recorded ? " exactly (current CLI)" : ""}`, () => {
      const unknowns: Array<string> = []
      for (const { line, text } of readLines(file)) {
        const at = `${name}:${line}`
        const json = JSON.parse(text) as unknown
        const decoded = decodeMessage(json)
        if (Result.isFailure(decoded)) assert.fail(`${at}: ${decoded.failure.message}`)
        const message = decoded.success
        unknowns.push(...unknownsIn(message, at))
        const encoded = encodeMessage(message)
        if (recorded || message._tag === "UnknownMessage") assert.deepStrictEqual(encoded, json, at)
        else assertKnownFieldsOf(encoded, json, at)
        assert.deepStrictEqual(Result.getOrThrow(decodeMessage(encoded)), message, at)
        assert.deepStrictEqual(Result.getOrThrow(decodeWithUnion(json)), message, `${at}: the Message union`)
      }
      if (recorded) assert.deepStrictEqual(unknowns, [], "fixtures from the current CLI have no unknown values at any depth")
    })
  }

  it("the committed corpus copy holds the shared corpus", () => {
    assert.deepStrictEqual(
      staleCopies.map((s) => s.copy),
      [],
      "captures changed in the shared corpus: refresh the committed copy, " +
        staleCopies.map((s) => `cp '${s.shared}' '${s.copy}'`).join("; ") +
        ", then review the view snapshots (vitest run test/cli/View.test.ts) and fixtures/corpus/README.md"
    )
  })

  it("finds the corpus and the recorded fixtures", () => {
    assert.isAbove(allStreamJsonFiles.length, 27)
    assert.isAbove(allStreamJsonFiles.filter((file) => path.dirname(file) === recordedDir).length, 30)
  })
})
