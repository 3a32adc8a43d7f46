/**
 * One machine playing a cluster, for `examples/cluster.ts`: a PostgreSQL, a scripted model, two runner
 * processes (`examples/cluster-runner.ts`) and this process as their client. Every process of a runner's tree
 * carries the runner's mark in its environment (its CLIs and their tools too, which run in sessions of their
 * own), so that what a killed runner left running is found in the process table.
 */
import { Duration, Effect, Option, Redacted, Schedule, Stream } from "effect"
import { SqlClient } from "effect/sql"
import * as child from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { AgentSession, Cluster } from "../src/cluster/index.ts"
import { ClaudeSandbox, LocalPostgres, MessagesRequest, Script, ScriptedServer } from "../src/testing/index.ts"
import { shardingConfig } from "./cluster-runner.ts"

/** The variable marking a runner's process tree. */
export const markVariable = "CLUSTER_DEMO_TREE"

// The scripted model: a conversation per entity, its first turn quick, its second streaming for seconds (a
// resumed conversation may carry the CLI's note of the interrupted turn: the retry lands one turn on).
// Enough of them that each runner holds three, wherever the ring puts their shards (with 12, one runner held a single
// one in about one cluster start in 150: 11 of 12 shards fell to the other).
export const names = Array.from({ length: 24 }, (_, i) => `agent${String.fromCharCode(97 + i)}`)
export const first = (name: string) => `${name} one.`
export const second = (name: string) => `${name} two: ` + "z".repeat(90)
// With this prompt the second turn runs a shell command that writes its pid to a file and sleeps.
export const toolPrompt = (name: string) => `${name}: second, with a tool`
export const toolPidFile = (name: string) => `${name}.tool.pid`
export const toolCommand = (name: string) => `test -e ${toolPidFile(name)} || sh -c 'echo $$ > ${toolPidFile(name)}; exec sleep 300'`
// How a retried turn's prompt begins (AgentSession tells the model what the cut attempt did).
const retryNote = "This prompt was sent before"
// With this prompt the second turn runs a shell command for 20 seconds, each run noting its runner's mark in a file.
export const slowToolPrompt = (name: string) => `${name}: second, with a slow tool`
export const toolRunsFile = (name: string) => `${name}.tool.runs`
const slowToolCommand = (name: string) => `echo $${markVariable} >> ${toolRunsFile(name)}; sleep 20`
// With this prompt the turn writes a file (relative to the CLI's cwd), which needs the `acceptEdits` mode.
export const writePrompt = (name: string) => `${name}: write a file`
export const writtenFile = (name: string) => `${name}.written.txt`
const mentions = (text: string) => (request: MessagesRequest.MessagesRequest) => JSON.stringify(request.messages).includes(text)

const script: Script.Script = {
  conversations: names.flatMap((name) => [
    // A retry of the tool turn, told that its first attempt ran the tool: the model answers without running it again.
    Script.conversation(name, (request) => mentions(toolPrompt(name))(request) && mentions(retryNote)(request), [
      Script.turn(first(name)),
      ...Array.from({ length: 3 }, () => Script.turn(second(name)))
    ]),
    Script.conversation(name, mentions(toolPrompt(name)), [
      Script.turn(first(name)),
      Script.turn([Script.text("Running it."), Script.toolUse("Bash", { command: toolCommand(name) })]),
      ...Array.from({ length: 3 }, () => Script.turn(second(name)))
    ]),
    Script.conversation(name, mentions(slowToolPrompt(name)), [
      Script.turn(first(name)),
      Script.turn([Script.text("Running it."), Script.toolUse("Bash", { command: slowToolCommand(name) })]),
      // The tool's answer, then a next turn's.
      Script.turn(second(name)),
      Script.turn(second(name))
    ]),
    Script.conversation(name, mentions(writePrompt(name)), [
      Script.turn(Script.toolUse("Write", { file_path: writtenFile(name), content: `${name} wrote this.\n` })),
      Script.turn(first(name))
    ]),
    Script.conversation(name, MessagesRequest.firstUserTextIncludes(`${name}:`), [
      Script.turn(first(name)),
      Script.turn(second(name), { eventDelay: "120 millis", chunkSize: 3 }),
      Script.turn(second(name))
    ])
  ]),
  sideReply: "Scripted session"
}

// The prompt a request asks about: the last text of the last user message that is not a tool result (the CLI
// may put a system reminder before it). A request that ends with tool results continues that prompt's turn.
const promptOf = (request: MessagesRequest.MessagesRequest): string | undefined => {
  const blocks = (m: MessagesRequest.Message) => typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content
  const prompt = request.messages.findLast((m) => m.role === "user" && !blocks(m).some((b) => b.type === "tool_result"))
  return prompt === undefined ? undefined : String(blocks(prompt).findLast((b) => b.type === "text")?.text ?? "")
}

/**
 * Model requests that re-send a turn the model already answered: a request whose conversation and prompt are
 * those of an earlier request that the model answered with the turn's end (a reply, not a tool call). Such a
 * re-send is the model being asked again what it answered, whether the whole request is repeated or the
 * prompt is sent anew after the answer (a finished turn re-run on a resumed conversation). A tool round trip
 * (two requests, one turn) is no re-send, nor is the retry of a turn that stopped at a tool call (its reply
 * did not end the turn). The demo's prompts are all different, so a repeated prompt is a repeated turn.
 */
export const duplicateModelRequests = (requests: ReadonlyArray<ScriptedServer.RecordedRequest>): number => {
  const finished = new Set<string>()
  let duplicates = 0
  for (const recorded of ScriptedServer.turnRequests(requests)) {
    const request = MessagesRequest.decode(recorded.body)
    if (Option.isNone(request)) continue
    const key = JSON.stringify([recorded.conversation, promptOf(request.value)])
    if (finished.has(key)) duplicates++
    const answer = Script.locate(script, request.value).turn
    if (recorded.kind === "turn" && answer !== undefined && answer.stopReason !== "tool_use") finished.add(key)
  }
  return duplicates
}

export interface Child {
  readonly process: child.ChildProcess
  readonly mark: string
  /** The JSON lines it wrote so far. */
  readonly lines: Array<any>
  /** The end of its stderr. */
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/** Runs a Node script with `env`, its tree marked with `mark`. */
// How much of a child's stderr (and its stdout's other lines) is kept: the end of it.
const keptOutput = 200_000

export const spawnNode = (script: string, env: Record<string, string>, mark: string): Child => {
  const proc = child.spawn(process.execPath, [script], {
    env: { ...process.env, ...env, [markVariable]: mark },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const lines: Array<any> = []
  let [pending, stderr] = ["", ""]
  proc.stdout!.on("data", (chunk: Buffer) => {
    const parts = (pending + chunk.toString("utf8")).split("\n")
    pending = parts.pop()!
    // Other lines (a logger's) are kept with stderr, for a look at a run that went wrong.
    for (const part of parts) {
      if (part.startsWith("{")) lines.push(JSON.parse(part))
      else stderr = (stderr + part + "\n").slice(-keptOutput)
    }
  })
  proc.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-keptOutput)))
  return { process: proc, mark, lines, stderr: () => stderr, exited: new Promise((r) => proc.on("exit", (code) => r(code))) }
}

export const newMark = () => `${process.pid}-${Math.random().toString(36).slice(2)}`

/** The live processes other than `of` itself carrying its mark, from the process table (Linux: /proc). */
export const leftBehind = (of: Pick<Child, "process" | "mark">): ReadonlyArray<{ readonly pid: number; readonly cmd: string }> =>
  child.execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" }).split("\n").flatMap((line) => {
    const [, pid, stat, cmd] = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line) ?? []
    // A zombie has ended; it only waits for its parent to read its status.
    return pid === undefined || stat!.startsWith("Z") || Number(pid) === of.process.pid || !carries(Number(pid), of.mark)
      ? []
      : [{ pid: Number(pid), cmd: cmd! }]
  })

/** Whether process `pid` carries `mark`. */
export const carries = (pid: number, mark: string): boolean => {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`${markVariable}=${mark}`)
  } catch {
    return false
  }
}

/** Ends a child and whatever of its tree is left, as a dying machine would. */
export const stop = (of: Pick<Child, "process" | "mark">) =>
  Effect.sync(() => {
    if (of.process.exitCode === null && of.process.signalCode === null) of.process.kill("SIGKILL")
    for (const { pid } of leftBehind(of)) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // Gone meanwhile.
      }
    }
  })

export interface Runner extends Child {
  readonly name: string
  readonly address: string
}

export const runnerScript = path.join(import.meta.dirname, "cluster-runner.ts")

/** The host-death guard's grace between SIGTERM and SIGKILL, and time to spare on a loaded machine. */
export const guardDeadline = Duration.seconds(2 + 15)

/** A bounded wait; on timeout, what was awaited and what the runners wrote to stderr. */
export const within = (duration: Duration.Input, what: string | (() => string), runners: ReadonlyArray<Runner>) =>
<A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.timeoutOrElse(self, {
    duration,
    orElse: () => {
      const stderr = runners.map((r) => `${r.name}: ${r.stderr()}`).join("\n")
      return Effect.fail(new Error(`timed out waiting for ${typeof what === "string" ? what : what()}\n${stderr}`))
    }
  })

/** Checks `condition` every 50 ms until it holds. */
export const waitUntil = (condition: Effect.Effect<boolean>): Effect.Effect<void> =>
  Effect.flatMap(condition, (holds) => holds ? Effect.void : Effect.andThen(Effect.sleep("50 millis"), waitUntil(condition)))

/** A turn's events, collected. */
export const collect = (entityId: string, turnId: string, prompt: string) =>
  Effect.flatMap(AgentSession.client, (client) => Stream.runCollect(client(entityId).Turn({ turnId, prompt })))

export const resultText = (events: ReadonlyArray<AgentSession.TurnEvent>) => {
  const last = events.at(-1)
  return last?._tag === "TurnMessage" && last.message._tag === "ResultSuccess" ? last.message.result : `no result: ${last?._tag}`
}

export interface World {
  readonly server: ScriptedServer.Shape
  readonly runners: readonly [Runner, Runner]
  /** The runner to kill (A) and the one that stays (B), two entities placed on each. */
  readonly victim: Runner
  readonly survivor: Runner
  readonly moving: readonly [string, string]
  readonly staying: readonly [string, string]
  /** The working directory both runners' CLIs share. */
  readonly cwd: string
  /** The database the runners share. */
  readonly url: string
}

/**
 * The cluster, its RPCs serialized as `serialization` says; `body` runs once both runners are registered and
 * two entities are placed on each. Each runner has its own CLI home: only the store carries a conversation.
 * `runnerEnv` adds to the runners' environment (the sharding configuration's settings, `ENTITY_MAX_IDLE_TIME`...).
 */
export const withCluster = <A, E, R>(
  serialization: "binary" | "ndjson",
  body: (world: World) => Effect.Effect<A, E, R>,
  runnerEnv: Record<string, string> = {}
) =>
  Effect.gen(function*() {
    const url = (yield* LocalPostgres.make).url
    const server = yield* ScriptedServer.make(script)
    const sandbox = yield* ClaudeSandbox.make({ baseUrl: server.url })
    const start = Effect.fnUntraced(function*(name: string, home: ClaudeSandbox.Sandbox) {
      const port = yield* LocalPostgres.freePort
      const mark = newMark()
      const env = {
        ...runnerEnv,
        CLAUDE_CLUSTER_PG_URL: url,
        CLAUDE_CLUSTER_RUNNER_HOST: "127.0.0.1",
        CLAUDE_CLUSTER_RUNNER_PORT: String(port),
        CLAUDE_CLUSTER_SERIALIZATION: serialization,
        // The CLIs run in the sandbox's environment alone: the mark goes there too.
        RUNNER_SANDBOX: JSON.stringify({ ...home, cwd: sandbox.cwd, env: { ...home.env, [markVariable]: mark } })
      }
      const runner: Runner = { name, address: `127.0.0.1:${port}`, ...spawnNode(runnerScript, env, mark) }
      yield* Effect.addFinalizer(() => stop(runner))
      return runner
    })
    const runners = [yield* start("A", sandbox), yield* start("B", yield* ClaudeSandbox.make({ baseUrl: server.url }))] as const
    const ready = (runner: Runner) =>
      waitUntil(Effect.suspend(() =>
        runner.process.exitCode === null
          ? Effect.succeed(runner.lines.some((line) => "ready" in line))
          : Effect.die(new Error(`runner ${runner.name} exited before serving: ${runner.stderr()}`))
      ))
    yield* Effect.all(runners.map(ready), { concurrency: 2 }).pipe(within("60 seconds", "runners ready", runners))

    return yield* Effect.gen(function*() {
      // Both runners registered before any entity is placed, so that the shards are spread from the start.
      const sql = yield* SqlClient.SqlClient
      const healthy = sql<{ readonly healthy: boolean }>`SELECT healthy FROM cluster_runners`.pipe(
        Effect.map((rows) => rows.filter((row) => row.healthy).length === 2),
        Effect.orElseSucceed(() => false)
      )
      yield* waitUntil(healthy).pipe(within("60 seconds", "both runners registered", runners))
      // Where each entity lives (Info starts no CLI), asked until both runners hold three (two to place, one for a
      // test's late turn) and nothing moved for three seconds: the first runner hands the second its share of the
      // shards over a while.
      const client = yield* AgentSession.client
      let placed: ReadonlyArray<readonly [string, string | null]> = []
      let unchanged = 0
      const placement = Effect.forEach(names, (name) => Effect.map(client(name).Info(), (info) => [name, info.runner] as const), {
        concurrency: 4
      })
      const held = (runner: Runner) => placed.filter(([, at]) => at === runner.address).map(([name]) => name)
      const on = (runner: Runner) => held(runner).slice(0, 2) as [string, string]
      const settled = Effect.map(Effect.orElseSucceed(placement, () => []), (all) => {
        unchanged = JSON.stringify(all) === JSON.stringify(placed) ? unchanged + 1 : 0
        placed = all
        return unchanged >= 3 && runners.every((runner) => held(runner).length >= 3)
      })
      yield* Effect.repeat(settled, { until: (done) => done, schedule: Schedule.spaced("1 second") }).pipe(
        within("90 seconds", () => `entities spread: ${JSON.stringify(placed)}`, runners)
      )
      const [victim, survivor] = runners
      return yield* body({ server, runners, victim, survivor, moving: on(victim), staying: on(survivor), cwd: sandbox.cwd, url })
    }).pipe(Effect.provide(Cluster.layerPostgres({ url: Redacted.make(url), serialization, shardingConfig })))
  })
