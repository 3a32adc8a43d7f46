/**
 * `node bench/statsFloor.ts [--files N] [--mb M] [--repetitions R]`: what Node alone takes on the real-shaped
 * transcripts of bench/transcripts.ts (2,000 files of 200 MB by default, built with fresh ids in os.tmpdir() and
 * removed after), against which `stats`' own time can be read. Each step runs in a process of its own (Node's
 * start included), the median of R runs (3):
 * - `read`: list the files, open each and read it whole in 1 MiB reads;
 * - `lines`: the same, and find every line end (`indexOf` of 0x0A);
 * - `usage`: the same, and `JSON.parse` each line with `"usage"` among its bytes (no schema, no other count);
 * - `stats`: the package's bin, `stats --format json` (built by `npm run build` first).
 * Then, in this process, how fast `Buffer.indexOf` finds each of a few needles over all the bytes (the marks a
 * byte-level scan for usage lines would search for), against the line end.
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { build } from "./realShaped.ts"
import * as Flags from "./flags.ts"

const root = path.resolve(import.meta.dirname, "..")

const filesOf = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
    .map((e) => path.join(e.parentPath, e.name))
    .sort()

// One step over the files of `dir`, in this (fresh) process: prints what it counted.
const step = (mode: string, dir: string) => {
  const buffer = Buffer.allocUnsafeSlow(1 << 20)
  const usage = Buffer.from("\"usage\"")
  let lines = 0
  let parsed = 0
  for (const file of filesOf(dir)) {
    const fd = fs.openSync(file, "r")
    // The bytes of a line that spans reads.
    let carry: Buffer | undefined
    for (let read = fs.readSync(fd, buffer); read > 0; read = fs.readSync(fd, buffer)) {
      if (mode === "read") continue
      const chunk = carry === undefined ? buffer.subarray(0, read) : Buffer.concat([carry, buffer.subarray(0, read)])
      let start = 0
      // The next "usage" in the chunk: searched once per line that holds one, not once per line.
      let next = mode === "usage" ? chunk.indexOf(usage) : -1
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
        lines++
        if (next !== -1 && next < nl) {
          JSON.parse(chunk.toString("utf8", start, nl))
          parsed++
          next = chunk.indexOf(usage, nl)
        }
        start = nl + 1
      }
      carry = start < chunk.length ? Buffer.from(chunk.subarray(start)) : undefined
    }
    fs.closeSync(fd)
  }
  process.stdout.write(JSON.stringify({ lines, parsed }) + "\n")
}


const timed = (command: ReadonlyArray<string>): number => {
  const started = performance.now()
  const out = childProcess.spawnSync(command[0]!, command.slice(1), { encoding: "utf8", maxBuffer: 1 << 30 })
  if (out.status !== 0) throw new Error(`${command.join(" ")} exited ${out.status}: ${out.stderr.slice(-2000)}`)
  return (performance.now() - started) / 1000
}

const main = () => {
  const files = Flags.count("files", 2000)
  const mb = Flags.count("mb", 200)
  const repetitions = Flags.count("repetitions", 3)
  const built = childProcess.spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" })
  if (built.status !== 0) throw new Error(`the build failed (npm run build exit ${built.status})`)
  const bin = path.join(root, "dist", "cli", "main.js")
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-stats-floor-"))
  try {
    build(configDir, files, mb * 1024 * 1024)
    const projects = path.join(configDir, "projects")
    const self = import.meta.filename
    const commands: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["read", [process.execPath, self, "--step", "read", projects]],
      ["lines", [process.execPath, self, "--step", "lines", projects]],
      ["usage", [process.execPath, self, "--step", "usage", projects]],
      ["stats", [process.execPath, bin, "stats", "--format", "json", projects]],
      ["node -e 0", [process.execPath, "-e", "0"]]
    ]
    const times = new Map(commands.map(([name]) => [name, [] as Array<number>]))
    // Interleaved, so that a load that comes and goes falls on all.
    for (let i = 0; i < repetitions; i++) for (const [name, command] of commands) times.get(name)!.push(timed(command))
    console.log(`date ${new Date().toISOString().slice(0, 10)} · load ${os.loadavg()[0]!.toFixed(1)} · Node ${process.version} · ` +
      `${files} real-shaped files, ${mb} MB · median of ${repetitions}, each a process of its own`)
    console.log("| step | seconds |\n|---|---:|")
    for (const [name, ts] of times) console.log(`| ${name} | ${Flags.median(ts).toFixed(2)} |`)
    const all = Buffer.concat(filesOf(projects).map((f) => fs.readFileSync(f)))
    console.log(`\n\`Buffer.indexOf\` over the ${(all.length / 1e6).toFixed(0)} MB (fastest of 3):\n| needle | ms | GB/s |\n|---|---:|---:|`)
    for (const needle of ["\n", "\"usage\"", "\"tool_result\"", "\\u"]) {
      const bytes = Buffer.from(needle)
      let best = Infinity
      for (let r = 0; r < 3; r++) {
        const started = performance.now()
        for (let at = all.indexOf(bytes); at !== -1; at = all.indexOf(bytes, at + 1));
        best = Math.min(best, performance.now() - started)
      }
      console.log(`| ${JSON.stringify(needle)} | ${best.toFixed(1)} | ${(all.length / 1e6 / best).toFixed(1)} |`)
    }
  } finally {
    fs.rmSync(configDir, { recursive: true, force: true })
  }
}

const at = process.argv.indexOf("--step")
if (at !== -1) step(process.argv[at + 1]!, process.argv[at + 2]!)
else main()
