/**
 * The fast-path decoders behind `decodeMessage` (src/schema/internal/fastDecode.ts)
 * against Effect's own decoders, schema by schema: same successes (same
 * classes, same keys in the same order), same failures (same issue text), over
 * every corpus line, every fixture line, a generated transcript, the real-shaped
 * bench input (captures with fresh ids), and mutated lines.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as path from "node:path"
import * as generate from "../../bench/generate.ts"
import * as realData from "../../bench/realData.ts"
import * as FastDecode from "../../src/schema/internal/fastDecode.ts"
import * as Message from "../../src/schema/Message.ts"
import { allStreamJsonFiles, readLines } from "../support/Corpus.ts"

const schemas = Message.variants.map((schema) => ({
  name: schema.identifier,
  schema,
  fast: FastDecode.compile(schema.ast),
  fastResult: FastDecode.decodeUnknownResult(schema),
  effect: Schema.decodeUnknownResult(schema as unknown as Schema.Codec<unknown, unknown>)
}))

/**
 * Same prototypes, the same own keys in the same order with the same property flags, equally extensible, all
 * the way down (class instances are built in place by the fast path, not by their constructor).
 */
const assertSameShape = (actual: unknown, expected: unknown, at: string): void => {
  if (typeof expected !== "object" || expected === null) {
    assert.strictEqual(actual, expected, at)
    return
  }
  assert.isTrue(typeof actual === "object" && actual !== null, at)
  assert.strictEqual(Object.getPrototypeOf(actual), Object.getPrototypeOf(expected), `${at}: prototype`)
  assert.strictEqual(Object.isExtensible(actual), Object.isExtensible(expected), `${at}: extensible`)
  const keys = Reflect.ownKeys(expected)
  assert.deepStrictEqual(Reflect.ownKeys(actual as object), keys, `${at}: keys`)
  for (const key of keys) {
    const flags = (o: unknown) => {
      const { configurable, enumerable, writable } = Object.getOwnPropertyDescriptor(o, key)!
      return { configurable, enumerable, writable }
    }
    assert.deepStrictEqual(flags(actual), flags(expected), `${at}.${String(key)}: flags`)
    assertSameShape((actual as Record<PropertyKey, unknown>)[key], (expected as Record<PropertyKey, unknown>)[key], `${at}.${String(key)}`)
  }
}

/** Decodes `input` with every variant both ways; returns how many variants accepted it. */
const compareAll = (input: unknown, where: string): number => {
  let accepted = 0
  for (const s of schemas) {
    const expected = s.effect(input)
    const actual = s.fastResult(input)
    const at = `${where} as ${s.name}`
    assert.strictEqual(actual._tag, expected._tag, at)
    if (Result.isSuccess(expected) && Result.isSuccess(actual)) {
      accepted++
      assertSameShape(actual.success, expected.success, at)
      // The fast path itself accepted it: Effect's decoder did not run.
      assert.notStrictEqual(s.fast(input), FastDecode.invalid, `${at}: fast path fell back`)
    } else if (Result.isFailure(expected) && Result.isFailure(actual)) {
      assert.strictEqual(actual.failure.message, expected.failure.message, at)
    }
  }
  return accepted
}

const corpusLines = allStreamJsonFiles.flatMap((file) =>
  readLines(file).map(({ line, text }) => ({ where: `${path.basename(file)}:${line}`, json: JSON.parse(text) as unknown }))
)

describe("fast-path schema decoders", () => {
  describe("corpus and fixture lines against every variant", () => {
    for (const file of allStreamJsonFiles) {
      it(path.basename(file), () => {
        for (const { line, text } of readLines(file)) {
          const json = JSON.parse(text) as unknown
          const accepted = compareAll(json, `${path.basename(file)}:${line}`)
          // A known type is accepted by its own variant; an unknown type by none.
          const known = Message.isKnownType(
            (json as { type: string }).type,
            (json as { subtype?: string }).subtype
          )
          if (known) assert.isAtLeast(accepted, 1, `${path.basename(file)}:${line}`)
        }
      })
    }
  })

  it("a generated transcript with partial messages", () => {
    let lines = 0
    for (const text of generate.lines({ seed: 7, bytes: 200_000, partial: true })) {
      assert.isAtLeast(compareAll(JSON.parse(text), `generated:${++lines}`), 1)
    }
    assert.isAbove(lines, 100)
  })

  it("the real-shaped bench input (captures copied with fresh ids)", () => {
    let lines = 0
    for (const capture of realData.captures()) {
      for (const text of realData.freshIds(capture.lines.join("\n"), 3).split("\n")) {
        compareAll(JSON.parse(text), `${path.basename(capture.file)} (copy 3):${++lines}`)
      }
    }
    assert.isAbove(lines, 1000)
  })

  it("known shapes never need Effect's decoder", () => {
    const before = FastDecode.fallbacks.count
    const decodeAll = (json: unknown, where: string) => assert.isTrue(Result.isSuccess(Message.decodeMessage(json)), where)
    let lines = 0
    for (const text of generate.lines({ seed: 11, bytes: 200_000, partial: true })) decodeAll(JSON.parse(text), `generated:${++lines}`)
    for (const { json, where } of corpusLines) {
      const { type, subtype } = json as { type: string; subtype?: string }
      if (Message.isKnownType(type, subtype)) decodeAll(json, where)
    }
    assert.strictEqual(FastDecode.fallbacks.count - before, 0)
  })

  it("mutated lines give the same result", () => {
    const replacements: ReadonlyArray<unknown> = [null, 0, -1.5, "", "x", true, [], {}, [1], { type: "text" }]
    const mutate = (value: unknown, path: ReadonlyArray<number>, action: number): unknown => {
      if (typeof value !== "object" || value === null) return replacements[action % replacements.length]
      const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value)
      if (keys.length === 0 || path.length === 0) return replacements[action % replacements.length]
      const key = keys[path[0]! % keys.length]!
      const copy = (Array.isArray(value) ? [...value] : { ...value }) as Record<PropertyKey, unknown>
      if (path.length === 1 && action % 3 === 0 && !Array.isArray(value)) delete copy[key]
      else copy[key] = mutate((value as Record<PropertyKey, unknown>)[key], path.slice(1), action)
      return copy
    }
    fc.assert(
      fc.property(
        fc.nat({ max: corpusLines.length - 1 }),
        fc.array(fc.nat({ max: 40 }), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 100 }),
        (index, where, action) => {
          const { json, where: at } = corpusLines[index]!
          compareAll(mutate(json, where, action), `${at} mutated at ${where.join(".")} by ${action}`)
        }
      ),
      { numRuns: 400 }
    )
  })
})
