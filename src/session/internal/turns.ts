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
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import * as Immutable from "./immutable.ts"
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
  readonly sent: (uuid: string) => Effect.Effect<Sent>
  /** Forgets a message whose write failed. */
  readonly unsent: (uuid: string) => Effect.Effect<void>
  /** Feeds one output message, in order. */
  readonly observe: (message: Message) => Effect.Effect<Seen>
  /** Whether the CLI owes output: a turn runs, or a sent message is not taken up yet. */
  readonly busy: Effect.Effect<boolean>
  /** The turn an interrupt now ends: the running one, else the one a queued message will start. */
  readonly current: Effect.Effect<Current | undefined>
  /** Completes when the turn has taken up a message (true) or has ended, or the output has (false). */
  readonly awaitTakenUp: (turn: number) => Effect.Effect<boolean>
  /**
   * Completes when the turn has ended with its result, or will not start: every message that would have
   * started it was withdrawn (true); or when the output has ended first (false).
   */
  readonly awaitEnd: (turn: number) => Effect.Effect<boolean>
  /** The output ended: every turn is over. */
  readonly close: Effect.Effect<void>
}

interface State {
  /** The number of turns started. */
  readonly started: number
  /** Whether the last one started runs still. */
  readonly running: boolean
  /** Whether the CLI has taken up a message of the running turn. */
  readonly takenUp: boolean
  readonly closed: boolean
  /** Our messages sent and not yet taken up, oldest first. */
  readonly queued: ReadonlyArray<string>
  /** Our messages the CLI may still write about. */
  readonly ours: ReadonlySet<string>
}

const initial: State = { started: 0, running: false, takenUp: false, closed: false, queued: [], ours: new Set() }

const finished = (state: State, turn: number) => turn < state.started || (turn === state.started && !state.running)

// The next turn will not start: nothing runs and nothing waits for it.
const abandoned = (state: State, turn: number) =>
  turn === state.started + 1 && !state.running && state.queued.length === 0

const start = (state: State): State => ({ ...state, started: state.started + 1, running: true, takenUp: false })

// A CLI that tells nothing: the turn took up the oldest message.
const end = (state: State): State => ({
  ...state,
  running: false,
  queued: state.takenUp ? state.queued : state.queued.slice(1)
})

const unqueue = (state: State, uuid: string): State => ({ ...state, queued: state.queued.filter((q) => q !== uuid) })

// Where one output message goes, and the state after it.
const observe = (state: State, message: Message): readonly [Seen, State] => {
  const uuid = acknowledged(message)
  const own = typeof uuid === "string" && state.ours.has(uuid) ? uuid : undefined
  if (own !== undefined && isLast(message)) state = { ...state, ours: Immutable.without(state.ours, own) }
  const queued = own !== undefined && state.queued.includes(own)
  if (queued && lifecycle(message) === "cancelled") {
    state = unqueue(state, own!)
    const seen: Seen = {
      turn: state.running ? state.started : state.started + 1,
      replayOf: undefined,
      takes: undefined,
      acknowledgement: true,
      ends: false,
      withdrawn: own
    }
    return [seen, state]
  }
  const replayOf = message._tag === "UserMessageReplay" ? own : undefined
  const taking = replayOf ?? (lifecycle(message) === "started" ? own : undefined)
  const seen = (state: State, turn: number, takes?: string): readonly [Seen, State] => [{
    turn,
    replayOf,
    takes,
    acknowledgement: own !== undefined,
    ends: message.type === "result"
  }, state]
  if (taking !== undefined && state.queued.includes(taking)) {
    state = unqueue(state, taking)
    state = { ...(state.running ? state : start(state)), takenUp: true }
    return seen(state, state.started, taking)
  }
  if (message.type === "result") {
    // A result with no turn seen starting (a CLI that wrote nothing else) is a turn of its own.
    state = end(state.running ? state : start(state))
    return seen(state, state.started)
  }
  // The CLI may write about a message (`system/init`, its `queued` event) before taking it up: any output
  // while a message waits starts its turn.
  if (!state.running && state.queued.length > 0) state = start(state)
  return seen(state, state.running ? state.started : state.started + 1)
}

// What a wait on a turn's taking-up learns from a state: `undefined` while it cannot tell yet.
const takenUpVerdict = (turn: number) => (state: State): boolean | undefined =>
  state.closed || finished(state, turn) || abandoned(state, turn)
    ? false
    : turn === state.started && state.takenUp
    ? true
    : undefined

const endVerdict = (turn: number) => (state: State): boolean | undefined =>
  finished(state, turn) || abandoned(state, turn) ? true : state.closed ? false : undefined

export const make: Effect.Effect<Turns> = Effect.map(SubscriptionRef.make(initial), (ref) => {
  // Waits for the first state, the current one included, that tells.
  const until = (verdict: (state: State) => boolean | undefined) =>
    SubscriptionRef.changes(ref).pipe(
      Stream.map(verdict),
      Stream.filter((known) => known !== undefined),
      Stream.runHead,
      // The changes of a SubscriptionRef never end.
      Effect.map((known) => known._tag === "Some" && known.value)
    )
  return {
    sent: (uuid) =>
      SubscriptionRef.modify(ref, (state) => [
        { turn: state.running || state.queued.length > 0 ? undefined : state.started + 1, after: state.started },
        { ...state, queued: [...state.queued, uuid], ours: new Set(state.ours).add(uuid) }
      ]),
    unsent: (uuid) => SubscriptionRef.update(ref, (state) => ({ ...unqueue(state, uuid), ours: Immutable.without(state.ours, uuid) })),
    observe: (message) => SubscriptionRef.modify(ref, (state) => observe(state, message)),
    busy: Effect.map(SubscriptionRef.get(ref), (state) => state.running || state.queued.length > 0),
    current: Effect.map(SubscriptionRef.get(ref), (state) =>
      state.running
        ? { turn: state.started, takenUp: state.takenUp }
        : state.queued.length > 0
        ? { turn: state.started + 1, takenUp: false }
        : undefined),
    awaitTakenUp: (turn) => until(takenUpVerdict(turn)),
    awaitEnd: (turn) => until(endVerdict(turn)),
    close: SubscriptionRef.update(ref, (state) => ({ ...state, closed: true }))
  }
})

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
