/**
 * Which turn each output message belongs to, from what the CLI writes.
 *
 * A user message sent while the CLI is idle starts a turn; one sent while a turn runs joins that turn when
 * the CLI hands it to the model mid-turn, or waits in the CLI's queue and starts the next turn (messages
 * queued together may start it together). The CLI tells which when it takes a message up: it replays it
 * (`--replay-user-messages`, matched by the `uuid` the session gives it) and CLI 2.1.330 also writes a
 * `command_lifecycle` event `started`, whichever comes first. A turn ends with its `result`; the output
 * between two turns belongs to the next. A message withdrawn before it is taken up (`cancel_async_message`,
 * an interrupt with `cancel_queued`) gets a `command_lifecycle` event `cancelled` and starts no turn.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import type { Message } from "./message.ts"

/** Where an output message goes. */
export interface Seen {
  readonly turn: number
  /** The uuid of the user message this line replays, when it is one of ours. */
  readonly replayOf: string | undefined
  /** The uuid of our message this line first shows the CLI taking up (its replay or its `started` event). */
  readonly takes: string | undefined
  /** The line only acknowledges one of our messages (its replay, a `command_lifecycle` event). */
  readonly acknowledgement: boolean
  /** The line ends its turn: the turn's `result`. */
  readonly ends: boolean
  /** The uuid of our message this line shows withdrawn before it was taken up: it starts no turn. */
  readonly withdrawn?: string | undefined
}

/** The turn an interrupt ends now. */
export interface Current {
  readonly turn: number
  /** Whether the CLI has taken up a message of it: before that, the CLI has nothing to interrupt. */
  readonly takenUp: boolean
}

/** Where a message about to be written will go. */
export interface Sent {
  /** Its turn when that is known now (the CLI is idle with nothing queued), otherwise its taking-up tells. */
  readonly turn: number | undefined
  /** The last turn started before it: its own turn comes later, or is this one when it joins it. */
  readonly after: number
}

// The uuid of the user message a line acknowledges, if any.
const acknowledged = (message: Message): unknown =>
  message._tag === "UserMessageReplay"
    ? message.uuid
    : message._tag === "UnknownMessage" && message.raw.type === "command_lifecycle"
    ? message.raw.command_uuid
    : undefined

const lifecycle = (message: Message): unknown => message._tag === "UnknownMessage" ? message.raw.state : undefined

// The last event the CLI writes about a message.
const isLast = (message: Message) => lifecycle(message) === "completed" || lifecycle(message) === "cancelled"

export interface Turns {
  /** Records a user message about to be written. */
  readonly sent: (uuid: string) => Sent
  /** Forgets a message whose write failed. */
  readonly unsent: (uuid: string) => void
  /** Feeds one output message, in order. */
  readonly observe: (message: Message) => Seen
  /** Whether the CLI owes output: a turn runs, or a sent message is not taken up yet. */
  readonly busy: () => boolean
  /** The turn an interrupt now ends: the running one, else the one a queued message will start. */
  readonly current: () => Current | undefined
  /** Completes when the turn has taken up a message (true) or has ended, or the output has (false). */
  readonly awaitTakenUp: (turn: number) => Effect.Effect<boolean>
  /**
   * Completes when the turn has ended with its result, or will not start: every message that would have
   * started it was withdrawn (true); or when the output has ended first (false).
   */
  readonly awaitEnd: (turn: number) => Effect.Effect<boolean>
  /** The output ended: every turn is over. */
  readonly close: () => void
}

// Deferreds by turn, completed all at once.
const waiters = <A>() => {
  const all = new Map<number, Deferred.Deferred<A>>()
  return {
    await: (turn: number) => {
      let deferred = all.get(turn)
      if (deferred === undefined) all.set(turn, deferred = Deferred.makeUnsafe<A>())
      return Deferred.await(deferred)
    },
    complete: (turn: number, value: A) => {
      const deferred = all.get(turn)
      all.delete(turn)
      if (deferred !== undefined) Deferred.doneUnsafe(deferred, Exit.succeed(value))
    },
    completeAll: (value: A) => {
      for (const deferred of all.values()) Deferred.doneUnsafe(deferred, Exit.succeed(value))
      all.clear()
    }
  }
}

export const make = (): Turns => {
  let started = 0
  let running = false
  let takenUp = false
  let closed = false
  const queued: Array<string> = []
  // Our messages the CLI may still write about.
  const ours = new Set<string>()
  const ends = waiters<boolean>()
  const takings = waiters<boolean>()

  const finished = (turn: number) => turn < started || (turn === started && !running)
  // The next turn will not start: nothing runs and nothing waits for it.
  const abandoned = (turn: number) => turn === started + 1 && !running && queued.length === 0
  const start = () => {
    started++
    running = true
    takenUp = false
  }
  const end = () => {
    running = false
    // A CLI that tells nothing: the turn took up the oldest message.
    if (!takenUp) queued.shift()
    takings.complete(started, false)
    ends.complete(started, true)
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
      return { turn, after: started }
    },
    unsent: (uuid) => {
      remove(uuid)
      ours.delete(uuid)
    },
    observe: (message) => {
      const uuid = acknowledged(message)
      const own = typeof uuid === "string" && ours.has(uuid) ? uuid : undefined
      if (own !== undefined && isLast(message)) ours.delete(own)
      if (own !== undefined && lifecycle(message) === "cancelled" && remove(own)) {
        if (abandoned(started + 1)) {
          takings.complete(started + 1, false)
          ends.complete(started + 1, true)
        }
        return {
          turn: running ? started : started + 1,
          replayOf: undefined,
          takes: undefined,
          acknowledgement: true,
          ends: false,
          withdrawn: own
        }
      }
      const replayOf = message._tag === "UserMessageReplay" ? own : undefined
      const taking = replayOf ?? (lifecycle(message) === "started" ? own : undefined)
      const seen = (turn: number, takes?: string): Seen => ({
        turn,
        replayOf,
        takes,
        acknowledgement: own !== undefined,
        ends: message.type === "result"
      })
      if (taking !== undefined && remove(taking)) {
        if (!running) start()
        takenUp = true
        takings.complete(started, true)
        return seen(started, taking)
      }
      if (message.type === "result") {
        // A result with no turn seen starting (a CLI that wrote nothing else) is a turn of its own.
        if (!running) start()
        end()
        return seen(started)
      }
      // The CLI may write about a message (`system/init`, its `queued` event) before taking it up: any output
      // while a message waits starts its turn.
      if (!running && queued.length > 0) start()
      return seen(running ? started : started + 1)
    },
    busy: () => running || queued.length > 0,
    current: () =>
      running
        ? { turn: started, takenUp }
        : queued.length > 0
        ? { turn: started + 1, takenUp: false }
        : undefined,
    awaitTakenUp: (turn) =>
      Effect.suspend(() =>
        closed || finished(turn) || abandoned(turn)
          ? Effect.succeed(false)
          : turn === started && takenUp
          ? Effect.succeed(true)
          : takings.await(turn)
      ),
    awaitEnd: (turn) =>
      Effect.suspend(() =>
        finished(turn) || abandoned(turn) ? Effect.succeed(true) : closed ? Effect.succeed(false) : ends.await(turn)
      ),
    close: () => {
      closed = true
      takings.completeAll(false)
      ends.completeAll(false)
    }
  }
}

/**
 * The lines of the turn a message went to, up to and including its result: from the turn's first line when
 * the message starts the turn (the `system/init` the CLI may write before taking it up included), from its
 * taking-up when it joins a turn already running. Until the taking-up tells the turn, the lines of a turn
 * that may be its own are held back, and dropped when that turn ends without it. A message withdrawn before
 * it was taken up ends the lines with the line that says so (an acknowledgement, not shown).
 */
export const select = (sent: Sent, uuid: string) =>
<A extends Seen, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> => {
  interface State {
    readonly target: number | undefined
    readonly held: Array<A>
  }
  const step = (state: State, item: A): readonly [State, ReadonlyArray<A>] => {
    if (state.target !== undefined) return [state, item.turn === state.target ? [item] : []]
    if (item.withdrawn === uuid) return [state, [item]]
    if (item.takes === uuid) return [{ target: item.turn, held: [] }, [...state.held.filter((h) => h.turn === item.turn), item]]
    if (item.turn <= sent.after) return [state, []]
    if (item.ends) return [{ target: undefined, held: [] }, []]
    const held = state.held.length > 0 && state.held[0].turn !== item.turn ? [] : state.held
    held.push(item)
    return [{ target: undefined, held }, []]
  }
  return self.pipe(
    Stream.mapAccum((): State => ({ target: sent.turn, held: [] }), step),
    Stream.takeUntil((item) => item.ends || item.withdrawn === uuid)
  )
}
