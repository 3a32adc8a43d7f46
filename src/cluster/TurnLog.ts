/**
 * What an agent session entity remembers between activations and runners: the CLI session id of each entity
 * (to resume its conversation) and the outcome of each turn by id, so that a re-delivered `Turn` is answered
 * from here instead of being sent to the model again. The conversation itself stays with the CLI (its
 * transcript) or a session store; this log only keeps what makes delivery idempotent.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Message from "../schema/Message.ts"

/**
 * What `begin` found for a turn id: a new turn (`attempt` 1), one that was started before and never finished
 * (a re-delivery: `attempt` counts the starts, this one included), or one whose messages are known.
 *
 * @since 0.1.0
 * @category models
 */
export type Begin =
  | { readonly _tag: "Start"; readonly attempt: number }
  | { readonly _tag: "Done"; readonly messages: ReadonlyArray<Message.Message> }

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /** Marks the turn started (counting the attempt), or gives its stored messages when it finished before. */
  readonly begin: (entityId: string, turnId: string) => Effect.Effect<Begin>
  /** Stores a finished turn's messages, up to its result. */
  readonly finish: (entityId: string, turnId: string, messages: ReadonlyArray<Message.Message>) => Effect.Effect<void>
  /** The CLI session id the entity's conversation continues, once it has one. */
  readonly sessionId: (entityId: string) => Effect.Effect<string | undefined>
  readonly setSessionId: (entityId: string, sessionId: string) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category services
 */
export class TurnLog extends Context.Service<TurnLog, Shape>()("effect-claude-code/cluster/TurnLog") {}

type Entry = { readonly attempts: number; readonly messages?: ReadonlyArray<unknown> }

/**
 * A log in this process's memory: enough for tests and for a runner that keeps its entities (it does not
 * survive the process).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<Shape> = Effect.gen(function*() {
  const turns = yield* Ref.make(new Map<string, Entry>())
  const sessions = yield* Ref.make(new Map<string, string>())
  const key = (entityId: string, turnId: string) => JSON.stringify([entityId, turnId])
  return TurnLog.of({
    begin: (entityId, turnId) =>
      Ref.modify(turns, (map): [Begin, Map<string, Entry>] => {
        const entry = map.get(key(entityId, turnId))
        if (entry?.messages !== undefined) return [{ _tag: "Done", messages: decodeAll(entry.messages) }, map]
        const attempts = (entry?.attempts ?? 0) + 1
        return [{ _tag: "Start", attempt: attempts }, new Map(map).set(key(entityId, turnId), { attempts })]
      }),
    finish: (entityId, turnId, messages) =>
      Ref.update(turns, (map) => {
        const attempts = map.get(key(entityId, turnId))?.attempts ?? 1
        return new Map(map).set(key(entityId, turnId), { attempts, messages: messages.map(Message.encodeMessage) })
      }),
    sessionId: (entityId) => Effect.map(Ref.get(sessions), (map) => map.get(entityId)),
    setSessionId: (entityId, sessionId) => Ref.update(sessions, (map) => new Map(map).set(entityId, sessionId))
  })
})

/**
 * Decodes stored wire messages; they were encoded by this library, so a failure is a defect.
 *
 * @since 0.1.0
 * @category encoding
 */
export const decodeAll = (stored: ReadonlyArray<unknown>): ReadonlyArray<Message.Message> =>
  stored.map((json) => {
    const result = Message.decodeMessage(json)
    if (result._tag === "Failure") throw result.failure
    return result.success
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<TurnLog> = Layer.effect(TurnLog, makeMemory)
