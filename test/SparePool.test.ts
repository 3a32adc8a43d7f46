/**
 * Spare CLI processes parked with `--await-claim` and claimed by new sessions (real CLI, scripted model).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as ClaudeCli from "../src/ClaudeCli.ts"
import * as CliSlots from "../src/governance/CliSlots.ts"
import * as Process from "../src/process/Process.ts"
import * as SparePool from "../src/SparePool.ts"
import * as Scripted from "../src/testing/Scripted.ts"
import * as Script from "../src/testing/Script.ts"
import * as ScriptedServer from "../src/testing/ScriptedServer.ts"
import { isAlive, waitUntil } from "./session/support/Real.ts"
import * as ClaimWire from "./cluster/support/ClaimWire.ts"
import { childPids } from "./reliability/support/leaks.ts"

// The CLIs this process runs, from the process table (a guard's `/bin/sh` watcher is not one).
const childClis = (): Array<number> =>
  childPids().filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0] !== "/bin/sh"
    } catch {
      return false
    }
  })

const env = (files: Record<string, string> = {}) =>
  Layer.merge(Scripted.layer(Script.make([Script.turn("Hi warm.")]), { files }), NodeServices.layer)

const claimWire = ClaimWire.make(Script.make([Script.turn("Hi warm.")]))
const wiredEnv = Layer.merge(claimWire.layer, NodeServices.layer)

// Half a millisecond of work on a message, as encoding it for the next hop is.
const work = Effect.sync(() => {
  const end = performance.now() + 0.5
  while (performance.now() < end) {
    // busy
  }
})

// `stream` read through `hops` fibers, each working on a message and passing it on through a queue: a reader as
// far from the pool as an entity's client, behind the entity's turn and the cluster's reply stream.
const relayed = <A, E>(stream: Stream.Stream<A, E>, hops: number): Stream.Stream<A, E> =>
  hops === 0 ? stream : relayed(Stream.buffer(Stream.tap(stream, () => work), { capacity: 1 }), hops - 1)

// The CLIs parked with `--await-claim` (the claimed ones included) this process runs now.
const spareClis = () =>
  childClis().filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("--await-claim")
    } catch {
      return false
    }
  })

const resultOf = (messages: ReadonlyArray<{ readonly _tag: string }>) => {
  const last = messages.at(-1) as { readonly _tag: string; readonly result?: string }
  return last._tag === "ResultSuccess" ? last.result : last._tag
}

describe("SparePool", () => {
  it.live("a new session claims a parked spare and its turn runs there; the pool parks another", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const pool = yield* SparePool.make({ size: 1 })
      yield* waitUntil(Effect.map(pool.parked, (n) => n === 1)).pipe(Effect.timeout("50 seconds"))
      const { session, warm } = yield* pool.session({ cwd: sandbox.cwd })
      assert.isTrue(warm)
      assert.strictEqual(yield* pool.claimed, 1)
      const messages = yield* Stream.runCollect(session.turn("hello"))
      assert.strictEqual(resultOf(messages), "Hi warm.")
      const init = messages.find((m) => m._tag === "SystemInit")
      assert.strictEqual(init?._tag === "SystemInit" ? init.cwd : undefined, sandbox.cwd)
      yield* waitUntil(Effect.map(pool.parked, (n) => n === 1)).pipe(Effect.timeout("50 seconds"))
      assert.strictEqual(yield* pool.refused, 0)
    }).pipe(Effect.scoped, Effect.provide(env())))

  it.live("a query runs its turn on a claimed spare", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const pool = yield* SparePool.make({ size: 1 })
      yield* waitUntil(Effect.map(pool.parked, (n) => n === 1)).pipe(Effect.timeout("50 seconds"))
      const messages = yield* Stream.runCollect(pool.query("hello", { cwd: sandbox.cwd }))
      assert.strictEqual(resultOf(messages), "Hi warm.")
      assert.strictEqual(yield* pool.claimed, 1)
      const init = messages.find((m) => m._tag === "SystemInit")
      assert.strictEqual(init?._tag === "SystemInit" ? init.cwd : undefined, sandbox.cwd)
    }).pipe(Effect.scoped, Effect.provide(env())))

  // A spawn blocks the process (tens of milliseconds on a loaded machine): it must not hold up the first message.
  it.live("a claimed spare's replacement starts once its first message has reached a reader many fibers away", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const pool = yield* SparePool.make({ size: 1 })
      yield* waitUntil(Effect.map(pool.parked, (n) => n === 1)).pipe(Effect.timeout("50 seconds"))
      const { turn } = yield* pool.begin({ cwd: sandbox.cwd }, "hello")
      let atFirst: ReadonlyArray<number> | undefined
      const messages = yield* Stream.runCollect(Stream.tap(relayed(turn, 40), (message) =>
        Effect.sync(() => {
          if (message._tag === "AssistantMessage") atFirst ??= spareClis()
        })))
      assert.strictEqual(resultOf(messages), "Hi warm.")
      // From the process table: the claimed CLI alone, its replacement not spawned yet.
      assert.lengthOf(atFirst ?? [], 1)
      yield* waitUntil(Effect.map(pool.parked, (n) => n === 1)).pipe(Effect.timeout("50 seconds"))
      assert.lengthOf(spareClis(), 2)
    }).pipe(Effect.scoped, Effect.provide(env())))

  it.live("a refused claim falls back to a cold start", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const pool = yield* SparePool.make({ size: 1 })
      yield* waitUntil(Effect.map(pool.parked, (n) => n === 1)).pipe(Effect.timeout("50 seconds"))
      const [spare] = childClis()
      // Project settings that set `env` are read at start-up: a parked spare cannot take this folder.
      const { session, warm } = yield* pool.session({ cwd: sandbox.cwd })
      assert.isFalse(warm)
      // The refused spare's CLI ended with it, not with the pool.
      yield* waitUntil(Effect.sync(() => !isAlive(spare))).pipe(Effect.timeout("10 seconds"))
      assert.strictEqual(yield* pool.refused, 1)
      assert.strictEqual(yield* pool.claimed, 0)
      const messages = yield* Stream.runCollect(session.turn("hello"))
      assert.strictEqual(resultOf(messages), "Hi warm.")
      assert.isTrue(isAlive(session.pid))
    }).pipe(Effect.scoped, Effect.provide(env({ ".claude/settings.json": JSON.stringify({ env: { SPARE_TEST: "1" } }) }))))

  describe("the prompt goes with the claim", () => {
    // A pool with its spare parked, on a wire seen from the start.
    const parkedPool = Effect.gen(function*() {
      claimWire.wire.length = 0
      const pool = yield* SparePool.make({ size: 1 })
      yield* waitUntil(Effect.map(pool.parked, (n) => n === 1)).pipe(Effect.timeout("50 seconds"))
      return { pool, sandbox: yield* Scripted.Sandbox, server: yield* ScriptedServer.ScriptedServer }
    })

    it.live("query", () =>
      Effect.gen(function*() {
        const { pool, sandbox, server } = yield* parkedPool
        const messages = yield* Stream.runCollect(pool.query("warm hello", { cwd: sandbox.cwd }))
        assert.strictEqual(resultOf(messages), "Hi warm.")
        assert.isTrue(messages.some((m) => m._tag === "AssistantMessage"))
        assert.strictEqual(yield* pool.claimed, 1)
        // One write: the CLI cannot have answered the claim before it had the prompt.
        assert.deepStrictEqual(claimWire.writtenWithClaim("warm hello"), ["claim_session", "user"])
        assert.isTrue(claimWire.promptBeforeClaimAnswer("warm hello"))
        const turns = ScriptedServer.turnRequests(yield* server.requests)
        assert.strictEqual(turns.length, 1)
        assert.include(JSON.stringify(turns[0].body), "warm hello")
        // The replacement, started once the turn was under way.
        yield* waitUntil(Effect.map(pool.parked, (n) => n === 1)).pipe(Effect.timeout("50 seconds"))
      }).pipe(Effect.scoped, Effect.provide(wiredEnv)))

    it.live("session, with a model", () =>
      Effect.gen(function*() {
        const { pool, sandbox, server } = yield* parkedPool
        const { session, turn, warm } = yield* pool.begin({ cwd: sandbox.cwd, model: "claude-haiku-5" }, "warm session")
        assert.isTrue(warm)
        const messages = yield* Stream.runCollect(turn)
        assert.strictEqual(resultOf(messages), "Hi warm.")
        // On stdin: the claim, the model, the prompt, one after another, in one write.
        const stdin = claimWire.wire.filter((w) => w.from === "in")
        const claim = stdin.findIndex((w) => w.frame.request?.subtype === "claim_session")
        const model = stdin.findIndex((w) => w.frame.request?.subtype === "set_model")
        const prompt = stdin.findIndex((w) => w.frame.type === "user" && JSON.stringify(w.frame.message).includes("warm session"))
        assert.deepStrictEqual([model - claim, prompt - model], [1, 1], JSON.stringify(stdin.map((w) => w.frame.type)))
        assert.deepStrictEqual(claimWire.writtenWithClaim("warm session"), ["claim_session", "set_model", "user"])
        assert.isTrue(claimWire.promptBeforeClaimAnswer("warm session"))
        const turns = ScriptedServer.turnRequests(yield* server.requests)
        assert.strictEqual(turns.length, 1)
        assert.strictEqual((turns[0].body as { readonly model?: string }).model, "claude-haiku-5")
        assert.isTrue(isAlive(session.pid))
      }).pipe(Effect.scoped, Effect.provide(wiredEnv)))
  })
})


describe("SparePool under a CLI cap", () => {
  // One slot: the parked spare holds it until a session that is not the pool's asks for it.
  const capped = Scripted.layerWith(Script.make([Script.turn("cold"), Script.turn("warm again")])).pipe(
    Layer.provideMerge(CliSlots.layer({ max: 1, maxWait: "30 seconds" })),
    Layer.provide(Process.nodeSpawner),
    Layer.provideMerge(NodeServices.layer)
  )

  it.live("a parked spare counts against the cap and gives its slot to a session that waits", () =>
    Effect.gen(function*() {
      const sandbox = yield* Scripted.Sandbox
      const pool = yield* SparePool.make({ size: 1 })
      yield* waitUntil(Effect.map(pool.parked, (n) => n === 1)).pipe(Effect.timeout("50 seconds"))
      const slots = yield* CliSlots.CliSlots
      assert.strictEqual(yield* slots.inUse, 1)
      const spare = childClis()
      assert.strictEqual(spare.length, 1)
      // A session started apart from the pool: the spare is closed to make room, within the wait.
      const cli = yield* ClaudeCli.ClaudeCli
      const session = yield* cli.session({ cwd: sandbox.cwd })
      assert.isFalse(isAlive(spare[0]))
      assert.strictEqual(yield* pool.parked, 0)
      const messages = yield* Stream.runCollect(session.turn("hello"))
      assert.strictEqual(resultOf(messages), "cold")
      assert.strictEqual(childClis().length, 1)
    }).pipe(Effect.scoped, Effect.provide(capped)), 120_000)
})
