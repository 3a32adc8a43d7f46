/**
 * Which turn each output message belongs to, from what the CLI writes.
 *
 * A user message sent while the CLI is idle starts a turn; one sent while a turn runs joins that turn (the
 * CLI hands it to the model mid-turn), and messages queued behind a turn start the next one together. The
 * CLI tells which by replaying each user message (`--replay-user-messages`, matched by the `uuid` the
 * session gives it) when it takes it up. A turn ends with its `result`; the output between two turns
 * belongs to the next.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { Message } from "../Session.ts"

/** Where an output message goes. */
export interface Seen {
  readonly turn: number
  /** The uuid of the user message this line replays, when it is one of ours. */
  readonly replayOf: string | undefined
  /** The line only acknowledges one of our messages (its replay, a `command_lifecycle` event). */
  readonly acknowledgement: boolean
}

// The uuid of the user message a line acknowledges, if any.
const acknowledged = (message: Message): unknown =>
  message._tag === "UserMessageReplay"
    ? message.uuid
    : message._tag === "UnknownMessage" && message.raw.type === "command_lifecycle"
    ? message.raw.command_uuid
    : undefined

// The last event the CLI writes about a message.
const isLast = (message: Message) =>
  message._tag === "UnknownMessage" && (message.raw.state === "completed" || message.raw.state === "cancelled")

export interface Turns {
  /**
   * Records a user message about to be written. Returns the turn it will belong to when that is known now
   * (the CLI is idle with nothing queued), otherwise `undefined`: its replay will tell.
   */
  readonly sent: (uuid: string) => number | undefined
  /** Forgets a message whose write failed. */
  readonly unsent: (uuid: string) => void
  /** Feeds one output message, in order. */
  readonly observe: (message: Message) => Seen
  /** Whether the CLI owes output: a turn runs, or a sent message is not taken up yet. */
  readonly busy: () => boolean
  /** The turn an interrupt now ends: the running one, else the one a queued message will start. */
  readonly current: () => number | undefined
  /** Completes when the turn has ended (or the output has). */
  readonly awaitEnd: (turn: number) => Effect.Effect<void>
  /** The output ended: every turn is over. */
  readonly close: () => void
}

export const make = (): Turns => {
  let started = 0
  let running = false
  let replayed = false
  let closed = false
  const queued: Array<string> = []
  // Our messages the CLI may still write about.
  const ours = new Set<string>()
  const ends = new Map<number, Deferred.Deferred<void>>()

  const ended = (turn: number) => closed || turn < started || (turn === started && !running)
  const start = () => {
    started++
    running = true
    replayed = false
  }
  const end = () => {
    running = false
    // A CLI that does not replay: the turn took up the oldest message.
    if (!replayed) queued.shift()
    const deferred = ends.get(started)
    ends.delete(started)
    if (deferred !== undefined) Deferred.doneUnsafe(deferred, Exit.void)
  }
  const remove = (uuid: string) => {
    const at = queued.indexOf(uuid)
    if (at >= 0) queued.splice(at, 1)
    return at >= 0
  }

  return {
    sent: (uuid) => {
      const turn = running || queued.length > 0 ? undefined : started + 1
      queued.push(uuid)
      ours.add(uuid)
      return turn
    },
    unsent: (uuid) => {
      remove(uuid)
      ours.delete(uuid)
    },
    observe: (message) => {
      const uuid = acknowledged(message)
      const own = typeof uuid === "string" && ours.has(uuid) ? uuid : undefined
      if (own !== undefined && isLast(message)) ours.delete(own)
      const replayOf = message._tag === "UserMessageReplay" ? own : undefined
      const seen = (turn: number): Seen => ({ turn, replayOf, acknowledgement: own !== undefined })
      if (replayOf !== undefined && remove(replayOf)) {
        if (!running) start()
        replayed = true
        return seen(started)
      }
      if (message.type === "result") {
        // A result with no turn seen starting (a CLI that wrote nothing else) is a turn of its own.
        if (!running) start()
        end()
        return seen(started)
      }
      // The CLI writes `system/init` before the replay: any output while a message waits starts its turn.
      if (!running && queued.length > 0) start()
      return seen(running ? started : started + 1)
    },
    busy: () => running || queued.length > 0,
    current: () => running ? started : queued.length > 0 ? started + 1 : undefined,
    awaitEnd: (turn) =>
      Effect.suspend(() => {
        if (ended(turn)) return Effect.void
        let deferred = ends.get(turn)
        if (deferred === undefined) ends.set(turn, deferred = Deferred.makeUnsafe<void>())
        return Deferred.await(deferred)
      }),
    close: () => {
      closed = true
      for (const deferred of ends.values()) Deferred.doneUnsafe(deferred, Exit.void)
      ends.clear()
    }
  }
}
