/**
 * The chaos run (`npm run chaos`): a PostgreSQL of the test kit, the scripted model, runner processes of
 * `examples/cluster-runner.ts` and client processes (`./client.ts`); for `seconds`, random faults: a runner
 * SIGKILLed (and started again), SIGSTOPped for a while then SIGCONTed, SIGTERMed (it drains, then is started
 * again), a client SIGKILLed (and started again, asking the turn it waited for first). Then a quiet period in
 * which the clients finish, the runners are stopped, and the figures are counted from outside (`./count.ts`).
 * Every process it starts, and their trees, end with its scope (an interrupted run too).
 */
import { Context, Effect, Fiber, Layer, Redacted } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Generate from "../../bench/generate.ts"
import * as Kit from "../../examples/cluster-kit.ts"
import { TurnLog } from "../../src/cluster/index.ts"
import { SqlSessionStore } from "../../src/store/index.ts"
import { ClaudeSandbox, LocalPostgres, ScriptedServer } from "../../src/testing/index.ts"
import type * as Client from "./client.ts"
import * as Count from "./count.ts"
import * as Model from "./model.ts"

export interface Options {
  readonly seconds: number
  readonly sessions: number
  readonly runners: number
  readonly seed: number
  /** Sessions per client process. */
  readonly sessionsPerClient: number
  /** Mean pause of a session between its turns. */
  readonly pauseMillis: number
  /** The bounds of the pause between two faults. */
  readonly faultGapMillis: readonly [number, number]
  /** How long the clients get to finish their turns once the faults end. */
  readonly quietSeconds: number
  /** The kinds of fault injected (all by default). */
  readonly faults?: ReadonlyArray<Count.Fault["kind"]> | undefined
}

export const defaults: Options = {
  seconds: 240,
  sessions: 30,
  runners: 3,
  seed: 1,
  sessionsPerClient: 5,
  pauseMillis: 6000,
  faultGapMillis: [5000, 12000],
  quietSeconds: 240
}

export interface Outcome {
  readonly figures: Count.Figures
  readonly faults: Readonly<Record<Count.Fault["kind"], number>>
}

const clientScript = path.join(import.meta.dirname, "client.ts")
const log = (start: number, text: string) => Effect.sync(() => process.stderr.write(`[chaos +${((Date.now() - start) / 1000).toFixed(1)}s] ${text}\n`))

const alive = (child: Kit.Child) => child.process.exitCode === null && child.process.signalCode === null

// PostgreSQL triggers that note every session entry and lease write with the writing connection's name.
const installTriggers = (sql: SqlClient.SqlClient) =>
  Effect.all([
    sql`CREATE TABLE chaos_writes (id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, key TEXT NOT NULL, writer TEXT NOT NULL, at BIGINT NOT NULL)`,
    ...([["entry", "claude_session_entries", "session_id", "INSERT"], ["lease", "claude_session_leases", "lease", "INSERT OR UPDATE"]] as const)
      .flatMap(([kind, table, key, on]) => [
        sql.unsafe(`CREATE FUNCTION chaos_${kind}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          INSERT INTO chaos_writes (kind, key, writer, at) VALUES ('${kind}', NEW.${key}, current_setting('application_name'),
            (extract(epoch from clock_timestamp()) * 1000)::bigint);
          RETURN NEW; END $$`),
        sql.unsafe(`CREATE TRIGGER chaos_${kind} AFTER ${on} ON ${table} FOR EACH ROW EXECUTE FUNCTION chaos_${kind}()`)
      ]),
    // For a look at a run that went wrong (`CHAOS_KEEP`): every change of a turn's row, by whom and when.
    sql`CREATE TABLE chaos_turn_writes (id BIGSERIAL PRIMARY KEY, entity_id TEXT NOT NULL, turn_id TEXT NOT NULL,
      attempts INTEGER NOT NULL, failed INTEGER NOT NULL, unended INTEGER NOT NULL, ended TEXT, finished BOOLEAN NOT NULL,
      writer TEXT NOT NULL, at BIGINT NOT NULL)`,
    sql.unsafe(`CREATE FUNCTION chaos_turn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      INSERT INTO chaos_turn_writes (entity_id, turn_id, attempts, failed, unended, ended, finished, writer, at)
        VALUES (NEW.entity_id, NEW.turn_id, NEW.attempts, NEW.failed, NEW.unended, NEW.ended, NEW.messages IS NOT NULL,
          current_setting('application_name'), (extract(epoch from clock_timestamp()) * 1000)::bigint);
      RETURN NEW; END $$`),
    sql.unsafe(`CREATE TRIGGER chaos_turn AFTER INSERT OR UPDATE ON claude_turns FOR EACH ROW EXECUTE FUNCTION chaos_turn()`)
  ], { discard: true })

const readRows = (sql: SqlClient.SqlClient) =>
  Effect.all({
    turnRows: sql<Count.TurnRow>`SELECT entity_id, turn_id, attempts, messages FROM claude_turns`,
    // Each stored session's prompts name its chaos session (a retried first turn starts a new session id).
    sessions: sql<{ readonly session_id: string; readonly prompt: string }>`SELECT DISTINCT ON (session_id) session_id, entry AS prompt
      FROM claude_session_entries WHERE entry LIKE '%chaos s%' ORDER BY session_id, seq`,
    writes: sql<Count.Write & { readonly id: string | number; readonly at: string | number }>`SELECT id, kind, key, writer, at FROM chaos_writes`
  })

// For a look at a broken history (`CHAOS_KEEP`): each stored main-transcript entry's place in its chain, in append
// order (the CLI resumes from the entry it takes as the end back through `parentUuid`: a link missing from the store
// cuts the conversation there). Read out of the entry's text, so that an entry no JSON parser takes still shows.
const readLinks = (sql: SqlClient.SqlClient) =>
  sql<{ readonly session_id: string; readonly seq: number | string; readonly uuid: string | null; readonly parent: string | null; readonly type: string | null }>`SELECT
    session_id, seq, uuid, substring(entry from '"parentUuid":"([^"]*)"') AS parent, substring(entry from '"type":"([^"]*)"') AS type
    FROM claude_session_entries WHERE subpath = '' ORDER BY seq`

export const run = (options: Options) =>
  Effect.gen(function*() {
    const start = Date.now()
    const draw = Generate.rng(options.seed)
    // The same seed draws the same faults in the same order (mulberry32).
    const between = (low: number, high: number) => low + draw() * (high - low)
    const pick = <A>(items: ReadonlyArray<A>): A | undefined => items[Math.floor(draw() * items.length)]

    const url = (yield* LocalPostgres.make).url
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "chaos-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    const model = Model.script(dir)
    const server = yield* ScriptedServer.make(model)
    const homes = yield* Effect.forEach(Array.from({ length: options.runners }), () => ClaudeSandbox.make({ baseUrl: server.url }))
    const cwd = homes[0]!.cwd
    const sql = Context.get(yield* Layer.build(PgClient.layer({ url: Redacted.make(url) })), SqlClient.SqlClient)

    // Every child ever started, ended with the scope whatever happened.
    const children: Array<Kit.Child> = []
    yield* Effect.addFinalizer(() => Effect.forEach(children, Kit.stop, { discard: true }))
    const spawn = (script: string, env: Record<string, string>) => {
      const child = Kit.spawnNode(script, env, Kit.newMark())
      children.push(child)
      return child
    }

    // Runners: one per slot; each start is a new incarnation, which names its database connections.
    const slots = homes.map((home, i) => ({ name: String.fromCharCode(65 + i), home, incarnation: 0, child: undefined as (Kit.Child & { readonly id: string }) | undefined, paused: false, busy: false }))
    type Slot = (typeof slots)[number]
    const startRunner = (slot: Slot): Effect.Effect<void> =>
      Effect.gen(function*() {
        const id = `${slot.name}${++slot.incarnation}`
        const port = yield* Effect.orDie(LocalPostgres.freePort)
        const mark = Kit.newMark()
        const child = Object.assign(spawn(Kit.runnerScript, {
          CLAUDE_CLUSTER_PG_URL: `${url}${url.includes("?") ? "&" : "?"}application_name=${id}`,
          CLAUDE_CLUSTER_RUNNER_HOST: "127.0.0.1",
          CLAUDE_CLUSTER_RUNNER_PORT: String(port),
          RUNNER_SANDBOX: JSON.stringify({ ...slot.home, cwd, env: { ...slot.home.env, [Kit.markVariable]: mark } })
        }), { id })
        slot.child = child
        yield* Kit.waitUntil(Effect.sync(() => child.lines.some((line) => "ready" in line) || !alive(child)))
        if (!alive(child)) {
          yield* log(start, `runner ${id} ended before it was ready: ${child.stderr().slice(-500)}`)
          yield* Effect.sleep("2 seconds")
          return yield* startRunner(slot)
        }
        yield* log(start, `runner ${id} ready (pid ${child.process.pid})`)
      })
    // The store's tables made first (as a runner makes them), so that the triggers see every write.
    yield* Effect.orDie(Effect.all([TurnLog.makeSql(), SqlSessionStore.make(), installTriggers(sql)]).pipe(
      Effect.provideService(SqlClient.SqlClient, sql)
    ))
    yield* Effect.forEach(slots, startRunner, { concurrency: "unbounded", discard: true })

    // Clients: each drives a group of sessions; started again, it asks first the turn it waited for.
    // The faults' time counts from when every runner is ready.
    const until = Date.now() + options.seconds * 1000
    const sessions = Array.from({ length: options.sessions }, (_, i) => `s${String(i + 1).padStart(2, "0")}`)
    const clientLines: Array<Count.ClientLine> = []
    const groups = Array.from({ length: Math.ceil(sessions.length / options.sessionsPerClient) }, (_, g) => ({
      name: `client${g + 1}`,
      sessions: sessions.slice(g * options.sessionsPerClient, (g + 1) * options.sessionsPerClient),
      child: undefined as Kit.Child | undefined,
      busy: false
    }))
    type Group = (typeof groups)[number]
    const linesOf = () => [...clientLines, ...groups.flatMap((g) => g.child?.lines ?? [])] as ReadonlyArray<Count.ClientLine>
    const startClient = (group: Group) =>
      Effect.sync(() => {
        if (group.child !== undefined) clientLines.push(...group.child.lines)
        const lines = clientLines
        const plan: Client.Plan = {
          seed: options.seed,
          until,
          pauseMillis: options.pauseMillis,
          sessions: group.sessions.flatMap((session) => {
            const ofSession = lines.filter((l) => "session" in l && l.session === session)
            const answered = new Set(ofSession.flatMap((l) => "answered" in l ? [l.answered] : []))
            const refused = new Set(ofSession.flatMap((l) => "failed" in l && l.exhausted ? [l.failed] : []))
            const number = (id: string) => Number(id.slice(id.lastIndexOf("-t") + 2))
            // The turn it waited for is the last it asked (a client asks one turn of a session at a time), unless
            // that one was answered or refused for good; turn numbers, not ids, give the order (t10 after t9).
            const last = ofSession.flatMap((l) => "asked" in l ? [l.asked] : []).sort((a, b) => number(a) - number(b)).at(-1)
            const waiting = last !== undefined && !answered.has(last) && !refused.has(last) ? last : undefined
            if (waiting === undefined && Date.now() >= until) return []
            return [{ session, from: waiting !== undefined ? number(waiting) : last === undefined ? 1 : number(last) + 1 }]
          })
        }
        group.child = plan.sessions.length === 0 ? undefined : spawn(clientScript, { CLAUDE_CLUSTER_PG_URL: url, CHAOS_PLAN: JSON.stringify(plan) })
      })
    yield* Effect.forEach(groups, startClient, { discard: true })
    // A client that ended without finishing (not one the faults killed) is started again too.
    const revive = Effect.forEach(groups, (group) =>
      group.busy || group.child === undefined || alive(group.child) || group.child.lines.some((l) => "done" in l)
        ? Effect.void
        : Effect.andThen(log(start, `${group.name} ended: ${group.child.stderr().slice(-300)}`), startClient(group)), { discard: true })

    // The faults, each kind in turn in a shuffled cycle, so that a short run has each.
    const faults: Array<Count.Fault> = []
    const later: Array<Fiber.Fiber<void>> = []
    const scope = yield* Effect.scope
    const after = (effect: Effect.Effect<void>) => Effect.flatMap(Effect.forkIn(effect, scope), (fiber) => Effect.sync(() => later.push(fiber)))
    const up = () => slots.filter((s) => !s.busy && !s.paused && s.child !== undefined && alive(s.child))
    const exited = (child: Kit.Child) => Effect.promise(() => child.exited)
    // A runner SIGTERMed drains up to its 60 s deadline and ends; one still there 30 s later is SIGKILLed, and
    // counted (from the process table: it still ran).
    const stuck: Array<string> = []
    const ended = (child: Kit.Child & { readonly id: string }) =>
      exited(child).pipe(
        Effect.timeout("90 seconds"),
        Effect.catch(() =>
          Effect.gen(function*() {
            stuck.push(child.id)
            yield* log(start, `runner ${child.id} still runs 90 s after SIGTERM: SIGKILL`)
            child.process.kill("SIGKILL")
            yield* exited(child)
          })
        )
      )
    const inject: Record<Count.Fault["kind"], () => Effect.Effect<boolean>> = {
      kill: () => onRunner("kill", "SIGKILL", (slot) => Effect.andThen(Effect.sleep(between(1000, 3000)), startRunner(slot))),
      term: () => onRunner("term", "SIGTERM", (slot) => startRunner(slot)),
      stop: () =>
        onRunner("stop", "SIGSTOP", (slot) =>
          Effect.gen(function*() {
            slot.paused = true
            yield* Effect.sleep(between(8000, 20000))
            slot.child!.process.kill("SIGCONT")
            slot.paused = false
            yield* log(start, `SIGCONT runner ${slot.child!.id}`)
          })),
      killClient: () =>
        Effect.gen(function*() {
          const group = pick(groups.filter((g) => !g.busy && g.child !== undefined && alive(g.child)))
          if (group === undefined) return false
          group.busy = true
          group.child!.process.kill("SIGKILL")
          faults.push({ kind: "killClient", target: group.name, at: Date.now() })
          yield* log(start, `SIGKILL ${group.name}`)
          yield* after(exited(group.child!).pipe(
            Effect.andThen(Effect.sleep("1 second")),
            Effect.andThen(startClient(group)),
            Effect.ensuring(Effect.sync(() => (group.busy = false)))
          ))
          return true
        })
    }
    // A fault on a runner that runs, while another runs too; `then` follows it (waits, starts it again).
    function onRunner(kind: Count.Fault["kind"], signal: NodeJS.Signals, then: (slot: Slot) => Effect.Effect<void>) {
      return Effect.gen(function*() {
        const candidates = up()
        const slot = candidates.length < 2 ? undefined : pick(candidates)
        if (slot === undefined) return false
        slot.busy = true
        const child = slot.child!
        child.process.kill(signal)
        faults.push({ kind, target: child.id, at: Date.now() })
        yield* log(start, `${signal} runner ${child.id}`)
        const wait = signal === "SIGSTOP" ? Effect.void : signal === "SIGTERM" ? ended(child) : exited(child)
        yield* after(wait.pipe(Effect.andThen(then(slot)), Effect.ensuring(Effect.sync(() => (slot.busy = false)))))
        return true
      })
    }
    const allowed = options.faults ?? (["kill", "stop", "term", "killClient"] as const)
    let cycle: Array<Count.Fault["kind"]> = []
    while (Date.now() < until) {
      yield* revive
      yield* Effect.sleep(between(...options.faultGapMillis))
      if (Date.now() >= until) break
      if (cycle.length === 0) cycle = allowed.map((k) => [k, draw()] as const).sort((a, b) => a[1] - b[1]).map(([k]) => k)
      // The cycle's next kind that can be injected now, else any kind that can (runners may all be busy).
      const kinds = [...cycle, ...allowed.filter((k) => !cycle.includes(k))]
      for (const kind of kinds) {
        if (yield* inject[kind]()) {
          if (cycle.includes(kind)) cycle.splice(cycle.indexOf(kind), 1)
          break
        }
      }
    }

    // Quiet: the paused wake, the dead start again, and the clients finish the turns they asked.
    yield* log(start, "faults over; waiting for the clients")
    yield* Fiber.joinAll(later)
    const finished = Effect.sync(() => groups.every((g) => g.child === undefined || g.child.lines.some((l) => "done" in l)))
    yield* Kit.waitUntil(Effect.andThen(revive, finished)).pipe(
      Effect.timeout(options.quietSeconds * 1000),
      Effect.ignore
    )
    // Clients still waiting after the quiet period end here; their turns count as lost.
    yield* log(start, "clients done; stopping the runners")
    for (const group of groups) if (group.child !== undefined && alive(group.child)) Kit.stop(group.child).pipe(Effect.runSync)

    // The runners drain and end (or are SIGKILLed, see `ended`); then nothing they or the clients started may be left.
    for (const slot of slots) slot.child?.process.kill("SIGTERM")
    yield* Effect.forEach(slots, (slot) => ended(slot.child!), { concurrency: "unbounded", discard: true })
    const leftOver = () =>
      children.flatMap((c) => [...(alive(c) ? [{ pid: c.process.pid!, cmd: c.process.spawnargs.join(" ") }] : []), ...Kit.leftBehind(c)])
    yield* Kit.waitUntil(Effect.sync(() => leftOver().length === 0)).pipe(Effect.timeout(Kit.guardDeadline), Effect.ignore)
    const orphans = leftOver()
    if (orphans.length > 0) yield* log(start, `left running: ${JSON.stringify(orphans)}`)

    const rows = yield* Effect.orDie(readRows(sql))
    const runs = fs.existsSync(Model.runsFile(dir)) ? fs.readFileSync(Model.runsFile(dir), "utf8").split("\n").filter((l) => l !== "") : []
    const figures = Count.figures({
      clients: linesOf(),
      requests: yield* server.requests,
      turnRows: rows.turnRows.map((row) => ({ ...row, turn_id: row.turn_id, attempts: Number(row.attempts) })),
      sessionEntities: new Map(rows.sessions.flatMap((row) => {
        const session = /chaos (s\d+)-t/.exec(row.prompt)?.[1]
        return session === undefined ? [] : [[row.session_id, Count.entityOf(session)] as const]
      })),
      writes: rows.writes.map((w) => ({ ...w, id: Number(w.id), at: Number(w.at) })),
      toolRuns: runs,
      faults,
      orphans: orphans.length,
      stuckOnSigterm: stuck.length
    })
    // What the figures came from, for a look at a run that went wrong.
    const keep = process.env.CHAOS_KEEP
    if (keep !== undefined) {
      const links = yield* Effect.orDie(readLinks(sql))
      const turnWrites = yield* Effect.orDie(sql`SELECT * FROM chaos_turn_writes ORDER BY id`)
      fs.writeFileSync(keep, JSON.stringify({ clients: linesOf(), faults, rows, links, turnWrites, runs, requests: yield* server.requests, replies: model.replies, stderr: children.map((c) => [c.mark, c.stderr()]) }, (_, v) => typeof v === "bigint" ? Number(v) : v, 1))
    }
    const counted = { kill: 0, stop: 0, term: 0, killClient: 0 }
    for (const fault of faults) counted[fault.kind]++
    return { figures, faults: counted } satisfies Outcome
  })
