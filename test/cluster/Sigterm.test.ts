/**
 * Two runner processes on one real PostgreSQL, the real CLI on the scripted model: a runner holding live sessions
 * (one idle with its CLI, one mid-turn in a shell command, one whose turn is asked after the signal) is sent
 * SIGTERM. It drains and exits within its drain deadline and a margin, leaving no process behind (the process
 * table); the running turn is answered once by it (the turn log, the scripted model's requests); the late turn,
 * one queued behind the running one and the idle entity's next turn by the other runner. A turn the deadline cuts
 * is retried there, marked. Both were answered with an interrupt before (their requests stored processed). A
 * retry waiting out its backoff when the signal comes is handed over: the draining runner takes no lease (the
 * lease's fencing token) and runs no tool (the tool's own record).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as SqlClient from "effect/sql/SqlClient"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as Drain from "../../src/cluster/internal/drain.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import * as Runners from "./support/Runners.ts"

const { collect, first, names, resultText, second, waitUntil, within } = Runners

// Long enough for the 20 s shell command to end within it; the exit's margin covers the entities' hand-over.
const drainDeadline = Duration.seconds(30)
const exitMargin = Duration.seconds(20)
// Far longer than a runner with nothing to drain takes to exit.
const longDeadline = Duration.minutes(5)
// Short of the shell command that the turn cut by it runs.
const cutDeadline = Duration.seconds(5)

const attempts = (name: string, turnId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      Effect.orDie(sql<{ readonly attempts: number }>`SELECT attempts FROM claude_turns
        WHERE entity_id = ${AgentSession.logKey("AgentSession", name)} AND turn_id = ${turnId}`),
      (rows) => rows.map((row) => Number(row.attempts))
    ))

// The last fencing token of the entity's conversation lease (one more at each take).
const leaseToken = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      Effect.orDie(sql<{ readonly token: number | string }>`SELECT token FROM claude_session_leases
        WHERE lease = ${AgentSession.logKey("AgentSession", name)}`),
      (rows) => rows.map((row) => Number(row.token))
    ))

// The runner has exited within `deadline` and the margin, and nothing of its tree is left (the host-death guard
// would end what is, within its deadline).
const exitsWithin = (victim: Runners.Runner, deadline: Duration.Duration) =>
  Effect.gen(function*() {
    const exited = yield* Effect.promise(() => victim.exited).pipe(
      Effect.as(true),
      Effect.timeoutOrElse({ duration: Duration.sum(deadline, exitMargin), orElse: () => Effect.succeed(false) })
    )
    assert.isTrue(exited, `the runner exits after SIGTERM: ${victim.stderr()}`)
    yield* waitUntil(Effect.sync(() => Runners.leftBehind(victim).length === 0)).pipe(
      Effect.timeout(Runners.guardDeadline),
      Effect.ignore
    )
    assert.deepStrictEqual(Runners.leftBehind(victim), [])
  })

describe("Cluster.layerPostgres: SIGTERM", () => {
  it.live("a runner with live sessions drains, exits within its deadline and leaves nothing behind", () =>
    Runners.withCluster("binary", ({ cwd, moving: [idle, busy], runners, server, survivor, victim }) =>
      Effect.gen(function*() {
        const client = yield* AgentSession.client
        // A third entity of the runner: its turn is asked once the runner drains.
        const others = yield* Effect.forEach(names.filter((name) => name !== idle && name !== busy), (name) =>
          Effect.map(client(name).Info(), (info) => [name, info.runner] as const))
        const late = others.find(([, runner]) => runner === victim.address)?.[0]
        assert.isDefined(late, "a third entity on the runner")

        // Every entity has a live CLI on the runner.
        for (const name of [idle, busy, late!]) {
          const events = yield* collect(name, `${name}-1`, `${name}: first`).pipe(within("60 seconds", `${name}'s first turn`, runners))
          assert.strictEqual(resultText(events), first(name))
        }
        const clis = yield* Effect.forEach([idle, busy, late!], (name) => Effect.map(client(name).Info(), (info) => info.pid!))
        assert.isTrue(clis.every((pid) => Runners.carries(pid, victim.mark)))

        // The busy entity's second turn runs a 20 s shell command when the runner is told to stop.
        const runs = path.join(cwd, Runners.toolRunsFile(busy))
        const running = yield* Effect.forkChild(collect(busy, `${busy}-2`, Runners.slowToolPrompt(busy)))
        yield* waitUntil(Effect.sync(() => fs.existsSync(runs))).pipe(within("60 seconds", "the tool", runners))
        victim.process.kill("SIGTERM")
        const lateTurn = yield* Effect.forkChild(collect(late!, `${late}-2`, `${late}: second`))
        // Queued behind the running turn of its entity.
        const queued = yield* Effect.forkChild(collect(busy, `${busy}-3`, `${busy}: third`))

        // The runner ends within its deadline and the margin, and nothing of its tree is left.
        yield* exitsWithin(victim, drainDeadline)
        assert.deepStrictEqual(clis.filter(Runners.isRunning), [])

        // The running turn finished there, once: one start, its tool run once, the model asked once a step.
        const events = yield* Fiber.join(running).pipe(within("60 seconds", "the drained turn", runners))
        assert.deepStrictEqual(events.filter((e) => e._tag === "TurnStarted"), [
          new AgentSession.TurnStarted({ turnId: `${busy}-2`, attempt: 1 })
        ])
        assert.strictEqual(resultText(events), second(busy))
        assert.strictEqual(fs.readFileSync(runs, "utf8"), `${victim.mark}\n`)
        assert.deepStrictEqual(yield* attempts(busy, `${busy}-2`), [1])

        // The turns asked after the signal are answered by the other runner, started there once.
        const after = yield* Fiber.join(queued).pipe(within("120 seconds", "the queued turn", runners))
        assert.deepStrictEqual(after.filter((e) => e._tag === "TurnStarted"), [
          new AgentSession.TurnStarted({ turnId: `${busy}-3`, attempt: 1 })
        ])
        assert.strictEqual(resultText(after), second(busy))

        // So is the idle entity's next turn.
        const answered = yield* Fiber.join(lateTurn).pipe(within("120 seconds", "the late turn", runners))
        assert.deepStrictEqual(answered.filter((e) => e._tag === "TurnStarted"), [
          new AgentSession.TurnStarted({ turnId: `${late}-2`, attempt: 1 })
        ])
        assert.strictEqual(resultText(answered), second(late!))
        const next = yield* collect(idle, `${idle}-2`, `${idle}: second`).pipe(within("120 seconds", "the idle entity's turn", runners))
        assert.strictEqual(resultText(next), second(idle))
        for (const name of [idle, busy, late!]) assert.strictEqual((yield* client(name).Info()).runner, survivor.address, name)

        const requests = ScriptedServer.turnRequests(yield* server.requests)
        const turns = (name: string) => requests.filter((r) => r.conversation === name).map((r) => r.turn)
        assert.deepStrictEqual([turns(busy), turns(late!), turns(idle)], [[0, 1, 2, 3], [0, 1], [0, 1]])
      }), { CLAUDE_CLUSTER_DRAIN_DEADLINE: `${Duration.toSeconds(drainDeadline)} seconds` }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer)
    ), 400_000)

  it.live("a runner that lost its entities in a pause exits at SIGTERM without waiting for its deadline", () =>
    Runners.withCluster("binary", ({ cwd, moving: [name, idle], runners, survivor, victim }) =>
      Effect.gen(function*() {
        const client = yield* AgentSession.client
        assert.strictEqual(resultText(yield* collect(name, `${name}-1`, `${name}: first`)), first(name))
        assert.strictEqual(resultText(yield* collect(idle, `${idle}-1`, `${idle}: first`)), first(idle))
        // Paused mid-tool, long past its shard locks: the other runner takes its entities and retries the turn.
        const pidFile = path.join(cwd, Runners.toolPidFile(name))
        const running = yield* Effect.forkChild(collect(name, `${name}-2`, Runners.toolPrompt(name)))
        yield* waitUntil(Effect.sync(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n")))
          .pipe(within("60 seconds", "the tool", runners))
        victim.process.kill("SIGSTOP")
        const moved = Effect.map(client(name).Info(), (info) => info.runner === survivor.address)
        yield* Effect.repeat(moved, { until: (done) => done, schedule: Schedule.spaced("1 second") }).pipe(
          within("120 seconds", "the entity taken over", runners)
        )
        yield* Fiber.interrupt(running)
        // It has no turn left to drain: it exits without waiting for its (long) deadline.
        victim.process.kill("SIGCONT")
        victim.process.kill("SIGTERM")
        yield* exitsWithin(victim, Duration.zero)
      }), { CLAUDE_CLUSTER_DRAIN_DEADLINE: `${Duration.toSeconds(longDeadline)} seconds` }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer)
    ), 400_000)

  it.live("a draining runner hands a retry waiting out its backoff over, taking no lease", () =>
    Runners.withCluster("binary", ({ cwd, moving: [name], runners, survivor, victim }) =>
      Effect.gen(function*() {
        const client = yield* AgentSession.client
        assert.strictEqual(resultText(yield* collect(name, `${name}-1`, `${name}: first`)), first(name))
        // The second turn's CLI dies mid-tool: the attempt failed, and the turn asked again is retried on the
        // runner, after a backoff.
        const runs = path.join(cwd, Runners.toolRunsFile(name))
        const turnId = `${name}-2`
        const cut = yield* Effect.forkChild(Effect.exit(collect(name, turnId, Runners.slowToolPrompt(name))))
        yield* waitUntil(Effect.sync(() => fs.existsSync(runs))).pipe(within("60 seconds", "the tool", runners))
        process.kill((yield* client(name).Info()).pid!, "SIGKILL")
        assert.isTrue(Exit.isFailure(yield* Fiber.join(cut).pipe(within("60 seconds", "the cut turn", runners))))
        const retry = yield* Effect.forkChild(collect(name, turnId, Runners.slowToolPrompt(name)))
        const retried = Effect.map(attempts(name, turnId), (n) => n[0] === 2)
        yield* waitUntil(Effect.provideService(retried, SqlClient.SqlClient, yield* SqlClient.SqlClient)).pipe(
          within("60 seconds", "the retry", runners)
        )
        // Told to stop while the retry waits out its backoff.
        const taken = yield* leaseToken(name)
        victim.process.kill("SIGTERM")
        yield* exitsWithin(victim, drainDeadline)
        assert.deepStrictEqual(yield* leaseToken(name), taken, "the draining runner took no lease")

        // The other runner runs the retry: the tool ran once on each runner.
        const events = yield* Fiber.join(retry).pipe(within("120 seconds", "the retried turn", runners))
        assert.strictEqual(resultText(events), second(name))
        assert.strictEqual(fs.readFileSync(runs, "utf8"), `${victim.mark}\n${survivor.mark}\n`)
        assert.strictEqual((yield* client(name).Info()).runner, survivor.address)
      }), { CLAUDE_CLUSTER_DRAIN_DEADLINE: `${Duration.toSeconds(drainDeadline)} seconds` }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer)
    ), 400_000)

  it.live("a draining runner refuses a Send outside a turn and starts no CLI for it; the next runner takes it", () =>
    Runners.withCluster("binary", ({ cwd, moving: [quiet, busy], runners, server, survivor, victim }) =>
      Effect.gen(function*() {
        const client = yield* AgentSession.client
        // The quiet entity has never run a turn: no CLI of its own on the runner.
        assert.strictEqual((yield* client(quiet).Info()).runner, victim.address)
        assert.strictEqual(resultText(yield* collect(busy, `${busy}-1`, `${busy}: first`)), first(busy))
        // The busy entity's turn in a 20 s shell command holds the drain.
        const runs = path.join(cwd, Runners.toolRunsFile(busy))
        const running = yield* Effect.forkChild(collect(busy, `${busy}-2`, Runners.slowToolPrompt(busy)))
        yield* waitUntil(Effect.sync(() => fs.existsSync(runs))).pipe(within("60 seconds", "the tool", runners))
        // The runner's CLIs (sessions read stream-json from stdin), from the process table.
        const clis = () =>
          Runners.leftBehind(victim).filter(({ cmd }) => cmd.includes("--input-format")).map(({ pid }) => pid).sort()
        const before = clis()
        assert.lengthOf(before, 1, "the busy entity's CLI")
        victim.process.kill("SIGTERM")
        yield* waitUntil(Effect.sync(() => victim.stderr().includes("draining the turns"))).pipe(within("30 seconds", "the drain", runners))

        const sent = `${quiet}: sent while its runner drains`
        const refused = yield* Effect.flip(client(quiet).Send({ prompt: sent }))
        assert.strictEqual(refused._tag, "AgentSessionError")
        if (refused._tag === "AgentSessionError" && refused.reason._tag === "Undelivered") {
          assert.strictEqual(refused.reason.errorTag, "Draining")
          assert.include(refused.message, victim.address)
        } else {
          assert.fail(`expected Undelivered, got ${refused.message}`)
        }
        // Nothing started for it: the same CLIs on the runner a while later, and no request of its conversation.
        yield* Effect.sleep("2 seconds")
        assert.deepStrictEqual(clis(), before)
        const asked = Effect.map(server.requests, (requests) =>
          ScriptedServer.turnRequests(requests).filter((r) => r.conversation === quiet).length)
        assert.strictEqual(yield* asked, 0)

        // The running turn ends there, the runner exits, and the prompt sent again goes to the other runner.
        assert.strictEqual(resultText(yield* Fiber.join(running).pipe(within("60 seconds", "the drained turn", runners))), second(busy))
        yield* exitsWithin(victim, drainDeadline)
        // Until the other runner holds the entity's shard, the cluster may not know where to send it.
        yield* client(quiet).Send({ prompt: sent }).pipe(
          Effect.retry({ schedule: Schedule.spaced("1 second"), times: 60 }),
          within("120 seconds", "the Send sent again", runners)
        )
        yield* waitUntil(Effect.map(asked, (n) => n > 0)).pipe(within("60 seconds", "its model request", runners))
        assert.strictEqual((yield* client(quiet).Info()).runner, survivor.address)
      }), { CLAUDE_CLUSTER_DRAIN_DEADLINE: `${Duration.toSeconds(drainDeadline)} seconds` }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer)
    ), 400_000)

  it.live("a runner whose stop hangs past its deadline says what it did and ends", () =>
    Runners.withCluster("binary", ({ runners, victim }) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // The runners' table locked while the runner stops: it cannot unregister itself.
        const release = yield* Deferred.make<void>()
        const locked = sql<{ readonly n: number | string }>`SELECT count(*) AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
          WHERE c.relname = 'cluster_runners' AND l.mode = 'AccessExclusiveLock' AND l.granted`
        yield* sql.withTransaction(Effect.andThen(sql`LOCK TABLE cluster_runners IN ACCESS EXCLUSIVE MODE`, Deferred.await(release))).pipe(
          Effect.ensuring(Deferred.succeed(release, undefined)),
          Effect.orDie,
          Effect.forkScoped
        )
        yield* waitUntil(Effect.map(Effect.orDie(locked), ([row]) => Number(row?.n) > 0)).pipe(within("30 seconds", "the lock", runners))
        victim.process.kill("SIGTERM")
        const exited = yield* Effect.promise(() => victim.exited).pipe(
          Effect.as(true),
          Effect.timeoutOrElse({ duration: Duration.sum(Duration.sum(cutDeadline, Drain.margin), exitMargin), orElse: () => Effect.succeed(false) })
        )
        yield* Deferred.succeed(release, undefined)
        assert.isTrue(exited, `the runner ends: ${victim.stderr()}`)
        assert.strictEqual(victim.process.exitCode, 1)
        assert.include(victim.stderr(), "handing its entities over")
        assert.include(victim.stderr(), "ending its process")
      }), { CLAUDE_CLUSTER_DRAIN_DEADLINE: `${Duration.toSeconds(cutDeadline)} seconds` }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer)
    ), 400_000)

  it.live("a turn cut by the drain deadline is retried by the other runner, marked", () =>
    Runners.withCluster("binary", ({ cwd, moving: [name], runners, survivor, victim }) =>
      Effect.gen(function*() {
        const client = yield* AgentSession.client
        assert.strictEqual(resultText(yield* collect(name, `${name}-1`, `${name}: first`)), first(name))
        const cli = (yield* client(name).Info()).pid!

        // The second turn runs a shell command that sleeps for minutes: the deadline cuts it.
        const pidFile = path.join(cwd, Runners.toolPidFile(name))
        const running = yield* Effect.forkChild(collect(name, `${name}-2`, Runners.toolPrompt(name)))
        yield* waitUntil(Effect.sync(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n")))
          .pipe(within("60 seconds", "the tool", runners))
        const tool = Number(fs.readFileSync(pidFile, "utf8"))
        victim.process.kill("SIGTERM")

        yield* exitsWithin(victim, cutDeadline)
        assert.deepStrictEqual([cli, tool].filter(Runners.isRunning), [])

        // Started again on the other runner, the second start marked.
        const events = yield* Fiber.join(running).pipe(within("120 seconds", "the retried turn", runners))
        assert.deepStrictEqual(
          events.filter((e) => e._tag === "TurnStarted"),
          [1, 2].map((attempt) => new AgentSession.TurnStarted({ turnId: `${name}-2`, attempt }))
        )
        assert.strictEqual(resultText(events), second(name))
        assert.deepStrictEqual(yield* attempts(name, `${name}-2`), [2])
        assert.strictEqual((yield* client(name).Info()).runner, survivor.address)
      }), { CLAUDE_CLUSTER_DRAIN_DEADLINE: `${Duration.toSeconds(cutDeadline)} seconds` }).pipe(
      Effect.scoped,
      Effect.provide(NodeServices.layer)
    ), 400_000)
})
