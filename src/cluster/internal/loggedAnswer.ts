/**
 * A client's `Turn` stream can wait on a turn the entity has finished and logged: the reply that carries its
 * end was lost on the way (issue 23: a runner that died or stopped after logging the turn and before its last
 * reply was saved; a reply stream tied to a runner that no longer serves the entity). Nothing then ends the
 * wait. {@link guard} bounds it from the client's side, which reads the same log: once the log has the turn's
 * messages and the stream has brought nothing for {@link silence}, the stream ends with the messages it has
 * not brought yet, from the log (after a `TurnReplayed`), as a re-ask by the turn's id would.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Message from "../../schema/Message.ts"
import type * as TurnLog from "../TurnLog.ts"
import { TurnMessage, TurnReplayed } from "./protocol.ts"
import type { TurnEvent } from "./protocol.ts"

/** How often a waiting client looks at its stream, and at the log once the stream is quiet. */
export const checkInterval: Duration.Duration = Duration.seconds(2)

/**
 * How long a stream whose turn is logged may bring nothing before it ends from the log: more than a reply's
 * way through the database on a loaded machine, so that a live stream is not cut short of its last events.
 */
export const silence: Duration.Duration = Duration.seconds(10)

// The same message: the same uuid where both have one (a message of another attempt has another), else the
// same content.
const same = (a: Message.Message, b: Message.Message): boolean => {
  const ua = "uuid" in a ? a.uuid : undefined
  const ub = "uuid" in b ? b.uuid : undefined
  return typeof ua === "string" && typeof ub === "string" ? ua === ub : JSON.stringify(a) === JSON.stringify(b)
}

// The messages the client has not had: those after the ones of the attempt it followed when that attempt is the
// logged one (its messages begin the log's); all of them when another attempt finished the turn.
const unseen = (turnId: string, logged: ReadonlyArray<Message.Message>, had: ReadonlyArray<Message.Message>): ReadonlyArray<TurnEvent> => {
  const followed = had.length <= logged.length && had.every((message, i) => same(message, logged[i]!))
  const rest = followed ? logged.slice(had.length) : logged
  return rest.length === 0 ? [] : [new TurnReplayed({ turnId }), ...rest.map((message) => new TurnMessage({ message }))]
}

/**
 * `events`, the reply stream of turn `turnId` of the entity whose log key is `entityId`, ended from `log` when
 * it waits on a logged turn (see the module's description). A stream that ends without the result of the
 * attempt it followed while the log has the turn finished with one is given the rest from the log too: the
 * replies of an attempt made while the client was attached to a runner that had stopped reach it no more (a
 * chaos run's clients got the first attempt's messages and then the end, issue 23).
 */
export const guard = (log: TurnLog.Shape, entityId: string, turnId: string) =>
<E, R>(events: Stream.Stream<TurnEvent, E, R>): Stream.Stream<TurnEvent, E, R> =>
  Stream.suspend(() => {
    // The messages of the attempt followed so far (a new attempt, or a replay, starts over).
    let had: Array<Message.Message> = []
    let fromLog = false
    let lastAt = Date.now()
    const quiet = () => Date.now() - lastAt >= Duration.toMillis(silence)
    // Counted a chunk at a time, as they come (a tap would split the chunks).
    const counted = events.pipe(
      Stream.mapArray((chunk) => {
        lastAt = Date.now()
        for (const event of chunk) {
          if (event._tag === "TurnMessage") had.push(event.message)
          else had = []
        }
        return chunk
      })
    )
    const watch = Effect.gen(function*() {
      while (true) {
        yield* Effect.sleep(checkInterval)
        // The log is read only once the stream has gone quiet: a stream that brings events costs it nothing.
        if (!quiet()) continue
        const logged = yield* log.answer(entityId, turnId)
        if (logged !== undefined && quiet()) {
          fromLog = true
          return unseen(turnId, logged, had)
        }
      }
    })
    // Ended by itself without the followed attempt's result: the log's finished turn, if it has one with a result.
    const missed = Effect.suspend(() =>
      fromLog || had.some(Message.isResultMessage)
        ? Effect.succeed([])
        : Effect.map(log.answer(entityId, turnId), (logged) => logged !== undefined && logged.some(Message.isResultMessage) ? unseen(turnId, logged, had) : [])
    )
    return Stream.merge(counted, Stream.flatMap(Stream.fromEffect(watch), Stream.fromIterable), { haltStrategy: "either" }).pipe(
      Stream.concat(Stream.flatMap(Stream.fromEffect(missed), Stream.fromIterable))
    )
  })
