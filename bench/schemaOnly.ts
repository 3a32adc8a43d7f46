/**
 * The schema step alone: `decodeMessage` over already parsed lines, default
 * vs JIT-compiled decoders (`node bench/schemaOnly.ts FILE default|jit`).
 * Prints the fastest of ten passes (the machine may be shared; the minimum is
 * the least disturbed figure).
 */
import * as fs from "node:fs"

const [file, mode = "default"] = process.argv.slice(2)
if (file === undefined) throw new Error("usage: schemaOnly.ts FILE default|jit")
if (mode === "jit") (await import("./prototypes.ts")).enableJit()
const { decodeMessage } = await import("../src/schema/Message.ts")
const parsed = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as unknown)
let best = Infinity
let failures = 0
for (let pass = 0; pass < 10; pass++) {
  const start = performance.now()
  failures = 0
  for (let i = 0; i < parsed.length; i++) if (decodeMessage(parsed[i])._tag === "Failure") failures++
  best = Math.min(best, performance.now() - start)
}
process.stdout.write(JSON.stringify({ mode, messages: parsed.length, failures, bestMs: best, perMessageUs: (best * 1000) / parsed.length }) + "\n")
