import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as path from "node:path"
import { decodeMessage, encodeMessage } from "../../src/schema/Message.ts"
import { allStreamJsonFiles, fixtureFiles, readLines } from "../support/Corpus.ts"

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

const isFixture = new Set(fixtureFiles)

describe("every line of the corpus and of the fixtures", () => {
  for (const file of allStreamJsonFiles) {
    it(`decodes and round-trips ${path.basename(file)}`, () => {
      const unknown: Array<string> = []
      for (const { line, text } of readLines(file)) {
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          continue // not JSON: the stream decoder reports those, not the schemas
        }
        const decoded = decodeMessage(json)
        if (Result.isFailure(decoded)) {
          assert.fail(`${path.basename(file)}:${line}: ${decoded.failure.message}`)
        }
        const message = decoded.success
        if (message._tag === "UnknownMessage") {
          unknown.push(`${line}:${message.type}/${message.subtype ?? ""}`)
          assert.deepStrictEqual(encodeMessage(message), json)
          continue
        }
        const encoded = encodeMessage(message)
        assertKnownFieldsOf(encoded, json, `${path.basename(file)}:${line}`)
        assert.deepStrictEqual(Result.getOrThrow(decodeMessage(encoded)), message)
      }
      if (isFixture.has(file)) assert.deepStrictEqual(unknown, [], "fixtures from the current CLI have no unknown lines")
    })
  }

  it("finds the corpus", () => {
    assert.isAbove(allStreamJsonFiles.length, 27)
  })
})
