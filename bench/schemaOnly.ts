/**
 * The schema step alone, over already parsed lines: `decodeMessage` (the
 * library's fast path) against Effect's own decoder of each line's variant,
 * the latter run by Effect's interpreter, its JIT compiler
 * (`SchemaJITCompiler/enable`) or its ahead-of-time compiler
 * (`SchemaAOTCompiler.compile` over every variant, installed before the
 * decoders are made). A compiler is global to a process, so each runs in a
 * process of its own: `node bench/schemaOnly.ts FILE interpreter|jit|aot`.
 * Prints the fastest of 30 passes of each decoder (the machine may be
 * shared; the minimum is the least disturbed figure).
 */
import type * as ResultModule from "effect/Result"
import * as fs from "node:fs"
import type * as MessageModule from "../src/schema/Message.ts"
import { lib } from "./lib.ts"

export const compilers = ["interpreter", "jit", "aot"] as const

/** Passes over the input per decoder; each figure is the fastest. */
export const passes = 30
export type Compiler = typeof compilers[number]

/** The fastest pass of one decoder over every line. */
export interface Pass {
  readonly bestMs: number
  readonly perMessageUs: number
  readonly failures: number
}

/** One process's figures. */
export interface SchemaRun {
  readonly compiler: Compiler
  readonly messages: number
  /** `decodeMessage`; it falls back to Effect's decoder (so to the compiler) only for nodes it does not generate. */
  readonly fast: Pass
  /** `Schema.decodeUnknownResult` of each line's variant, run by `compiler`. */
  readonly effect: Pass
}

const main = async (): Promise<void> => {
  const [file, compiler = "interpreter"] = process.argv.slice(2)
  if (file === undefined || !compilers.includes(compiler as Compiler)) {
    throw new Error(`usage: schemaOnly.ts FILE ${compilers.join("|")}`)
  }
  // Before any schema is used, the library's included.
  if (compiler === "jit") await import("effect/schema/SchemaJITCompiler/enable")
  const Result = await import("effect/Result")
  const Schema = await import("effect/Schema")
  const { decodeMessage, variants } = await lib<typeof MessageModule>("schema/Message")
  if (compiler === "aot") {
    const { compile } = await import("effect/schema/SchemaAOTCompiler")
    // The generated module imports the compiler runtime by a bare name; a data: URL needs it absolute.
    const source = compile(variants.map((v) => ({ ast: v.ast, operations: ["decode"] as const })))
      .replace(`"effect/schema/SchemaCompiler/runtime"`, JSON.stringify(import.meta.resolve("effect/schema/SchemaCompiler/runtime")))
    const generated = await import(`data:text/javascript,${encodeURIComponent(source)}`) as { install: (asts: ReadonlyArray<unknown>) => void }
    generated.install(variants.map((v) => v.ast))
  }

  const parsed = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as unknown)
  type Decode = (input: unknown) => ResultModule.Result<unknown, unknown>
  const effectDecoders = new Map<string, Decode>(
    variants.map((v) => [v.identifier, Schema.decodeUnknownResult(v as unknown as typeof Schema.Unknown)])
  )
  // Each line's variant, found outside the timed loop.
  const effectOf = parsed.map((json) => {
    const result = decodeMessage(json)
    const tag = Result.isSuccess(result) ? result.success._tag : "UnknownMessage"
    return effectDecoders.get(`effect-claude-code/${tag}`) ?? decodeMessage
  })

  const best = (pass: () => number): Pass => {
    let ms = Infinity
    let failures = 0
    for (let k = 0; k < passes; k++) {
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
  const run: SchemaRun = { compiler: compiler as Compiler, messages: parsed.length, fast, effect }
  process.stdout.write(JSON.stringify(run) + "\n")
}

if (import.meta.main) await main()
