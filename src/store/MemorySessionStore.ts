/**
 * A {@link SessionStore.Shape} in memory, for tests and short-lived processes.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Fencing from "./internal/fencing.ts"
import * as ToolCalls from "./internal/toolCalls.ts"
import * as Keys from "./internal/keys.ts"
import * as Uuids from "./internal/uuids.ts"
import * as SessionStore from "./SessionStore.ts"

/**
 * A store in memory, with its tool-call index (`toolCalls`) kept in memory by `append`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (): SessionStore.Shape => {
  const transcripts = new Map<string, {
    readonly key: SessionStore.SessionKey
    entries: Array<SessionStore.Entry>
    uuids: Set<string>
    mtime: number
    summary: SessionStore.SummaryData | undefined
    // A main transcript's tool calls, by tool use id.
    calls: Map<string, ToolCalls.Row>
  }>()
  const tokens = new Map<string, number>()
  const current = (lease: string) => tokens.get(lease) ?? 0
  const mains = () => [...transcripts.values()].filter((t) => t.key.subpath === undefined)
  return Keys.validating({
    append: (key, entries, fence) =>
      Effect.suspend(() => {
        if (fence !== undefined && current(fence.lease) !== fence.token) {
          return Effect.fail(Fencing.refused("append", key, fence, current(fence.lease)))
        }
        const id = Keys.keyString(key)
        const held = transcripts.get(id) ?? {
          key,
          entries: [],
          uuids: new Set<string>(),
          mtime: 0,
          summary: undefined,
          calls: new Map<string, ToolCalls.Row>()
        }
        // Stored as JSON round-trips them: a caller's later mutation does not reach the store.
        const added = Uuids.fresh(held.uuids, entries).map((e) => JSON.parse(JSON.stringify(e)) as SessionStore.Entry)
        if (added.length === 0) return Effect.void
        transcripts.set(id, held)
        held.entries.push(...added)
        held.mtime = Date.now()
        if (key.subpath === undefined) {
          held.summary = SessionStore.foldSummary(held.summary, added)
          for (const row of ToolCalls.rowsOf(added, held.mtime)) ToolCalls.addTo(held.calls, row)
        }
        return Effect.void
      }),
    load: (key) => Effect.sync(() => Option.map(Option.fromUndefinedOr(transcripts.get(Keys.keyString(key))), (t) => [...t.entries])),
    listSessions: (projectKey) =>
      Effect.sync(() =>
        [...transcripts.values()].filter((t) => t.key.projectKey === projectKey && t.key.subpath === undefined)
          .map((t) => ({ sessionId: t.key.sessionId, mtime: t.mtime }))
      ),
    listSessionSummaries: (projectKey) =>
      Effect.sync(() =>
        [...transcripts.values()].flatMap((t) =>
          t.key.projectKey === projectKey && t.summary !== undefined
            ? [{ sessionId: t.key.sessionId, mtime: t.mtime, data: t.summary }]
            : []
        )
      ),
    listSubkeys: (key) =>
      Effect.sync(() =>
        [...transcripts.values()].flatMap((t) =>
          t.key.projectKey === key.projectKey && t.key.sessionId === key.sessionId && t.key.subpath !== undefined
            ? [t.key.subpath]
            : []
        )
      ),
    delete: (key) =>
      Effect.sync(() => {
        for (const [id, t] of transcripts) {
          if (t.key.projectKey === key.projectKey && t.key.sessionId === key.sessionId) transcripts.delete(id)
        }
      }),
    findProjects: (sessionId) =>
      Effect.sync(() =>
        [...transcripts.values()].flatMap((t) => t.key.sessionId === sessionId && t.key.subpath === undefined ? [t.key.projectKey] : [])
      ),
    listProjects: () =>
      Effect.sync(() => [...new Set(mains().map((t) => t.key.projectKey))].sort()),
    toolCalls: {
      sessions: (query, projectKey) =>
        Effect.sync(() =>
          mains().flatMap((t) =>
            (projectKey === undefined || t.key.projectKey === projectKey) &&
              [...t.calls.values()].some((row) => ToolCalls.matches(query, row))
              ? [{ projectKey: t.key.projectKey, sessionId: t.key.sessionId }]
              : []
          )
        )
    },
    leases: {
      acquire: (lease) => Effect.sync(() => ({ lease, token: tokens.set(lease, current(lease) + 1).get(lease)! })),
      current: (lease) => Effect.sync(() => current(lease))
    }
  })
}

/**
 * {@link SessionStore.SessionStore} in memory.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SessionStore.SessionStore> = Layer.sync(SessionStore.SessionStore, make)
