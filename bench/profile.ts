/**
 * Where a variant spends its time: runs it under `node --cpu-prof` in a fresh
 * process and prints the functions with the most self time, then the self
 * time per source file (a stage of the pipeline, mostly: src/stream/Ndjson,
 * effect/Stream, ...; native work such as `JSON.parse` or the collector under
 * its own name).
 *
 * `node bench/profile.ts VARIANT [MB] [TOP] [FILE]` (without FILE: a seeded partial-message transcript of MB)
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as generate from "./generate.ts"
import { byName } from "./variants.ts"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly hitCount?: number
}
interface Profile {
  readonly nodes: ReadonlyArray<Node>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const [variant = "d-strict", mbArg = "32", topArg = "30", fileArg] = process.argv.slice(2)

const runs = 6

// In the profiled child: a warm-up run, then five.
if (process.env.ECC_PROFILE_CHILD !== undefined) {
  for (let i = 0; i < runs; i++) await byName(variant).run(fileArg!)
  process.exit(0)
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-profile-"))
try {
  const input = fileArg ?? path.join(dir, "partial.jsonl")
  if (fileArg === undefined) generate.writeTranscript(input, { seed: 1, bytes: Number(mbArg) * 1e6, partial: true })
  childProcess.execFileSync(
    process.execPath,
    ["--cpu-prof", `--cpu-prof-dir=${dir}`, import.meta.filename, variant, mbArg, topArg, input],
    { stdio: "inherit", env: { ...process.env, ECC_PROFILE_CHILD: "1" } }
  )
  const file = fs.readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))
  if (file === undefined) throw new Error("no profile written")
  const profile = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as Profile
  // Self time (µs) per function and per file: each sample's node gets the time until the next sample.
  const self = new Map<string, number>()
  const perFile = new Map<string, number>()
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us)
  const usById = new Map<number, number>()
  profile.samples.forEach((id, i) => usById.set(id, (usById.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)))
  let total = 0
  let busy = 0
  for (const node of profile.nodes) {
    const us = usById.get(node.id) ?? 0
    total += us
    const { functionName, url, lineNumber } = node.callFrame
    if (functionName !== "(idle)") busy += us
    // The build lives in a temp dir (ecc-bench-*/dist); effect in node_modules.
    const file = url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/(dist|src)\//, "$1/").replace(/^file:\/\/.*\/bench\//, "bench/")
    add(self, `${functionName || "(anonymous)"}${url === "" ? "" : ` ${file}:${lineNumber + 1}`}`, us)
    add(perFile, url === "" ? functionName || "(native)" : file, us)
  }
  process.stdout.write(`${variant}: ${runs} runs (the first a warm-up, module loading included), ${(total / 1000).toFixed(0)} ms, ${(busy / 1000).toFixed(0)} ms not idle\n`)
  const print = (title: string, map: Map<string, number>) => {
    process.stdout.write(`\n${title} (% of all samples, ms)\n`)
    const top = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))
    for (const [key, us] of top) {
      process.stdout.write(`${((us / total) * 100).toFixed(1).padStart(5)}% ${(us / 1000).toFixed(0).padStart(6)}  ${key}\n`)
    }
  }
  print("self time by function", self)
  print("self time by file", perFile)
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
