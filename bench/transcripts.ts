/**
 * `node bench/transcripts.ts [--repetitions N] [--out FILE] [--quick] [--sessions N] [--mb M]`: `effect-claude-code
 * stats --format json` against `ccusage session --json --offline` (the tool most people use for this), each in a
 * process of its own, timed with its peak RSS, interleaved, the median of N runs (3) of each, over config
 * directories built in os.tmpdir() (and removed after):
 * - real-shaped (the headline, issue 25): the real transcripts of ../shared/corpus/transcripts and
 *   fixtures/transcripts (and fixtures/transcripts-recorded when present) copied with fresh ids
 *   (bench/realShaped.ts), each file a transcript's start cut between lines at its share of the bytes: 2,000
 *   files of 200 MB, 10,000 files of 1 GB, one 200 MB transcript; and 10,000 small files of one whole transcript
 *   each (`--quick`: the first set only);
 * - generated: N sessions (1,000) of M MB (200) written by {@link generate}; and, on them, listing every session
 *   and reading one with `SessionFiles` against the official SDK's `listSessions` / `getSessionMessages`.
 * Each runs as installed: ccusage its published executable, ours the bin as the package ships it
 * (`dist/cli/main.js`, built here first by `npm run build`). Fails when the token totals or the cost (to the cent)
 * differ. Prints, in one run, each ratio (ours / theirs: below 1 we are faster or smaller) with its goal; with
 * `--out FILE` writes the same to FILE, which `node scripts/transcripts-table.ts FILE` puts in the README.
 */
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { build } from "./realShaped.ts"
import * as Flags from "./flags.ts"

const root = path.resolve(import.meta.dirname, "..")

// ccusage is installed on first use, beside the bench rather than in the project: its native packages are
// published for some platforms only, which `npm ci` of the project would trip over.
const ccusageVersion = "20.0.24"
const ccusageCli = (): string => {
  const dir = path.join(os.tmpdir(), "effect-claude-code-bench", `ccusage-${ccusageVersion}`)
  const cli = path.join(dir, "node_modules", "ccusage", "src", "cli.js")
  if (!fs.existsSync(cli)) {
    fs.mkdirSync(dir, { recursive: true })
    const installed = childProcess.spawnSync("npm", ["install", "--no-save", "--prefix", dir, `ccusage@${ccusageVersion}`], {
      stdio: "inherit"
    })
    if (installed.status !== 0) throw new Error(`could not install ccusage@${ccusageVersion} (npm exit ${installed.status})`)
  }
  return cli
}

// The package's bin as it ships: built by the package's build (`tsc`, then the bin's bundle) into dist/.
const builtBin = (): string => {
  const built = childProcess.spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" })
  if (built.status !== 0) throw new Error(`the build failed (npm run build exit ${built.status})`)
  return path.join(root, "dist", "cli", "main.js")
}

const models = ["claude-sonnet-4-20250514", "claude-opus-4-20250514", "claude-3-5-haiku-20241022"]

// One session: prompts, assistant turns with usage (one line per content block, as CLI 2.x writes them),
// tool calls and their results; text padded so that the sessions add up to the size asked for.
const session = (sessionId: string, cwd: string, seed: number, bytes: number): string => {
  const lines: Array<string> = []
  let parent: string | null = null
  let turn = 0
  let size = 0
  const push = (entry: Record<string, unknown>) => {
    const line = JSON.stringify(entry) + "\n"
    lines.push(line)
    size += line.length
  }
  const envelope = (uuid: string) => ({
    parentUuid: parent,
    isSidechain: false,
    userType: "external",
    cwd,
    sessionId,
    version: "2.1.1",
    gitBranch: "main",
    uuid,
    timestamp: new Date(Date.UTC(2026, 0, 1) + seed * 3_600_000 + turn * 1000).toISOString()
  })
  const padding = "x".repeat(2000)
  while (size < bytes) {
    const n = turn++
    const user = `${sessionId}-u${n}`
    push({ ...envelope(user), type: "user", message: { role: "user", content: `Prompt ${n}: ${padding}` } })
    parent = user
    const model = models[(seed + n) % models.length]!
    const usage = {
      input_tokens: 10 + ((seed * 7 + n) % 50),
      output_tokens: 100 + ((seed + n * 3) % 400),
      cache_read_input_tokens: 1000 * (n % 5),
      cache_creation_input_tokens: 200 * (n % 3)
    }
    const messageId = `msg_${sessionId.slice(0, 8)}_${n}`
    const toolId = `toolu_${sessionId.slice(0, 8)}_${n}`
    for (const [i, block] of [
      { type: "text", text: `Answer ${n}: ${padding}` },
      { type: "tool_use", id: toolId, name: "Bash", input: { command: "ls" } }
    ].entries()) {
      const uuid = `${sessionId}-a${n}-${i}`
      push({
        ...envelope(uuid),
        type: "assistant",
        requestId: `req_${sessionId.slice(0, 8)}_${n}`,
        message: { id: messageId, type: "message", role: "assistant", model, content: [block], stop_reason: null, usage }
      })
      parent = uuid
    }
    const result = `${sessionId}-r${n}`
    push({
      ...envelope(result),
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolId, content: `a.txt\n${padding}` }] },
      toolUseResult: { stdout: "a.txt", stderr: "", interrupted: false }
    })
    parent = result
  }
  return lines.join("")
}

const uuidOf = (i: number) => `${i.toString(16).padStart(8, "0")}-0000-4000-8000-000000000000`

export const generate = (configDir: string, sessions: number, bytes: number) => {
  for (let i = 0; i < sessions; i++) {
    const cwd = `/home/bench/project-${i % 10}`
    const dir = path.join(configDir, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"))
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, `${uuidOf(i)}.jsonl`), session(uuidOf(i), cwd, i, bytes / sessions))
  }
}

interface Measured<A> {
  readonly seconds: number
  readonly peakMb: number
  readonly output: A
}

// A command in a process of its own, through /usr/bin/time for its peak RSS.
const measure = <A>(command: ReadonlyArray<string>, env: NodeJS.ProcessEnv, parse: (stdout: string) => A): Measured<A> => {
  const started = performance.now()
  const out = childProcess.spawnSync("/usr/bin/time", ["-f", "%M", ...command], {
    env,
    encoding: "utf8",
    maxBuffer: 1024 * 1024 * 1024
  })
  const seconds = (performance.now() - started) / 1000
  if (out.status !== 0) throw new Error(`${command.join(" ")} exited ${out.status}: ${out.stderr.slice(-2000)}`)
  const peakKb = Number(out.stderr.trim().split("\n").at(-1))
  return { seconds, peakMb: peakKb / 1024, output: parse(out.stdout) }
}

interface Totals {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens: number
  readonly cacheCreationTokens: number
}

// The worker modes: one library call each, its result as JSON on stdout.
const worker = async (mode: string, configDir: string, dir: string, sessionId: string) => {
  process.env.CLAUDE_CONFIG_DIR = configDir
  if (mode === "sdk") {
    const sdk = await import("@anthropic-ai/claude-agent-sdk")
    const list = await sdk.listSessions()
    const messages = await sdk.getSessionMessages(sessionId, { dir })
    return { sessions: list.length, messages: messages.length }
  }
  const { Effect, Stream } = await import("effect")
  const NodeServices = await import("@effect/platform-node/NodeServices")
  const SessionFiles = await import("../src/store/SessionFiles.ts")
  return Effect.runPromise(Effect.gen(function*() {
    const files = yield* SessionFiles.make({ configDir })
    const list = yield* files.listSessions()
    const messages = yield* Stream.runCount(files.messages(sessionId, { dir }))
    return { sessions: list.length, messages }
  }).pipe(Effect.provide(NodeServices.layer)))
}

// The totals `stats --format json` gives, as ccusage's, and the cost per model (null: no price known).
const ourTotals = (stdout: string) => {
  const json = JSON.parse(stdout)
  const byModel = (json.total ?? json.files[0]).models as Record<string, any>
  const models = Object.values(byModel)
  const sum = (k: string) => models.reduce((n, m) => n + (m[k] ?? 0), 0)
  return {
    totals: {
      inputTokens: sum("inputTokens"),
      outputTokens: sum("outputTokens"),
      cacheReadTokens: sum("cacheReadInputTokens"),
      cacheCreationTokens: sum("cacheCreationInputTokens")
    } satisfies Totals,
    costs: Object.fromEntries(Object.entries(byModel).map(([name, m]) => [name, m.costUsd as number | null]))
  }
}

// ccusage's totals, and its cost per model (0 for a model it has no price for).
const theirTotals = (stdout: string) => {
  const json = JSON.parse(stdout)
  const t = json.totals
  const costs: Record<string, number> = {}
  for (const session of json.session ?? json.sessions ?? []) {
    for (const m of session.modelBreakdowns ?? []) costs[m.modelName] = (costs[m.modelName] ?? 0) + m.cost
  }
  return {
    totals: {
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      cacheReadTokens: t.cacheReadTokens,
      cacheCreationTokens: t.cacheCreationTokens
    } satisfies Totals,
    costs
  }
}

// The models both price, with the cost of each (ours, theirs), and the models only one of the two prices.
const costsCompared = (ours: Record<string, number | null>, theirs: Record<string, number>) => {
  const both = Object.keys(ours).filter((m) => ours[m] !== null && (theirs[m] ?? 0) > 0)
  const oneOnly = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])].filter((m) =>
    !both.includes(m) && ((ours[m] ?? 0) > 0 || (theirs[m] ?? 0) > 0)
  )
  return { both, oneOnly }
}

interface Row {
  readonly set: string
  readonly ours: { readonly seconds: number; readonly peakMb: number }
  readonly theirs: { readonly seconds: number; readonly peakMb: number }
  /** The cost of the models both price, and the models only one of the two prices. */
  readonly cost: number
  readonly pricedByOne: ReadonlyArray<string>
}

// One input: `stats` and ccusage run in turn (interleaved, so a load that comes and goes falls on both), their
// medians; fails when the totals differ (costs in cents: the two add the same prices in another order).
const compare = (set: string, configDir: string, bin: string, cli: string, repetitions: number): Row => {
  const env = { ...process.env, CLAUDE_CONFIG_DIR: configDir }
  const node = process.execPath
  const ours: Array<Measured<ReturnType<typeof ourTotals>>> = []
  const theirs: Array<Measured<ReturnType<typeof theirTotals>>> = []
  for (let i = 0; i < repetitions; i++) {
    ours.push(measure([node, bin, "stats", "--format", "json", path.join(configDir, "projects")], env, ourTotals))
    theirs.push(measure([node, cli, "session", "--json", "--offline"], env, theirTotals))
  }
  const a = ours[0]!.output
  const b = theirs[0]!.output
  // Costs in cents, per model both price: the two add the same prices in another order.
  const cents = (usd: number) => Math.round(usd * 100)
  const { both, oneOnly } = costsCompared(a.costs, b.costs)
  const differ = both.filter((m) => cents(a.costs[m]!) !== cents(b.costs[m]!))
  if (JSON.stringify(a.totals) !== JSON.stringify(b.totals) || differ.length > 0) {
    throw new Error(`${set}: stats and ccusage disagree: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`)
  }
  const figures = (ms: ReadonlyArray<Measured<unknown>>) => ({
    seconds: Flags.median(ms.map((m) => m.seconds)),
    peakMb: Flags.median(ms.map((m) => m.peakMb))
  })
  return {
    set,
    ours: figures(ours),
    theirs: figures(theirs),
    cost: both.reduce((n, m) => n + a.costs[m]!, 0),
    pricedByOne: oneOnly
  }
}

// Where the inputs are built: the 1 GB ones need the room.
const withDirectory = <A>(bytes: number, f: (configDir: string) => A): A => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-transcripts-"))
  try {
    const free = fs.statfsSync(work)
    if (free.bavail * free.bsize < bytes * 2.5) throw new Error(`${work}: not enough free disk for ${bytes / 1e6} MB of input`)
    return f(path.join(work, ".claude"))
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
}

const MB = 1024 * 1024

/** The real-shaped sets of issue 25, with the goal of each: stats' time and peak at most ccusage's. */
const realSets = [
  { name: "real, 2,000 files / 200 MB", files: 2000, bytes: 200 * MB, goal: 1 },
  { name: "real, 10,000 files / 1 GB", files: 10_000, bytes: 1024 * MB, goal: 1 },
  { name: "real, one 200 MB transcript", files: 1, bytes: 200 * MB, goal: 1 },
  // Per-file overhead: within 2x ccusage's time per file.
  { name: "real, 10,000 small files (one transcript of at most 32 KB each)", files: 10_000, bytes: 10_000, goal: 2, maxSourceBytes: 32 * 1024 }
] as const

const main = () => {
  const repetitions = Flags.count("repetitions", 3)
  const only = process.argv.includes("--quick") ? 1 : realSets.length
  const bin = builtBin()
  const cli = ccusageCli()
  // `--out FILE`: the output written to FILE too, for scripts/transcripts-table.ts to put in the README.
  const outIndex = process.argv.indexOf("--out")
  const outFile = outIndex === -1 ? undefined : process.argv[outIndex + 1]
  if (outFile !== undefined) fs.writeFileSync(outFile, "")
  const out = (line: string) => {
    process.stdout.write(line + "\n")
    if (outFile !== undefined) fs.appendFileSync(outFile, line + "\n")
  }
  out(`date ${new Date().toISOString().slice(0, 10)} · machine ${os.cpus()[0]?.model ?? "?"} ×${os.cpus().length}, ` +
    `load ${os.loadavg()[0]!.toFixed(1)} · Node ${process.version} · ccusage ${ccusageVersion} · median of ${repetitions}, interleaved`)
  out("")
  const header = () => {
    out("| input | stats | ccusage | time ratio (goal) | peak MB, stats / ccusage | peak ratio (goal ≤ 1) | cost, models both price (the same to the cent) |")
    out("|---|---|---|---|---|---|---|")
  }
  out("Real-shaped: the real transcripts of the corpus and the fixtures, copied with fresh ids.")
  out("")
  header()
  const row = (r: Row, goal: number) => {
    const time = r.ours.seconds / r.theirs.seconds
    const peak = r.ours.peakMb / r.theirs.peakMb
    out(`| ${r.set} | ${r.ours.seconds.toFixed(2)} s | ${r.theirs.seconds.toFixed(2)} s | ` +
      `${time.toFixed(2)}× (≤ ${goal}: ${time <= goal ? "met" : "**not met**"}) | ` +
      `${r.ours.peakMb.toFixed(0)} / ${r.theirs.peakMb.toFixed(0)} | ${peak.toFixed(2)}× (${peak <= 1 ? "met" : "**not met**"}) | ` +
      `$${r.cost.toFixed(2)}${r.pricedByOne.length > 0 ? ` (priced by one only: ${r.pricedByOne.join(", ")})` : ""} |`)
  }
  for (const set of realSets.slice(0, only)) {
    row(withDirectory(set.bytes, (configDir) => {
      // The small files each hold whole transcripts; the others are cut to their size.
      const small = "maxSourceBytes" in set
      build(configDir, set.files, set.bytes, small ? set.maxSourceBytes : undefined, !small)
      return compare(set.name, configDir, bin, cli, repetitions)
    }), set.goal)
  }
  // The generated sessions of earlier runs, as a second table's row, and SessionFiles against the SDK.
  const sessions = Flags.count("sessions", 1000)
  const mb = Flags.count("mb", 200)
  out("")
  out("Generated: sessions written by this bench (long prompts and answers, one tool call per turn).")
  out("")
  header()
  withDirectory(mb * MB, (configDir) => {
    generate(configDir, sessions, mb * MB)
    row(compare(`generated, ${sessions} files / ${mb} MB`, configDir, bin, cli, repetitions), 1)
    const env = { ...process.env, CLAUDE_CONFIG_DIR: configDir }
    const read = (mode: string) =>
      measure([process.execPath, import.meta.filename, "--worker", mode, configDir, "/home/bench/project-0", uuidOf(0)], env, (stdout) =>
        JSON.parse(stdout.trim().split("\n").at(-1)!))
    const sdk = read("sdk")
    const files = read("ours")
    if (JSON.stringify(sdk.output) !== JSON.stringify(files.output)) {
      throw new Error(`SessionFiles and the SDK disagree: ${JSON.stringify(files.output)} vs ${JSON.stringify(sdk.output)}`)
    }
    out("")
    out(`SessionFiles list + read one vs SDK listSessions + getSessionMessages (generated set, one run): ` +
      `time ${(files.seconds / sdk.seconds).toFixed(2)}×, peak ${(files.peakMb / sdk.peakMb).toFixed(2)}×`)
  })
}

if (!import.meta.main) {
  // Imported for its generator.
} else if (process.argv[2] === "--worker") {
  const [, , , mode, configDir, dir, sessionId] = process.argv
  worker(mode!, configDir!, dir!, sessionId!).then((result) => process.stdout.write(JSON.stringify(result) + "\n"))
} else {
  main()
}
