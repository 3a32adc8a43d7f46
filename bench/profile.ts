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
}

const [variant = "d-strict", mbArg = "32", topArg = "30", fileArg] = process.argv.slice(2)

// In the profiled child: a warm-up run, then five.
if (process.env.ECC_PROFILE_CHILD !== undefined) {
  for (let i = 0; i < 6; i++) await byName(variant).run(fileArg!)
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
  const self = new Map<string, number>()
  const perFile = new Map<string, number>()
  const add = (map: Map<string, number>, key: string, hits: number) => map.set(key, (map.get(key) ?? 0) + hits)
  let total = 0
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0
    total += hits
    const { functionName, url, lineNumber } = node.callFrame
    // The build lives in a temp dir (ecc-bench-*/dist); effect in node_modules.
    const file = url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/(dist|src)\//, "$1/").replace(/^file:\/\/.*\/bench\//, "bench/")
    add(self, `${functionName || "(anonymous)"}${url === "" ? "" : ` ${file}:${lineNumber + 1}`}`, hits)
    add(perFile, url === "" ? functionName || "(native)" : file, hits)
  }
  const print = (title: string, map: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`)
    const top = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg))
    for (const [key, hits] of top) process.stdout.write(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}\n`)
  }
  print("self time by function", self)
  print("self time by file", perFile)
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
