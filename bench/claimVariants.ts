/**
 * What the CLI does with a claim, for the ways of parking and claiming a spare that differ between this library's
 * `SparePool` and the Agent SDK's `prewarm()` (0.3.332), one difference at a time: the real CLI on the scripted
 * model, spawned and fed here directly (no library in between), so that only the CLI's side is measured.
 *
 * Each round starts one spare per variant, waits until all are parked and idle (no CPU used for half a second),
 * then claims them one at a time (the order rotating), each with the claim and the prompt `hello` written
 * together, and times from that write: the first line out, the claim's answer, `system/init`, the first assistant
 * message; and the CPU time the CLI used until then (every thread's `schedstat`), which the machine's load does not
 * stretch as it does the wall clock. Prints medians, and each variant's per-round ratios to `ours`.
 *
 * `node bench/claimVariants.ts [--rounds 10] [--only ours,sdk,...]`
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Scripted from "../src/testing/Scripted.ts"
import * as Script from "../src/testing/Script.ts"
import * as Flags from "./flags.ts"

interface Variant {
  readonly argv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  /** The parking folder: a temporary one (the pool's) or one under the config home (the SDK's). */
  readonly park: "tmp" | "home"
  readonly initialize: Readonly<Record<string, unknown>>
  readonly claim: Readonly<Record<string, unknown>>
  /** The prompt as the SDK writes it (a text block, no uuid) rather than as the session does. */
  readonly sdkPrompt: boolean
  /** The claim and the prompt in two writes (the SDK's) rather than one. */
  readonly twoWrites: boolean
  /** Its own session, as the library's spawner starts a CLI (`setsid`: its own scheduling group under autogroup). */
  readonly detached: boolean
}

const ours: Variant = {
  argv: ["-p", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--await-claim", "--replay-user-messages"],
  env: {},
  park: "tmp",
  initialize: { subtype: "initialize" },
  claim: {},
  sdkPrompt: false,
  twoWrites: false,
  detached: true
}
const sdkEnv = {
  BUN_ENABLE_CRASH_REPORTING: "0",
  CLAUDE_AGENT_SDK_VERSION: "0.3.332",
  CLAUDE_CODE_ENTRYPOINT: "sdk-ts",
  CLAUDE_CODE_SDK_READS_SESSION_STATE: "1",
  CLAUDE_CODE_SDK_READS_STARTUP_MARKS: "1"
}
// As the SDK's `prewarm()` then `claim()` spawn and write, seen on the wire.
const sdk: Variant = {
  argv: ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--await-claim"],
  env: sdkEnv,
  park: "home",
  initialize: { subtype: "initialize", systemPrompt: [""] },
  claim: { include_initialize: true },
  sdkPrompt: true,
  twoWrites: true,
  detached: false
}
const variants: Record<string, Variant> = {
  ours,
  sdk,
  noPrintFlag: { ...ours, argv: ours.argv.filter((a) => a !== "-p") },
  noReplays: { ...ours, argv: ours.argv.filter((a) => a !== "--replay-user-messages") },
  sdkEnv: { ...ours, env: sdkEnv },
  homeParking: { ...ours, park: "home" },
  emptySystemPrompt: { ...ours, initialize: sdk.initialize },
  includeInitialize: { ...ours, claim: sdk.claim },
  notDetached: { ...ours, detached: false }
}

const rounds = Flags.count("rounds", 10)
const names = Flags.option("only")?.split(",") ?? Object.keys(variants)
const unknown = names.find((name) => variants[name] === undefined)
if (unknown !== undefined) throw new Error(`no variant ${unknown}; there are ${Object.keys(variants).join(", ")}`)

// CPU time used so far by every thread of `pid`, in milliseconds.
const cpuMs = (pid: number) => {
  let ns = 0
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0])
    }
  } catch {
    // Ended meanwhile.
  }
  return ns / 1e6
}

// CPU time used so far by `pid`, in clock ticks: coarse enough that a parked CLI's timers do not move it.
const ticks = (pid: number) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return -1
  }
}

interface Frame {
  readonly at: number
  readonly frame: { readonly type?: string; readonly subtype?: string; readonly response?: { readonly request_id?: string } }
}

// A spare: its process and the frames it wrote, with the time each was read.
interface Spare {
  readonly child: ChildProcess
  readonly frames: Array<Frame>
  readonly waiting: Set<() => void>
}

// The time of the first frame from index `from` on that `is` accepts, once there is one.
const frameAt = (spare: Spare, is: (frame: Frame["frame"]) => boolean, from = 0) =>
  new Promise<number>((resolve, reject) => {
    const look = () => {
      const found = spare.frames.slice(from).find((f) => is(f.frame))
      if (found !== undefined) return resolve(found.at)
      if (spare.child.exitCode !== null || spare.child.signalCode !== null) return reject(new Error("the CLI ended"))
      spare.waiting.add(() => look())
    }
    look()
  })

interface Timing {
  readonly first: number
  readonly answer: number
  readonly init: number
  readonly assistant: number
  readonly cpu: number
}

const run = (sandbox: Scripted.Sandbox["Service"]) => {
  const start = (variant: Variant): Promise<Spare> => {
    const spares = path.join(sandbox.home, ".claude", "spares")
    if (variant.park === "home") fs.mkdirSync(spares, { recursive: true })
    const cwd = variant.park === "tmp"
      ? fs.mkdtempSync(path.join(os.tmpdir(), "claude-spare-"))
      : fs.mkdtempSync(path.join(spares, "spare-"))
    const child = spawn(sandbox.executable, [...variant.argv], {
      cwd,
      env: { ...sandbox.env, ...variant.env },
      stdio: ["pipe", "pipe", "ignore"],
      detached: variant.detached
    })
    const spare: Spare = { child, frames: [], waiting: new Set() }
    const wake = () => {
      const waiting = [...spare.waiting]
      spare.waiting.clear()
      for (const look of waiting) look()
    }
    let rest = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      const lines = (rest + chunk.toString()).split("\n")
      rest = lines.pop()!
      for (const line of lines) spare.frames.push({ at: performance.now(), frame: JSON.parse(line) })
      wake()
    })
    child.on("exit", wake)
    child.stdin!.write(JSON.stringify({ type: "control_request", request_id: "init", request: variant.initialize }) + "\n")
    return frameAt(spare, (f) => f.type === "control_response" && f.response?.request_id === "init").then(() => spare)
  }

  // Until none of `spares` used CPU for half a second.
  const settled = async (spares: ReadonlyArray<Spare>) => {
    let last = spares.map((s) => ticks(s.child.pid!))
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      const now = spares.map((s) => ticks(s.child.pid!))
      if (now.every((ms, i) => ms === last[i])) return
      last = now
    }
  }

  const claim = async (variant: Variant, spare: Spare): Promise<Timing> => {
    const from = spare.frames.length
    const request = { subtype: "claim_session", cwd: sandbox.cwd, sdk_mcp_servers: [], ...variant.claim }
    const claimLine = JSON.stringify({ type: "control_request", request_id: "claim", request }) + "\n"
    const prompt = variant.sdkPrompt
      ? { type: "user", session_id: "", message: { role: "user", content: [{ type: "text", text: "hello" }] }, parent_tool_use_id: null }
      : { type: "user", uuid: randomUUID(), message: { role: "user", content: "hello" }, parent_tool_use_id: null, session_id: "" }
    const promptLine = JSON.stringify(prompt) + "\n"
    const cpuStart = cpuMs(spare.child.pid!)
    const start = performance.now()
    if (variant.twoWrites) {
      spare.child.stdin!.write(claimLine)
      spare.child.stdin!.write(promptLine)
    } else spare.child.stdin!.write(claimLine + promptLine)
    const first = await frameAt(spare, () => true, from)
    const answer = await frameAt(spare, (f) => f.type === "control_response" && f.response?.request_id === "claim", from)
    const init = await frameAt(spare, (f) => f.type === "system" && f.subtype === "init", from)
    const assistant = await frameAt(spare, (f) => f.type === "assistant", from)
    const cpu = cpuMs(spare.child.pid!) - cpuStart
    await frameAt(spare, (f) => f.type === "result", from)
    const exited = new Promise((resolve) => spare.child.once("exit", resolve))
    spare.child.stdin!.end()
    await exited
    return { first: first - start, answer: answer - start, init: init - start, assistant: assistant - start, cpu }
  }

  return async () => {
    const results = new Map(names.map((name) => [name, [] as Array<Timing>]))
    for (let round = 0; round < rounds; round++) {
      const spares = await Promise.all(names.map((name) => start(variants[name])))
      try {
        for (let i = 0; i < names.length; i++) {
          const at = (i + round) % names.length
          await settled(spares.filter((s) => s.child.exitCode === null))
          results.get(names[at])!.push(await claim(variants[names[at]], spares[at]))
        }
      } finally {
        for (const spare of spares) spare.child.kill("SIGKILL")
      }
      process.stderr.write(`round ${round + 1} of ${rounds}, load ${os.loadavg()[0].toFixed(1)}\n`)
    }
    const keys = ["first", "answer", "init", "assistant", "cpu"] as const
    const base = results.get("ours")
    console.log(`median ms of ${rounds}: ${keys.join(", ")} (CLI CPU to the first assistant message)` +
      (base === undefined ? "" : "; per-round ratios to ours: assistant, cpu"))
    for (const [name, timings] of results) {
      const ratio = (key: "assistant" | "cpu") => Flags.median(timings.map((t, i) => t[key] / base![i][key])).toFixed(2)
      console.log(
        name.padEnd(18) + keys.map((key) => Flags.median(timings.map((t) => t[key])).toFixed(0).padStart(6)).join("") +
          (base === undefined ? "" : `   ${ratio("assistant")} ${ratio("cpu")}`)
      )
    }
  }
}

const script = Script.make(Array.from({ length: 8 }, (_, i) => Script.turn(`Answer ${i}.`)))
await Effect.runPromise(
  Effect.flatMap(Scripted.Sandbox, (sandbox) => Effect.promise(run(sandbox))).pipe(
    Effect.scoped,
    Effect.provide(Scripted.layer(script).pipe(Layer.provideMerge(NodeServices.layer)))
  )
)
