/**
 * `node bench/readSize.ts [--mb M] [--runs N] [--repetitions R]`: `Decode.messages` over Effect's
 * `FileSystem.stream` of a file, by the size of each read: 64 KiB (Effect's default), 256 KiB (what the library
 * reads with, `Decode.file` and its stores) and 1 MiB, over the real-shaped captures of `npm run bench` (M MB,
 * 200, with and without partial messages, built with fresh ids in os.tmpdir() and removed after). Each size runs
 * in processes of their own (R, 3, interleaved), each decoding the file N times (5; the first, with the modules'
 * warm-up, not counted); prints the medians of wall-clock and CPU time and the processes' peak RSS, and each
 * size's CPU time against 64 KiB's.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Stream from "effect/Stream"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Decode from "../src/stream/Decode.ts"
import * as Flags from "./flags.ts"
import { write } from "./realData.ts"

const sizes: ReadonlyArray<readonly [string, number]> = [["64 KiB", 64 * 1024], ["256 KiB", 256 * 1024], ["1 MiB", 1024 * 1024]]

interface Measured {
  readonly wallMs: ReadonlyArray<number>
  readonly cpuMs: ReadonlyArray<number>
  readonly peakMB: number
}

// One process: the file decoded `runs` times with reads of `chunkSize`; prints what it measured as JSON.
const step = async (file: string, chunkSize: number, runs: number) => {
  const wallMs: Array<number> = []
  const cpuMs: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    const cpu = process.cpuUsage()
    const bytes = Stream.unwrap(Effect.map(FileSystem.FileSystem, (fs) => fs.stream(file, { chunkSize })))
    const count = await Effect.runPromise(Stream.runCount(bytes.pipe(Decode.messages())).pipe(Effect.provide(NodeFileSystem.layer)))
    if (count === 0) throw new Error(`${file}: no message decoded`)
    const used = process.cpuUsage(cpu)
    if (i === 0) continue
    wallMs.push(performance.now() - started)
    cpuMs.push((used.user + used.system) / 1000)
  }
  const measured: Measured = { wallMs, cpuMs, peakMB: process.resourceUsage().maxRSS / 1024 }
  process.stdout.write(JSON.stringify(measured))
}

const main = () => {
  const mb = Flags.count("mb", 200)
  const runs = Flags.count("runs", 5)
  const repetitions = Flags.count("repetitions", 3)
  if (runs < 2) throw new Error("--runs takes at least 2: the first run of a process is not counted")
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-read-size-"))
  try {
    console.log(`date ${new Date().toISOString().slice(0, 10)} · ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} · ` +
      `load ${os.loadavg()[0]!.toFixed(1)} · Node ${process.version} · ${mb} MB of real-shaped captures each · ` +
      `${repetitions} processes per size, interleaved, ${runs - 1} runs counted in each`)
    console.log("| input | read size | wall ms | CPU ms | peak RSS, MB | CPU time against 64 KiB |\n|---|---|---:|---:|---:|---:|")
    for (const partial of [true, false]) {
      const input = partial ? "real-partial" : "real-plain"
      const file = path.join(dir, `${input}.jsonl`)
      write(file, { bytes: mb * 1e6, partial })
      const measured = new Map(sizes.map(([name]) => [name, [] as Array<Measured>]))
      for (let r = 0; r < repetitions; r++) {
        for (const [name, size] of sizes) {
          const out = childProcess.spawnSync(process.execPath, [import.meta.filename, "--step", file, String(size), String(runs)], {
            encoding: "utf8",
            maxBuffer: 1 << 24
          })
          if (out.status !== 0) throw new Error(`${name} reads exited ${out.status}: ${out.stderr.slice(-2000)}`)
          measured.get(name)!.push(JSON.parse(out.stdout) as Measured)
        }
      }
      const cpuOf = (name: string) => Flags.median(measured.get(name)!.flatMap((m) => m.cpuMs))
      for (const [name] of sizes) {
        const all = measured.get(name)!
        console.log(`| ${input} | ${name} | ${Flags.median(all.flatMap((m) => m.wallMs)).toFixed(0)} | ${cpuOf(name).toFixed(0)} | ` +
          `${Flags.median(all.map((m) => m.peakMB)).toFixed(0)} | ${(cpuOf(name) / cpuOf("64 KiB")).toFixed(2)} |`)
      }
      fs.rmSync(file)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const at = process.argv.indexOf("--step")
if (at !== -1) await step(process.argv[at + 1]!, Number(process.argv[at + 2]), Number(process.argv[at + 3]))
else main()
