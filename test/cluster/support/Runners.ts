/**
 * Runner processes of a cluster on one machine (`scripts/cluster/runner.ts`), for the failover test and the
 * cluster demo: started as children of this process, their JSON lines collected, the processes they left
 * behind found in the process table.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import * as path from "node:path"
import { shardingConfig } from "../../../scripts/cluster/runner.ts"
import * as AgentSession from "../../../src/cluster/AgentSession.ts"
import * as Cluster from "../../../src/cluster/Cluster.ts"
import * as ClaudeSandbox from "../../../src/testing/ClaudeSandbox.ts"
import * as MessagesRequest from "../../../src/testing/MessagesRequest.ts"
import * as Script from "../../../src/testing/Script.ts"
import * as ScriptedServer from "../../../src/testing/ScriptedServer.ts"
import { waitUntil } from "../../session/support/Real.ts"
import * as Postgres from "../../support/Postgres.ts"
import * as Child from "./Child.ts"

export const runnerScript = path.join(import.meta.dirname, "..", "..", "..", "scripts", "cluster", "runner.ts")

export interface Runner extends Child.JsonChild {
  readonly name: string
  readonly port: number
}

/** How the runners and their client serialize RPCs between them. */
export type Serialization = NonNullable<Cluster.PostgresOptions["serialization"]>

/** A runner process on the database `url`, listening on `port`, running the CLI in `sandbox`. */
export const start = (options: {
  readonly name: string
  readonly url: string
  readonly port: number
  readonly sandbox: ClaudeSandbox.Sandbox
  readonly serialization: Serialization
}): Runner => {
  // The CLIs run in the sandbox's environment alone: the mark goes there too, so that their tools carry it.
  const mark = Child.newMark()
  return {
    name: options.name,
    port: options.port,
    ...Child.spawn(runnerScript, {
      CLAUDE_CLUSTER_PG_URL: options.url,
      CLAUDE_CLUSTER_RUNNER_HOST: "127.0.0.1",
      CLAUDE_CLUSTER_RUNNER_PORT: String(options.port),
      CLAUDE_CLUSTER_SERIALIZATION: options.serialization,
      RUNNER_SANDBOX: JSON.stringify({ ...options.sandbox, env: Child.withMark(options.sandbox.env, mark) })
    }, mark)
  }
}

/** Waits until the runner serves; fails with its stderr when it exits first. */
export const ready = (runner: Runner) =>
  Effect.callback<void, Error>((resume) => {
    const timer = setInterval(() => {
      if (runner.lines.some((line) => "ready" in line)) {
        clearInterval(timer)
        resume(Effect.void)
      } else if (runner.process.exitCode !== null || runner.process.signalCode !== null) {
        clearInterval(timer)
        resume(Effect.fail(new Error(`runner ${runner.name} exited before serving: ${runner.stderr()}`)))
      }
    }, 50)
    return Effect.sync(() => clearInterval(timer))
  })

export const { isRunning, leftBehind, processGroup, stop } = Child

// Conversations named after their entities; each entity's first turn is quick, its second streams for seconds.
// A conversation resumed after a crash may carry the CLI's note of the interrupted turn (one more assistant
// message): the retry then lands one turn further, answered the same.
const names = Array.from({ length: 12 }, (_, i) => `agent${String.fromCharCode(97 + i)}`)
export const first = (name: string) => `${name} one.`
export const second = (name: string) => `${name} two: ` + "z".repeat(90)

/** The prompt of a second turn that runs a tool: a Bash command that writes its pid to {@link toolPidFile}, then sleeps. */
export const toolPrompt = (name: string) => `${name}: second, with a tool`
/** Where the tool of {@link toolPrompt} writes its pid, in the runners' working directory. */
export const toolPidFile = (name: string) => `${name}.tool.pid`
// Runs once per conversation: a retry asked for the tool again finds its pid file and goes on at once.
const toolCommand = (name: string) =>
  `test -e ${toolPidFile(name)} || sh -c 'echo $$ > ${toolPidFile(name)}; exec sleep 300'`
const asksForTool = (name: string) => (request: MessagesRequest.MessagesRequest) =>
  MessagesRequest.firstUserTextIncludes(`${name}:`)(request) && JSON.stringify(request.messages).includes(toolPrompt(name))

const script: Script.Script = {
  conversations: names.flatMap((name) => [
    // The same conversation once the tool prompt is in it: the second turn calls the tool.
    Script.conversation(name, asksForTool(name), [
      Script.turn(first(name)),
      Script.turn([Script.text("Running it."), Script.toolUse("Bash", { command: toolCommand(name) })]),
      Script.turn(second(name)),
      Script.turn(second(name)),
      Script.turn(second(name))
    ]),
    Script.conversation(name, MessagesRequest.firstUserTextIncludes(`${name}:`), [
      Script.turn(first(name)),
      Script.turn(second(name), { eventDelay: "120 millis", chunkSize: 3 }),
      Script.turn(second(name))
    ])
  ]),
  sideReply: "Scripted session"
}

/** The host-death guard's grace between SIGTERM and SIGKILL to a CLI's process group, and time to spare. */
export const guardDeadline = Duration.seconds(2 + 15)

/** A bounded wait; on timeout, what was awaited and what the runners wrote to stderr. */
export const within = (duration: Duration.Input, what: string | (() => string), runners: ReadonlyArray<Runner>) =>
<A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.timeoutOrElse(self, {
    duration,
    orElse: () =>
      Effect.fail(new Error(`timed out waiting for ${typeof what === "string" ? what : what()}\n${runners.map((r) => `${r.name}: ${r.stderr()}`).join("\n")}`))
  })

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
  /** The runner to kill (A) and the one that stays (B). */
  readonly victim: Runner
  readonly survivor: Runner
  /** Two entities placed on each. */
  readonly moving: readonly [string, string]
  readonly staying: readonly [string, string]
  readonly address: (runner: Runner) => string
  /** The working directory both runners' CLIs share. */
  readonly cwd: string
}

/**
 * A PostgreSQL, one scripted model, two runner processes (each its own CLI home, one working directory: only
 * the store carries a conversation between them) and this process as their client, all serializing RPCs as
 * `serialization` says; `body` runs once both runners are registered and two entities are placed on each.
 */
export const withCluster = <A, E, R>(serialization: Serialization, body: (world: World) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const pg = yield* Postgres.start
    const url = `postgres://${pg.username}@${pg.host}:${pg.port}/${pg.database}`
    const server = yield* ScriptedServer.make(script)
    const sandboxA = yield* ClaudeSandbox.make({ baseUrl: server.url })
    const sandboxB = { ...(yield* ClaudeSandbox.make({ baseUrl: server.url })), cwd: sandboxA.cwd }
    const runners = [
      start({ name: "A", url, port: yield* Postgres.freePort(), sandbox: sandboxA, serialization }),
      start({ name: "B", url, port: yield* Postgres.freePort(), sandbox: sandboxB, serialization })
    ] as const
    for (const runner of runners) yield* Effect.addFinalizer(() => stop(runner))
    yield* Effect.all(runners.map(ready), { concurrency: 2 }).pipe(within("60 seconds", "runners ready", runners))
    const address = (runner: Runner) => `127.0.0.1:${runner.port}`
    return yield* Effect.gen(function*() {
      // Both runners registered before any entity is placed, so that the shards are spread from the start.
      const sql = yield* SqlClient.SqlClient
      let registered: unknown = []
      yield* waitUntil(
        sql<{ readonly address: string; readonly healthy: boolean }>`SELECT address, healthy FROM cluster_runners`.pipe(
          Effect.map((rows) => {
            registered = rows
            return rows.filter((row) => row.healthy).length === 2
          }),
          Effect.catch((e) => Effect.sync(() => (registered = String(e), false)))
        )
      ).pipe(within("60 seconds", () => `both runners registered: ${JSON.stringify(registered)}`, runners))

      // Where each entity lives (Info starts no CLI), asked until both runners hold two.
      const client = yield* AgentSession.client
      const placement = Effect.forEach(names, (name) => Effect.map(client(name).Info(), (info) => [name, info.runner] as const), { concurrency: 4 })
      let placed: ReadonlyArray<readonly [string, string | null]> = []
      yield* waitUntil(Effect.map(Effect.orElseSucceed(placement, () => []), (all) => {
        placed = all
        return runners.every((runner) => all.filter(([, at]) => at === address(runner)).length >= 2)
      })).pipe(within("60 seconds", () => `entities spread: ${JSON.stringify(placed)}`, runners))
      const on = (runner: Runner) => placed.filter(([, at]) => at === address(runner)).slice(0, 2).map(([name]) => name) as [string, string]
      const [victim, survivor] = runners
      return yield* body({ server, runners, victim, survivor, moving: on(victim), staying: on(survivor), address, cwd: sandboxA.cwd })
    }).pipe(Effect.provide(Cluster.layerPostgres({ url: Redacted.make(url), serialization, shardingConfig })))
  })
