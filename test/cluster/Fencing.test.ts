/**
 * Two runner processes on one real PostgreSQL, the real CLI on the scripted model: a runner paused (SIGSTOP) for
 * 20 seconds while a turn of its entity runs a long Bash tool. The other runner takes the entity over and runs
 * the turn again from the store's chain, under a new lease; when the paused runner wakes (SIGCONT) it writes
 * nothing more to the store (its rows, from SQL), its CLI and tool end (the process table), and the next turn's
 * model request (the scripted server's log) holds every earlier turn and the retried answer. Then, on a test
 * runner: a conversation whose store holds such a retry beside the cut turn resumes from the retry.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as SqlClient from "effect/sql/SqlClient"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as AgentSession from "../../src/cluster/AgentSession.ts"
import * as TurnLog from "../../src/cluster/TurnLog.ts"
import * as MemorySessionStore from "../../src/store/MemorySessionStore.ts"
import * as DeadBranch from "../../src/store/internal/deadBranch.ts"
import * as Jsonl from "../../src/store/internal/jsonl.ts"
import * as SessionStore from "../../src/store/SessionStore.ts"
import * as SqlSessionStore from "../../src/store/SqlSessionStore.ts"
import * as MessagesRequest from "../../src/testing/MessagesRequest.ts"
import * as Script from "../../src/testing/Script.ts"
import * as ScriptedServer from "../../src/testing/ScriptedServer.ts"
import { readLines, transcriptFiles } from "../support/Corpus.ts"
import * as Postgres from "../support/Postgres.ts"
import * as Runners from "./support/Runners.ts"
import * as StoredEntity from "./support/storedEntity.ts"

const { collect, first, resultText, second, waitUntil, within } = Runners

// The stored entries, in append order, from their rows; and the lease's token.
const storeRows = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    Effect.orDie(sql<{ readonly entry: string }>`SELECT entry FROM claude_session_entries ORDER BY seq`),
    (rows) => rows.map((row) => JSON.parse(row.entry))
  ))
const leaseToken = (lease: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      Effect.orDie(sql<{ readonly token: string | number }>`SELECT token FROM claude_session_leases WHERE lease = ${lease}`),
      ([row]) => Number(row?.token ?? 0)
    ))

describe("Cluster.layerPostgres: fencing", () => {
  it.live("a runner paused mid-tool writes nothing once its lease is gone, and its CLI and tool end", () =>
    Runners.withCluster("binary", ({ cwd, moving, runners, server, survivor, victim }) =>
      Effect.gen(function*() {
        const client = yield* AgentSession.client
        const [name] = moving
        const lease = AgentSession.logKey("AgentSession", name)
        assert.strictEqual(resultText(yield* collect(name, `${name}-1`, `${name}: first`)), first(name))
        const cli = (yield* client(name).Info()).pid!
        assert.isTrue(Runners.carries(cli, victim.mark))
        const held = yield* leaseToken(lease)
        assert.isAbove(held, 0)

        // The second turn runs a shell command that sleeps; its runner is paused while it does.
        const pidFile = path.join(cwd, Runners.toolPidFile(name))
        const running = yield* Effect.forkChild(collect(name, `${name}-2`, Runners.toolPrompt(name)))
        yield* waitUntil(Effect.sync(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8").endsWith("\n")))
          .pipe(within("60 seconds", "the in-flight turn's tool", runners))
        const tool = Number(fs.readFileSync(pidFile, "utf8"))
        assert.includeMembers(Runners.leftBehind(victim).map((p) => p.pid), [cli, tool])
        const pausedAt = Date.now()
        victim.process.kill("SIGSTOP")
        // The first attempt's branch as the store held it then.
        const branch = new Set((yield* storeRows).flatMap((entry) => typeof entry.uuid === "string" ? [entry.uuid] : []))
        yield* Effect.addFinalizer(() => Effect.sync(() => victim.process.exitCode === null && victim.process.kill("SIGCONT")))

        // The survivor runs the turn again, under a lease of its own.
        const retried = yield* Fiber.join(running).pipe(within("150 seconds", "the retried turn", runners))
        assert.deepStrictEqual(
          retried.filter((e) => e._tag === "TurnStarted"),
          [1, 2].map((attempt) => new AgentSession.TurnStarted({ turnId: `${name}-2`, attempt }))
        )
        assert.strictEqual(resultText(retried), second(name))
        assert.strictEqual((yield* client(name).Info()).runner, survivor.address)
        assert.isAbove(yield* leaseToken(lease), held)
        // Both CLIs ran at once: the paused one and its tool are still there.
        assert.isTrue(Runners.isRunning(cli) && Runners.isRunning(tool))

        // Paused 20 seconds at least, then woken.
        yield* Effect.sleep(Math.max(0, 20_000 - (Date.now() - pausedAt)))
        const before = yield* storeRows
        victim.process.kill("SIGCONT")

        // It finds out it lost the lease: its CLI and tool end, and nothing of its tree is left.
        yield* waitUntil(Effect.sync(() => !Runners.isRunning(cli) && !Runners.isRunning(tool)))
          .pipe(within("60 seconds", "the paused side's CLI and tool to end", runners))
        yield* waitUntil(Effect.sync(() => Runners.leftBehind(victim).length === 0))
          .pipe(within("60 seconds", () => `the paused side's tree: ${JSON.stringify(Runners.leftBehind(victim))}`, runners))
        // What its CLI writes as it ends would reach the store by now (the mirror appends as frames come): its
        // cost, stamped with its start (before the pause), and its last prompt, naming the first attempt's
        // branch as the conversation's leaf. The survivor's CLI may write too (it ends when the entity moves
        // back), but started after the pause and leaves the retried branch.
        yield* Effect.sleep("5 seconds")
        const written = (yield* storeRows).slice(before.length)
        const stale = written.filter((entry) =>
          (entry.type === "cost-state" && entry.startTime < pausedAt) || (entry.type === "last-prompt" && branch.has(entry.leafUuid))
        )
        assert.deepStrictEqual(stale, [])
        assert.isTrue(victim.process.exitCode === null, "the paused runner lives on")

        // The next turn: its model request holds every earlier turn and the retried answer.
        const third = yield* collect(name, `${name}-3`, `${name}: third`).pipe(within("120 seconds", "the next turn", runners))
        assert.strictEqual(resultText(third), second(name))
        const requests = ScriptedServer.turnRequests(yield* server.requests).filter((r) => r.conversation === name)
        const body = JSON.stringify(requests.at(-1)!.body)
        for (const text of [`${name}: first`, first(name), Runners.toolPrompt(name), second(name), `${name}: third`]) {
          assert.include(body, text)
        }
        // The retried turn, asked again, is the survivor's answer from the log.
        const replayed = yield* collect(name, `${name}-2`, Runners.toolPrompt(name))
        assert.deepStrictEqual(replayed[0], new AgentSession.TurnReplayed({ turnId: `${name}-2` }))
        assert.strictEqual(resultText(replayed), second(name))
      })
    ).pipe(Effect.provide(NodeServices.layer)), 400_000)
})

// An entity whose conversation is kept in a fencing store (the memory store's leases), on a test runner.
const forked = StoredEntity.layer(
  Script.conversation("fork", MessagesRequest.firstUserTextIncludes("fork:"), [
    Script.turn("Fork one."),
    ...Array.from({ length: 3 }, () => Script.turn("Fork again."))
  ])
).pipe(Layer.provideMerge(MemorySessionStore.layer))

describe("AgentSession over a fencing store", () => {
  // Their parallel tool calls, tool results, attachments and compactions are no dead branch.
  it("a resume leaves nothing out of the corpus' transcripts, which no fenced-out holder wrote", () => {
    assert.isAbove(transcriptFiles.length, 0)
    for (const file of transcriptFiles) {
      const entries = readLines(file).flatMap(({ text }) => {
        const entry = Jsonl.objectOf(text)
        return entry === undefined ? [] : [entry as SessionStore.Entry]
      })
      assert.deepStrictEqual([...DeadBranch.deadBranches(entries)], [], file)
    }
  })

  // As a retry on a new holder leaves it: the old holder's cut turn (a prompt and an answer) and, after it,
  // the turn again from the earlier answer. A CLI resuming the conversation goes on from the retried turn.
  it.live("a resume goes on from the branch the store took last, not from a dead one", () =>
    Effect.gen(function*() {
      const client = yield* AgentSession.client
      const turn = (turnId: string, prompt: string) => Stream.runCollect(client("e").Turn({ turnId, prompt }))
      assert.strictEqual(Runners.resultText(yield* turn("t1", "fork: first")), "Fork one.")
      const store = yield* SessionStore.SessionStore
      const sessionId = (yield* client("e").Info()).sessionId!
      const [projectKey] = yield* store.findProjects!(sessionId)
      const key = { projectKey: projectKey!, sessionId }
      const stored = Option.getOrThrow(yield* store.load(key))
      const prompt = stored.find((e) => e.type === "user")!
      const answer = stored.findLast((e) => e.type === "assistant")!
      // What the CLI wrote last of the first turn (an attachment after its answer): the next prompt goes on from it.
      const end = stored.findLast((e) => typeof e.uuid === "string")!
      const attachment = stored.findLast((e) => e.type === "attachment")!
      const later = (ms: number) => new Date(Date.parse(String(answer.timestamp)) + ms).toISOString()
      const entry = (base: SessionStore.Entry, parentUuid: unknown, ms: number, content?: unknown): SessionStore.Entry => ({
        ...base,
        uuid: crypto.randomUUID(),
        parentUuid,
        timestamp: later(ms),
        // An answer of its own: entries of one API message are read as one.
        ...(content === undefined ? {} : { message: { ...(base.message as object), id: `msg_${crypto.randomUUID()}`, content } })
      })
      const text = (t: string) => [{ type: "text", text: t }]
      // The cut turn, as the CLI writes a turn; its retry goes on from the answer before it.
      const deadPrompt = entry(prompt, end.uuid, 1000, "fork: second")
      const deadAnswer = entry(answer, deadPrompt.uuid, 1100, text("Dead answer."))
      const livePrompt = entry(prompt, answer.uuid, 5000, "fork: second, again")
      const liveAnswer = entry(answer, livePrompt.uuid, 5100, text("Live answer."))
      yield* store.append(key, [deadPrompt, deadAnswer, livePrompt, liveAnswer, entry(attachment, liveAnswer.uuid, 5200)])
      // The next turn starts a CLI, which resumes the conversation from the store.
      yield* client("e").Close()
      assert.strictEqual(Runners.resultText(yield* turn("t3", "fork: third")), "Fork again.")
      const server = yield* ScriptedServer.ScriptedServer
      const body = JSON.stringify(ScriptedServer.turnRequests(yield* server.requests).at(-1)!.body)
      assert.include(body, "Live answer.")
      assert.notInclude(body, "Dead answer.")
    }).pipe(Effect.provide(forked)), 120_000)
})

describe("Fencing on PostgreSQL", () => {
  // A fenced write holds the row a newer holder's acquire or claim waits for (so that no older write lands
  // after it). A writer stopped in the middle of one leaves its transaction open: the database ends it.
  it.live("a writer paused mid-write holds neither the lease nor the turn log's claim, and writes nothing", () =>
    Effect.gen(function*() {
      const { database, host, port, username } = yield* Postgres.start
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const store = yield* SqlSessionStore.make()
        const log = yield* TurnLog.makeSql()
        const lease = "AgentSession/e"
        const key = { projectKey: "p", sessionId: crypto.randomUUID() }
        const old = yield* store.leases!.acquire(lease)
        yield* log.claim(lease, old)
        yield* log.begin(lease, "t1", "hello")
        // The write's statements done, its transaction left open, as a process stopped then leaves it.
        const paused = Effect.fnUntraced(function*(write: Effect.Effect<void, unknown>) {
          const written = yield* Deferred.make<void>()
          const fiber = yield* write.pipe(
            Effect.andThen(Deferred.succeed(written, undefined)),
            Effect.andThen(Effect.never),
            sql.withTransaction,
            Effect.forkChild
          )
          yield* Deferred.await(written)
          return fiber
        })
        const appending = yield* paused(store.append(key, [{ type: "user", uuid: crypto.randomUUID(), parentUuid: null }], old))
        const taken = yield* store.leases!.acquire(lease).pipe(Effect.timeout("60 seconds"))
        yield* Fiber.interrupt(appending)
        assert.deepStrictEqual(yield* store.load(key), Option.none())
        const progressing = yield* paused(log.progress(lease, "t1", [], old))
        yield* log.claim(lease, taken).pipe(Effect.timeout("60 seconds"))
        yield* Fiber.interrupt(progressing)
        const [row] = yield* Effect.orDie(sql<{ readonly progress: string | null }>`SELECT progress FROM claude_turns`)
        assert.strictEqual(row?.progress, null)
      }).pipe(Effect.provide(PgClient.layer({ host, port, username, database })))
    }).pipe(Effect.provide(NodeServices.layer)), 180_000)
})
