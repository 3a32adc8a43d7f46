/**
 * The schema step alone, over already parsed lines: `decodeMessage` (the fast
 * path) against Effect's own decoder of each line's variant
 * (`node bench/schemaOnly.ts FILE`). Prints the fastest of ten passes of each
 * (the machine may be shared; the minimum is the least disturbed figure).
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import type * as MessageModule from "../src/schema/Message.ts"
import { lib } from "./lib.ts"

const [file] = process.argv.slice(2)
if (file === undefined) throw new Error("usage: schemaOnly.ts FILE")
const { decodeMessage, variants } = await lib<typeof MessageModule>("schema/Message")
const parsed = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as unknown)

const effectDecoders = new Map(variants.map((v) => [v.identifier, Schema.decodeUnknownResult(v as unknown as Schema.Codec<unknown>)]))
// Each line's variant, found outside the timed loop.
const effectOf = parsed.map((json) => {
  const result = decodeMessage(json)
  const tag = Result.isSuccess(result) ? result.success._tag : "UnknownMessage"
  return effectDecoders.get(`effect-claude-code/${tag}`) ?? ((input: unknown): Result.Result<unknown, unknown> => decodeMessage(input))
})

const best = (pass: () => number) => {
  let ms = Infinity
  let failures = 0
  for (let k = 0; k < 10; k++) {
    const start = performance.now()
    failures = pass()
    ms = Math.min(ms, performance.now() - start)
  }
  return { bestMs: ms, perMessageUs: (ms * 1000) / parsed.length, failures }
}

const fast = best(() => {
  let failures = 0
  for (let i = 0; i < parsed.length; i++) if (Result.isFailure(decodeMessage(parsed[i]))) failures++
  return failures
})
const effect = best(() => {
  let failures = 0
  for (let i = 0; i < parsed.length; i++) if (Result.isFailure(effectOf[i]!(parsed[i]))) failures++
  return failures
})
process.stdout.write(JSON.stringify({ messages: parsed.length, fast, effect, speedup: effect.bestMs / fast.bestMs }) + "\n")
