/**
 * A conformance kit for {@link SessionStore.Shape} implementations, as the Python SDK ships one: the store
 * contract (the SDK's, plus what this library's resume and listing rely on) as named checks, each an Effect
 * over the store in context. {@link suite} runs them as `@effect/vitest` tests; {@link cases} runs anywhere.
 * Each check writes under project keys of its own, so one store serves all checks, and a store that already
 * holds sessions can be checked.
 *
 * @example
 * ```ts
 * import { layer } from "@effect/vitest"
 * import { StoreConformance } from "effect-claude-code/testing"
 * import { MyStore } from "./MyStore.ts"
 *
 * StoreConformance.suite(layer, "MyStore", MyStore.layer)
 * ```
 *
 * @since 0.1.0
 */
import type * as Vitest from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as assert from "node:assert/strict"
import * as Keys from "../store/internal/keys.ts"
import * as SessionStore from "../store/SessionStore.ts"

/**
 * One check of the contract: its `name` says the clause; `run` dies with an `AssertionError` naming what
 * differed, or fails with the store's own error.
 *
 * @since 0.1.0
 * @category models
 */
export interface Case {
  readonly name: string
  readonly run: Effect.Effect<void, SessionStore.SessionStoreError, SessionStore.SessionStore>
}

// Keys of a check's own: a project key no other check (nor run) uses.
const freshKey = (): { readonly projectKey: string; readonly sessionId: string } => ({
  projectKey: `-conformance-${crypto.randomUUID()}`,
  sessionId: crypto.randomUUID()
})

const entry = (uuid: string | undefined, text: string): SessionStore.Entry => ({
  type: uuid === undefined ? "last-prompt" : "user",
  ...(uuid !== undefined && { uuid }),
  text
})

// A session as the CLI writes one: two turns, a title, a tag, the last prompt.
const conversation = (sessionId: string): ReadonlyArray<SessionStore.Entry> => {
  const at = (second: number) => `2026-01-02T03:04:${String(second).padStart(2, "0")}.000Z`
  const line = (type: "user" | "assistant", uuid: string, parentUuid: string | null, second: number, text: string) => ({
    type,
    uuid,
    parentUuid,
    sessionId,
    cwd: "/work/app",
    gitBranch: "main",
    timestamp: at(second),
    isSidechain: false,
    message: type === "user"
      ? { role: "user", content: text }
      : {
        id: `msg_${uuid}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 2 }
      }
  })
  return [
    line("user", crypto.randomUUID(), null, 1, "Rename the module."),
    { type: "ai-title", aiTitle: "Module renaming", sessionId },
    { type: "tag", tag: "wip", sessionId },
    { type: "last-prompt", lastPrompt: "Rename the module.", sessionId },
    line("assistant", crypto.randomUUID(), null, 2, "Renamed.")
  ]
}

// The `text` of each entry loaded; `undefined` for None.
const texts = (entries: Option.Option<ReadonlyArray<SessionStore.Entry>>) =>
  Option.getOrUndefined(Option.map(entries, (es) => es.map((e) => e.text)))

const store = Effect.service(SessionStore.SessionStore)

// The error `self` fails with; its success is a failed check.
const failureOf = <A>(self: Effect.Effect<A, SessionStore.SessionStoreError>, what: string) =>
  Effect.flip(Effect.flatMap(self, () => Effect.die(new assert.AssertionError({ message: `${what} succeeded; it must fail` }))))

// A session of its own in the store: a conversation appended in two batches cut at `at`, the second with the
// first entry again when `replayed` (a retry).
const stored = (at: number, replayed: boolean) =>
  Effect.gen(function*() {
    const s = yield* store
    const key = freshKey()
    const entries = conversation(key.sessionId)
    yield* s.append(key, entries.slice(0, at))
    yield* s.append(key, replayed ? [...entries.slice(at), entries[0]!] : entries.slice(at))
    return { entries, key, s }
  })

/**
 * The checks, in the order {@link suite} runs them.
 *
 * @since 0.1.0
 * @category cases
 */
export const cases: ReadonlyArray<Case> = [
  {
    name: "load of a key never written is None",
    run: Effect.gen(function*() {
      const s = yield* store
      const key = freshKey()
      assert.ok(Option.isNone(yield* s.load(key)))
      assert.ok(Option.isNone(yield* s.load({ ...key, subpath: "subagents/agent-a" })))
    })
  },
  {
    name: "load gives back what was appended, deep-equal, in append order",
    run: Effect.gen(function*() {
      const { entries, key, s } = yield* stored(2, false)
      const loaded = yield* s.load(key)
      assert.deepStrictEqual(Option.getOrUndefined(loaded), entries)
    })
  },
  {
    name: "append is idempotent by uuid, within and across batches; entries without a uuid are always appended",
    run: Effect.gen(function*() {
      const s = yield* store
      const key = freshKey()
      yield* s.append(key, [entry("u1", "a"), entry(undefined, "p"), entry("u2", "b"), entry("u1", "a twice")])
      yield* s.append(key, [entry("u2", "b again"), entry(undefined, "p"), entry("u3", "c")])
      yield* s.append(key, [])
      assert.deepStrictEqual(texts(yield* s.load(key)), ["a", "p", "b", "p", "c"])
    })
  },
  {
    name: "an appended entry is copied: changing it afterwards changes nothing stored",
    run: Effect.gen(function*() {
      const s = yield* store
      const key = freshKey()
      const mutable: { type: string; uuid: string; text: string } = { type: "user", uuid: "u1", text: "before" }
      yield* s.append(key, [mutable])
      mutable.text = "after"
      assert.deepStrictEqual(texts(yield* s.load(key)), ["before"])
    })
  },
  {
    name: "subpaths are transcripts of their own, listed by listSubkeys, not in listSessions",
    run: Effect.gen(function*() {
      const s = yield* store
      const key = freshKey()
      yield* s.append(key, [entry("m1", "main")])
      yield* s.append({ ...key, subpath: "subagents/agent-b" }, [entry("s1", "b"), entry("m1", "same uuid, other transcript")])
      yield* s.append({ ...key, subpath: "subagents/agent-a" }, [entry("s2", "a")])
      assert.deepStrictEqual(texts(yield* s.load(key)), ["main"])
      assert.deepStrictEqual(
        texts(yield* s.load({ ...key, subpath: "subagents/agent-b" })),
        ["b", "same uuid, other transcript"]
      )
      assert.deepStrictEqual([...(yield* s.listSubkeys(key))].sort(), ["subagents/agent-a", "subagents/agent-b"])
      assert.deepStrictEqual((yield* s.listSessions(key.projectKey)).map((x) => x.sessionId), [key.sessionId])
      assert.deepStrictEqual(yield* s.listSubkeys({ ...key, sessionId: crypto.randomUUID() }), [])
    })
  },
  {
    name: "listSessions: a project's sessions only, with an integer mtime in epoch milliseconds",
    run: Effect.gen(function*() {
      const s = yield* store
      const key = freshKey()
      const other = crypto.randomUUID()
      const before = Date.now()
      yield* s.append(key, [entry("u1", "a")])
      yield* s.append({ ...key, sessionId: other }, [entry("u1", "b")])
      yield* s.append({ ...freshKey(), sessionId: key.sessionId }, [entry("u1", "elsewhere")])
      const sessions = yield* s.listSessions(key.projectKey)
      assert.deepStrictEqual(sessions.map((x) => x.sessionId).sort(), [key.sessionId, other].sort())
      for (const { mtime } of sessions) {
        assert.ok(Number.isInteger(mtime), `mtime ${mtime} is an integer`)
        // A second of slack for file systems that keep whole seconds.
        assert.ok(mtime >= before - 1000 && mtime <= Date.now() + 1000, `mtime ${mtime} is the time of the append`)
      }
      assert.deepStrictEqual(yield* s.listSessions(freshKey().projectKey), [])
    })
  },
  {
    name: "listSessionSummaries: foldSummary of every entry appended, and listSessions' mtime",
    run: Effect.gen(function*() {
      const { entries, key, s } = yield* stored(3, true)
      yield* s.append({ ...key, subpath: "subagents/agent-a" }, [entry("s1", "not in the summary")])
      const [summary, ...more] = yield* s.listSessionSummaries(key.projectKey)
      assert.deepStrictEqual(more, [])
      assert.strictEqual(summary?.sessionId, key.sessionId)
      assert.deepStrictEqual(summary?.data, SessionStore.foldSummary(undefined, entries))
      const [listed] = yield* s.listSessions(key.projectKey)
      assert.strictEqual(summary?.mtime, listed?.mtime)
    })
  },
  {
    name: "concurrent appends to one session keep every entry once, and a summary of them all",
    run: Effect.gen(function*() {
      const s = yield* store
      const key = freshKey()
      // Ten writers, each replaying its predecessor's batch as a retry would.
      const batches = Array.from({ length: 10 }, (_, i) => [entry(`u${i}`, `t${i}`), entry(`u${i + 1}`, `t${i + 1}`)])
      const fibers = yield* Effect.forEach(batches, (batch) => Effect.forkChild(s.append(key, batch)))
      yield* Fiber.joinAll(fibers)
      const loaded = Option.getOrElse(yield* s.load(key), (): ReadonlyArray<SessionStore.Entry> => [])
      assert.deepStrictEqual(loaded.map((e) => e.uuid).sort(), Array.from({ length: 11 }, (_, i) => `u${i}`).sort())
      const [summary] = yield* s.listSessionSummaries(key.projectKey)
      assert.deepStrictEqual(summary?.data, SessionStore.foldSummary(undefined, loaded))
    })
  },
  {
    name: "delete removes a session and its subpaths, and nothing else",
    run: Effect.gen(function*() {
      const s = yield* store
      const key = freshKey()
      const kept = { ...key, sessionId: crypto.randomUUID() }
      yield* s.append(key, [entry("u1", "a")])
      yield* s.append({ ...key, subpath: "subagents/agent-a" }, [entry("s1", "sub")])
      yield* s.append(kept, [entry("u1", "kept")])
      yield* s.delete(key)
      assert.ok(Option.isNone(yield* s.load(key)))
      assert.ok(Option.isNone(yield* s.load({ ...key, subpath: "subagents/agent-a" })))
      assert.deepStrictEqual(yield* s.listSubkeys(key), [])
      assert.deepStrictEqual((yield* s.listSessions(key.projectKey)).map((x) => x.sessionId), [kept.sessionId])
      assert.deepStrictEqual((yield* s.listSessionSummaries(key.projectKey)).map((x) => x.sessionId), [kept.sessionId])
      assert.deepStrictEqual(texts(yield* s.load(kept)), ["kept"])
      // Deleting what is not there is no error.
      yield* s.delete(key)
    })
  },
  {
    name: "a key part that is not a name fails with InvalidKey and writes nothing",
    run: Effect.gen(function*() {
      const s = yield* store
      const key = freshKey()
      const bad: ReadonlyArray<SessionStore.SessionKey> = [
        { ...key, projectKey: ".." },
        { ...key, sessionId: "../escape" },
        { ...key, sessionId: "" },
        { ...key, subpath: "subagents/../../x" }
      ]
      for (const k of bad) {
        const error = yield* failureOf(s.append(k, [entry("u1", "a")]), `append to ${Keys.keyString(k)}`)
        assert.strictEqual(error.reason._tag, "InvalidKey", Keys.keyString(k))
      }
      assert.deepStrictEqual(yield* s.listSessions(key.projectKey), [])
    })
  },
  {
    name: "findProjects (when the store has it): the projects holding a session id, so it is found by id alone",
    run: Effect.gen(function*() {
      const s = yield* store
      if (s.findProjects === undefined) return
      const key = freshKey()
      const other = { ...freshKey(), sessionId: key.sessionId }
      assert.deepStrictEqual(yield* s.findProjects(key.sessionId), [])
      // A subagent transcript alone is no session.
      yield* s.append({ ...key, subpath: "subagents/agent-a" }, [entry("s1", "sub")])
      assert.deepStrictEqual(yield* s.findProjects(key.sessionId), [])
      yield* s.append(key, [entry("u1", "a")])
      assert.deepStrictEqual(yield* s.findProjects(key.sessionId), [key.projectKey])
      assert.deepStrictEqual(yield* Keys.locate(s, key.sessionId), key)
      yield* s.append(other, [entry("u1", "b")])
      assert.deepStrictEqual([...(yield* s.findProjects(key.sessionId))].sort(), [key.projectKey, other.projectKey].sort())
      const error = yield* failureOf(Keys.locate(s, key.sessionId), "locate of a session id in two projects")
      assert.strictEqual(error.reason._tag, "AmbiguousSession")
      yield* s.delete(other)
      assert.deepStrictEqual(yield* s.findProjects(key.sessionId), [key.projectKey])
    })
  },
  {
    name: "leases (when the store has them): tokens grow; an append with a fence not the current one writes nothing",
    run: Effect.gen(function*() {
      const s = yield* store
      if (s.leases === undefined) return
      const key = freshKey()
      const lease = `conformance-${key.sessionId}`
      assert.strictEqual(yield* s.leases.current(lease), 0)
      const first = yield* s.leases.acquire(lease)
      yield* s.append(key, [entry("u1", "a")], first)
      yield* s.append({ ...key, subpath: "subagents/agent-a" }, [entry("s1", "sub")], first)
      const second = yield* s.leases.acquire(lease)
      assert.deepStrictEqual([second.lease, second.token > first.token], [lease, true])
      assert.strictEqual(yield* s.leases.current(lease), second.token)
      // The first holder, woken after the second took over: refused on the main transcript and under it.
      for (const at of [key, { ...key, subpath: "subagents/agent-a" }]) {
        const error = yield* failureOf(s.append(at, [entry("u2", "stale"), entry(undefined, "p")], first), "a stale append")
        assert.deepStrictEqual(
          error.reason._tag === "Fenced" ? [error.reason.lease, error.reason.token, error.reason.current] : error.reason._tag,
          [lease, first.token, second.token]
        )
      }
      // A lease never taken holds no writer either.
      const never = yield* failureOf(s.append(key, [entry("u3", "x")], { lease: `${lease}-never`, token: 1 }), "an unleased append")
      assert.strictEqual(never.reason._tag, "Fenced")
      yield* s.append(key, [entry("u4", "b")], second)
      assert.deepStrictEqual(texts(yield* s.load(key)), ["a", "b"])
      assert.deepStrictEqual(texts(yield* s.load({ ...key, subpath: "subagents/agent-a" })), ["sub"])
      // Concurrent takers each get a token of their own.
      const tokens = yield* Effect.forEach([1, 2, 3, 4], () => s.leases!.acquire(lease), { concurrency: 4 })
      assert.strictEqual(new Set(tokens.map((f) => f.token)).size, 4)
    })
  }
]

/**
 * Runs {@link cases} as `@effect/vitest` tests over the store `storeLayer` provides, built once for them
 * all. Pass `@effect/vitest`'s `layer` (the kit does not import vitest itself, so that this entry point
 * loads without it).
 *
 * @since 0.1.0
 * @category suites
 */
export const suite = <E>(
  layer: typeof Vitest.layer,
  name: string,
  storeLayer: Layer.Layer<SessionStore.SessionStore, E>,
  options: { readonly timeout?: number | undefined } = {}
): void =>
  // Live services: a store may wait on real time (a lock, a database), which a TestClock would never pass.
  layer(storeLayer, { timeout: options.timeout ?? 60_000, excludeTestServices: true })(`SessionStore conformance: ${name}`, (it) => {
    for (const c of cases) it.effect(c.name, () => c.run, options.timeout ?? 60_000)
  })
