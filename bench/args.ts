/**
 * The command line of `npm run bench`: flags, their defaults (a full run and
 * `--quick`), validation and the usage text. Pure, so it is tested on its own
 * (test/bench/Args.test.ts).
 */
import { parseArgs } from "node:util"

/** What a run measures and where its JSON goes. */
export interface Config {
  readonly quick: boolean
  readonly sizeMB: number
  /** Size of each real-shaped input (bench/realData.ts); 0 skips them. */
  readonly realMB: number
  /** Bytes (MB) of each input of the cost curve (lines of 1 KB to 64 MiB); 0 skips it. */
  readonly curveMB: number
  readonly runs: number
  readonly warmup: number
  readonly bigLineMiB: number
  readonly hugeMB: number
  readonly latencyCount: number
  readonly latencyInterval: number
  readonly seed: number
  /** Variant names to run; empty means all. */
  readonly only: ReadonlyArray<string>
  /** Measure `src/` as Node strips it instead of the compiled build. */
  readonly fromSource: boolean
  /** Measure this prebuilt build (e.g. of another commit) instead of compiling `src/`. */
  readonly dist: string | undefined
  readonly keep: boolean
  /** No JSON, JSON on stdout (tables then go to stderr), or JSON written to a file. */
  readonly json: { readonly to: "none" } | { readonly to: "stdout" } | { readonly to: "file"; readonly path: string }
}

export const usage = `usage: npm run bench -- [flags]

  --quick                a smoke run: 8 MB real and 4 MB generated inputs, 3 runs, an 8 MiB line, a 64 MB stream, 200 latency lines
  --json [FILE]          also write every figure as JSON: to FILE (its folder is created), or,
                         without FILE, to stdout (the tables then go to stderr)
  --real MB              size of each input built from real captures, the headline figures (200; 8 with --quick;
                         0 skips them)
  --curve MB             size of each input of the cost curve, one per line size from 1 KB to 64 MiB
                         (64; 8; 0 skips it)
  --size MB              size of each generated transcript (32; 4 with --quick)
  --runs N               measured rounds (11; 3)
  --warmup N             warm-up rounds (2; 1)
  --big-line MiB         size of the one-line transcripts, 0 skips them (64; 8)
  --huge MB              generated stream for the memory check, 0 skips it (1024; 64)
  --latency-count N      lines of the latency run, 0 skips it (2000; 200)
  --latency-interval MS  pause between those lines (2)
  --seed N               seed of the generated inputs (1)
  --only A,B,...         only these variants (names as printed by a full run)
  --src                  measure src/ as Node strips it, not the compiled build
  --dist DIR             measure a build made beforehand (another commit's, say; "effect" must resolve
                         from DIR, as from the project's dist/) instead of compiling src/
  --keep                 keep the temp dir with the inputs and the build
  --help                 this text`

/** A command line that cannot be run; its message says why. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}

const numeric = ["real", "curve", "size", "runs", "warmup", "big-line", "huge", "latency-count", "latency-interval", "seed"] as const

// `--json` takes an optional value, which parseArgs cannot express: a bare `--json` (last, or followed by
// another flag) becomes `--json=-`, "-" meaning stdout.
const normalize = (argv: ReadonlyArray<string>): Array<string> =>
  argv.map((arg, i) => (arg === "--json" && (i + 1 === argv.length || argv[i + 1]!.startsWith("--")) ? "--json=-" : arg))

/** Parses the flags after `npm run bench --`; throws {@link UsageError}. `known` are the variant names. */
export const parse = (argv: ReadonlyArray<string>, known: ReadonlyArray<string>): Config | "help" => {
  let parsed: ReturnType<typeof parseFlags>
  try {
    parsed = parseFlags(normalize(argv))
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
  const { values } = parsed
  if (values.help === true) return "help"
  const quick = values.quick === true
  const number = (name: typeof numeric[number], normal: number, smoke: number, least: number): number => {
    const text = values[name]
    if (text === undefined) return quick ? smoke : normal
    const n = Number(text)
    if (text.trim() === "" || !Number.isFinite(n) || n < least || (name !== "latency-interval" && !Number.isInteger(n))) {
      throw new UsageError(`--${name} ${text}: expected ${name === "latency-interval" ? "a number" : "an integer"} >= ${least}`)
    }
    return n
  }
  const only = (values.only ?? "").split(",").filter((s) => s.length > 0)
  const unknown = only.filter((name) => !known.includes(name))
  if (unknown.length > 0) throw new UsageError(`--only: unknown variant ${unknown.join(", ")}; known: ${known.join(", ")}`)
  const json = values.json
  return {
    quick,
    sizeMB: number("size", 32, 4, 1),
    realMB: number("real", 200, 8, 0),
    curveMB: number("curve", 64, 8, 0),
    runs: number("runs", 11, 3, 1),
    warmup: number("warmup", 2, 1, 0),
    bigLineMiB: number("big-line", 64, 8, 0),
    hugeMB: number("huge", 1024, 64, 0),
    latencyCount: number("latency-count", 2000, 200, 0),
    latencyInterval: number("latency-interval", 2, 2, 0),
    seed: number("seed", 1, 1, 0),
    only,
    fromSource: values.src === true,
    dist: values.dist === undefined ? undefined : values.src === true ? fail("--dist and --src exclude each other") : values.dist,
    keep: values.keep === true,
    json: json === undefined ? { to: "none" } : json === "-" ? { to: "stdout" } : json === "" ? fail("--json: empty file name") : { to: "file", path: json }
  }
}

const fail = (message: string): never => {
  throw new UsageError(message)
}

const parseFlags = (args: Array<string>) =>
  parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: "boolean" },
      src: { type: "boolean" },
      keep: { type: "boolean" },
      help: { type: "boolean" },
      json: { type: "string" },
      only: { type: "string" },
      dist: { type: "string" },
      ...Object.fromEntries(numeric.map((name) => [name, { type: "string" }])) as Record<typeof numeric[number], { type: "string" }>
    }
  })
