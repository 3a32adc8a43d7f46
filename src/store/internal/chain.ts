/**
 * A conversation as the CLI resumes it and the SDK's `getSessionMessages` reads it: from its last message
 * back along `parentUuid` (so from the last compaction's summary on, with the messages it kept), sidechains
 * apart, prompts queued mid-turn as user messages, with the sibling branches of parallel tool calls put back
 * (each call of one API message is written as its own entry, and its result hangs off that entry, off the
 * chain). Built in two passes over the transcript so that memory holds only ids, never the messages: the
 * first pass keeps each entry's parent and line (and for assistant entries and tool results, the ids that
 * tie them), the second emits the chosen lines.
 *
 * Bad lines come in-band as {@link DecodeError}s. With `onBadLine: "fail"` the chain is the one written
 * before the first bad line, followed by that line's error; with `"emit"` bad lines are left out of the
 * chain (a parent lost on one is bridged to the entry written before it) and passed on in file order.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Transcript from "../../transcript/Transcript.ts"
import { type DecodeError, isDecodeError } from "../../stream/DecodeError.ts"
import type * as Ndjson from "../../stream/Ndjson.ts"
import type * as TranscriptDecode from "../../transcript/Decode.ts"

// The first pass keeps, per entry, a few small numbers in columns indexed by the entry's place in the graph
// (its uuid kept once, as the key of `index`); API message, tool use and side ids are interned, so a string
// shared by many entries is held once. Per entry that is some tens of bytes, not objects and strings.
const NONE = -1
// A parent that is no entry of the graph (lost on a bad line, or never written).
const MISSING = -2
// Flags.
const MESSAGE = 1 // a user or assistant entry
const ENDS = 2 // can end the conversation (not progress, nor a fork's briefing)
const PROMPT = 4 // a person's prompt (a user entry that is not a tool result, a meta note or a compaction summary)
const ASSISTANT = 8 // an assistant entry: its API message (`message`) and calls (`tools`) tie parallel calls
const RESULT = 16 // a user entry of tool results: tied to their calls by `tools`

const grown = <A extends Int32Array | Uint8Array | Float64Array>(column: A, size: number, make: (n: number) => A): A => {
  if (size <= column.length) return column
  const next = make(Math.max(size, column.length * 2))
  next.set(column)
  return next
}

class Interned {
  readonly ids = new Map<string, number>()
  of(value: string): number {
    let id = this.ids.get(value)
    if (id === undefined) this.ids.set(value, id = this.ids.size)
    return id
  }
}

class Graph {
  readonly index = new Map<string, number>()
  readonly uuids: Array<string> = []
  size = 0
  parent = new Int32Array(1024)
  line = new Int32Array(1024)
  flags = new Uint8Array(1024)
  /** An assistant entry's API message id, interned; NONE otherwise. */
  message = new Int32Array(1024)
  /** The first `tool_use` id of an assistant entry or `tool_use_id` of a result, interned; the rest in `moreTools`. */
  tool = new Int32Array(1024)
  /** Sidechain and agent, interned: a result ties only to a call on the same side. */
  side = new Int32Array(1024)
  /** A result's `sourceToolAssistantUUID` as an entry; NONE otherwise. */
  source = new Int32Array(1024)
  /** Milliseconds (-Infinity when missing or unreadable): parallel calls and results are put back in time order. */
  time = new Float64Array(1024)
  readonly moreTools = new Map<number, Array<number>>()
  /** Parents that are no entry (see MISSING), by uuid, for a compaction's relinking. */
  readonly missing = new Map<number, string>()
  /** The uuid a prompt queued mid-turn takes as a user message. */
  readonly queued = new Map<number, string>()
  // Parents and sources written after their entry: resolved once the pass is over.
  readonly later = new Map<number, string>()
  readonly laterSource = new Map<number, string>()
  readonly messages = new Interned()
  readonly tools = new Interned()
  readonly sides = new Interned()

  /** The entry of `uuid`, the same place again when a uuid is written twice (the later entry wins). */
  add(uuid: string): number {
    const at = this.index.get(uuid)
    if (at !== undefined) {
      for (const sparse of [this.moreTools, this.missing, this.queued, this.later, this.laterSource]) sparse.delete(at)
      return at
    }
    const i = this.size++
    this.index.set(uuid, i)
    this.uuids.push(uuid)
    const n = this.size
    this.parent = grown(this.parent, n, (k) => new Int32Array(k))
    this.line = grown(this.line, n, (k) => new Int32Array(k))
    this.flags = grown(this.flags, n, (k) => new Uint8Array(k))
    this.message = grown(this.message, n, (k) => new Int32Array(k))
    this.tool = grown(this.tool, n, (k) => new Int32Array(k))
    this.side = grown(this.side, n, (k) => new Int32Array(k))
    this.source = grown(this.source, n, (k) => new Int32Array(k))
    this.time = grown(this.time, n, (k) => new Float64Array(k))
    return i
  }

  setParent(i: number, parent: string | undefined, resolveLater: boolean): void {
    this.missing.delete(i)
    this.later.delete(i)
    const p = parent === undefined ? NONE : this.index.get(parent)
    if (p !== undefined) this.parent[i] = p
    else if (resolveLater) this.later.set(i, parent!)
    else {
      this.parent[i] = MISSING
      this.missing.set(i, parent!)
    }
  }

  /** The parent's uuid, whether an entry or not. */
  parentUuid(i: number): string | undefined {
    const p = this.parent[i]!
    return p >= 0 ? this.uuids[p] : p === MISSING ? this.missing.get(i) : undefined
  }

  setTools(i: number, ids: ReadonlyArray<string>): void {
    this.tool[i] = ids.length === 0 ? NONE : this.tools.of(ids[0]!)
    if (ids.length > 1) this.moreTools.set(i, ids.slice(1).map((id) => this.tools.of(id)))
  }

  toolsOf(i: number): ReadonlyArray<number> {
    const first = this.tool[i]!
    return first === NONE ? [] : [first, ...(this.moreTools.get(i) ?? [])]
  }

  /** Once the pass is over: parents and sources written after their entries found, the rest missing. */
  resolve(): void {
    for (const [i, parent] of this.later) this.setParent(i, parent, false)
    for (const [i, source] of this.laterSource) this.source[i] = this.index.get(source) ?? NONE
    this.later.clear()
    this.laterSource.clear()
  }
}

const blockIds = (content: unknown, type: string, key: "id" | "tool_use_id"): Array<string> => {
  if (!Array.isArray(content)) return []
  const ids: Array<string> = []
  for (const block of content) {
    if (typeof block === "object" && block !== null && block.type === type && typeof block[key] === "string") {
      ids.push(block[key])
    }
  }
  return ids
}

const millis = (timestamp: string | undefined): number => {
  const ms = timestamp === undefined ? NaN : Date.parse(timestamp)
  return Number.isNaN(ms) ? -Infinity : ms
}

// Records an entry's part in tying parallel calls (none when it is neither an assistant entry nor results).
const setTurn = (graph: Graph, i: number, entry: Transcript.Entry): boolean => {
  graph.message[i] = NONE
  graph.tool[i] = NONE
  graph.source[i] = NONE
  if (entry._tag !== "AssistantEntry" && entry._tag !== "UserEntry") return false
  graph.side[i] = graph.sides.of(`${entry.isSidechain === true}/${entry.agentId ?? ""}`)
  graph.time[i] = millis(entry.timestamp)
  if (entry._tag === "AssistantEntry") {
    graph.flags[i]! |= ASSISTANT
    if (entry.message.id !== undefined) graph.message[i] = graph.messages.of(entry.message.id)
    graph.setTools(i, blockIds(entry.message.content, "tool_use", "id"))
    return true
  }
  if (entry.parentUuid == null) return false
  const ids = blockIds(entry.message.content, "tool_result", "tool_use_id")
  if (ids.length === 0) return false
  graph.flags[i]! |= RESULT
  graph.setTools(i, ids)
  const source = entry.sourceToolAssistantUUID
  if (source !== undefined) {
    const at = graph.index.get(source)
    if (at !== undefined) graph.source[i] = at
    else graph.laterSource.set(i, source)
  }
  return true
}

/** @internal */
export interface Chain {
  /** The lines on the chain, in conversation order. */
  readonly lines: ReadonlyArray<number>
  /** The first bad line with `onBadLine: "fail"`: the chain ends before it and its error follows. */
  readonly stop: number | undefined
  /** The lines of prompts queued mid-turn and answered (see {@link queuedPrompt}), read as user messages. */
  readonly queued: ReadonlySet<number>
}

/** The uuid and parent of an entry that takes part in the conversation graph; `undefined` otherwise. */
export const link = (
  entry: Transcript.Entry
): { readonly uuid: string; readonly parent: string | undefined; readonly sidechain: boolean } | undefined => {
  if (Transcript.isConversation(entry)) {
    return { uuid: entry.uuid, parent: entry.parentUuid ?? undefined, sidechain: entry.isSidechain === true }
  }
  if (entry._tag !== "UnknownEntry") return undefined
  // Conversation entries of other CLI versions still link the chain.
  const raw = entry.raw
  if (typeof raw.uuid !== "string" || !("parentUuid" in raw)) return undefined
  const parent = typeof raw.parentUuid === "string" ? raw.parentUuid : undefined
  return { uuid: raw.uuid, parent, sidechain: raw.isSidechain === true }
}

const isTurn = (entry: Transcript.Entry) => entry._tag === "UserEntry" || entry._tag === "AssistantEntry"

/**
 * The first pass: the chain ending where the conversation ends (see `lastEnd`). `sidechains: false` leaves
 * out entries marked `isSidechain` (the main transcript); subagent transcripts are all sidechain, and read as
 * the SDK's `getSubagentMessages` reads them: the chain from the last user or assistant entry alone (no
 * siblings put back, no compaction relinked).
 *
 * @internal
 */
export const build = <E, R>(
  records: Stream.Stream<TranscriptDecode.DecodedEntry | DecodeError, E, R>,
  sidechains: boolean,
  onBadLine: Ndjson.OnBadLine = "fail"
): Effect.Effect<Chain, E, R> =>
  Effect.gen(function*() {
    const graph = new Graph()
    // An entry written right after bad lines (no entry of the graph between) whose parent is lost on one of
    // them goes on from the entry written before them.
    const bridges = new Map<number, number>()
    let last: number | undefined
    let afterBad = false
    let leaf: number | undefined
    let stop: number | undefined
    const compactions: Array<{ readonly [key: string]: unknown }> = []
    yield* Stream.runForEachWhile(records, (record) =>
      Effect.sync(() => {
        if (isDecodeError(record)) {
          if (onBadLine === "fail") {
            stop = record.line
            return false
          }
          afterBad = true
          return true
        }
        const l = link(record.entry)
        if (l === undefined || (l.sidechain && !sidechains)) return true
        const lost = afterBad && last !== undefined && l.parent !== undefined && !graph.index.has(l.parent)
        afterBad = false
        const entry = record.entry
        if (entry._tag === "CompactBoundaryEntry" && entry.compactMetadata !== undefined) compactions.push(entry.compactMetadata)
        const i = graph.add(l.uuid)
        if (lost) bridges.set(i, last!)
        graph.setParent(i, l.parent, true)
        graph.line[i] = record.line
        graph.flags[i] = 0
        const turn = setTurn(graph, i, entry)
        const queued = entry._tag === "AttachmentEntry" ? queuedPrompt(entry)?.uuid : undefined
        if (queued !== undefined) graph.queued.set(i, queued)
        if (isTurn(entry)) graph.flags[i]! |= MESSAGE
        if (entry._tag === "UserEntry" && !turn && entry.isMeta !== true && entry.isCompactSummary !== true) graph.flags[i]! |= PROMPT
        if (entry._tag !== "ProgressEntry" && !(entry._tag === "AttachmentEntry" && entry.attachment.type === "fork_briefing")) {
          graph.flags[i]! |= ENDS
        }
        last = i
        if (isTurn(entry)) leaf = i
        return true
      }))
    graph.resolve()
    if (!sidechains) for (const metadata of compactions) relink(graph, metadata)
    const up = (i: number): number | undefined => {
      const parent = graph.parent[i]!
      return parent === MISSING ? bridges.get(i) : parent === NONE ? undefined : parent
    }
    const chain: Array<number> = []
    const seen = new Uint8Array(graph.size)
    // A main conversation with no end (every entry some other's parent: a cycle) has no messages, as for the SDK.
    for (let i = sidechains ? leaf : lastEnd(graph, up); i !== undefined && seen[i] === 0; i = up(i)) {
      seen[i] = 1
      chain.push(i)
    }
    chain.reverse()
    const ordered = sidechains ? chain : withSiblings(graph, chain)
    const lines = ordered.map((i) => graph.line[i]!)
    return { lines, stop, queued: sidechains ? new Set() : answered(graph, ordered) }
  })

/**
 * Where the main conversation ends, as the SDK finds it: of the entries nothing goes on from, the one written
 * last whose way back reaches a user or assistant entry not reached from one written later; that entry.
 */
const lastEnd = (graph: Graph, up: (i: number) => number | undefined) => {
  const isParent = new Uint8Array(graph.size)
  for (let i = 0; i < graph.size; i++) if (graph.flags[i]! & ENDS && graph.parent[i]! >= 0) isParent[graph.parent[i]!] = 1
  const ends: Array<number> = []
  for (let i = 0; i < graph.size; i++) if (graph.flags[i]! & ENDS && isParent[i] === 0) ends.push(i)
  ends.sort((a, b) => graph.line[b]! - graph.line[a]!)
  const reached = new Uint8Array(graph.size)
  for (const end of ends) {
    const path = new Set<number>()
    for (let i: number | undefined = end; i !== undefined && reached[i] === 0 && !path.has(i); i = up(i)) {
      if (graph.flags[i]! & MESSAGE) return i
      path.add(i)
    }
    for (const i of path) reached[i] = 1
  }
  return undefined
}

/**
 * A compaction that kept recent messages (`preservedMessages` or `preservedSegment` in its metadata) puts them
 * after its anchor, and what followed the anchor after them, as the SDK and the CLI read it.
 */
const relink = (graph: Graph, metadata: { readonly [key: string]: unknown }) => {
  const setParent = (uuid: string, parent: unknown) => {
    const i = graph.index.get(uuid)
    if (i !== undefined) graph.setParent(i, typeof parent === "string" ? parent : undefined, false)
  }
  const moveChildren = (anchor: unknown, except: unknown, to: unknown) => {
    if (typeof anchor !== "string") return
    const children: Array<string> = []
    for (let i = 0; i < graph.size; i++) if (graph.parentUuid(i) === anchor && graph.uuids[i] !== except) children.push(graph.uuids[i]!)
    for (const uuid of children) setParent(uuid, to)
  }
  const messages = metadata.preservedMessages
  const segment = metadata.preservedSegment
  if (Predicate.isReadonlyObject(messages)) {
    const uuids = messages.uuids
    if (!Array.isArray(uuids) || uuids.length === 0 || uuids.some((u) => typeof u !== "string" || !graph.index.has(u))) return
    let parent = messages.anchorUuid
    for (const uuid of uuids as ReadonlyArray<string>) {
      setParent(uuid, parent)
      parent = uuid
    }
    moveChildren(messages.anchorUuid, uuids[0], uuids.at(-1))
  } else if (Predicate.isReadonlyObject(segment)) {
    if (typeof segment.headUuid === "string") setParent(segment.headUuid, segment.anchorUuid)
    moveChildren(segment.anchorUuid, segment.headUuid, segment.tailUuid)
  }
}

/**
 * A prompt a person sent while a turn ran, which the CLI wrote as a `queued_command` attachment and put before
 * the model mid-turn: as the SDK reads it, a user message (`isQueuedCommand`) with the prompt's own uuid.
 *
 * @internal
 */
export const queuedPrompt = (entry: Transcript.AttachmentEntry) => {
  const attachment = entry.attachment as { readonly [key: string]: unknown }
  const prompt = attachment.prompt
  if (attachment.type !== "queued_command" || attachment.isMeta === true || attachment.forwardedIntent !== undefined) return undefined
  if (typeof prompt !== "string" && !Array.isArray(prompt)) return undefined
  const source = attachment.source_uuid
  const uuid = typeof source === "string" && source !== "" ? source : entry.uuid
  return Transcript.decodeEntry({
    type: "user",
    uuid,
    parentUuid: entry.parentUuid ?? null,
    isSidechain: entry.isSidechain === true,
    sessionId: entry.sessionId,
    timestamp: entry.timestamp,
    message: { role: "user", content: prompt },
    isQueuedCommand: true
  }).pipe(Result.getOrUndefined) as Transcript.UserEntry | undefined
}

// The lines of the queued prompts the model answered: the next turn after them on the conversation is the
// model's (a reply or a tool result), not another prompt.
const answered = (graph: Graph, ordered: ReadonlyArray<number>): ReadonlySet<number> => {
  const lines = new Set<number>()
  const uuids = new Set(ordered.map((i) => graph.uuids[i]!))
  let next: "reply" | "prompt" | undefined
  for (let k = ordered.length - 1; k >= 0; k--) {
    const i = ordered[k]!
    const queued = graph.queued.get(i)
    if (queued !== undefined && next === "reply" && (queued === graph.uuids[i] || !uuids.has(queued))) {
      lines.add(graph.line[i]!)
    }
    if (graph.flags[i]! & (ASSISTANT | RESULT)) next = "reply"
    else if (graph.flags[i]! & PROMPT) next = "prompt"
  }
  return lines
}

/**
 * The chain with the sibling branches of parallel tool calls put back, as the SDK's `getSessionMessages`
 * does: for each API message on the chain, its entries off the chain, then the results of its calls off the
 * chain (each set by timestamp), right after the message's last entry on the chain.
 */
const withSiblings = (graph: Graph, chain: ReadonlyArray<number>): ReadonlyArray<number> => {
  const isAssistant = (i: number) => (graph.flags[i]! & ASSISTANT) !== 0
  const isResult = (i: number) => (graph.flags[i]! & RESULT) !== 0
  const assistants = chain.filter(isAssistant)
  if (assistants.length === 0) return chain
  const onChain = new Uint8Array(graph.size)
  for (const i of chain) onChain[i] = 1
  const lastOnChain = new Map<number, number>()
  for (const i of assistants) if (graph.message[i] !== NONE) lastOnChain.set(graph.message[i]!, i)
  // The entries of the API messages on the chain (only theirs are put back).
  const byMessage = new Map<number, Array<number>>()
  // A call's entry (by interned tool use id); CLAIMED when entries of two API messages claim the same call.
  const UNSEEN = -1
  const CLAIMED = -2
  const caller = new Int32Array(graph.tools.ids.size).fill(UNSEEN)
  const callerOf = (id: number) => caller[id]! >= 0 ? caller[id]! : undefined
  const results: Array<number> = []
  for (let i = 0; i < graph.size; i++) {
    if (isResult(i)) results.push(i)
    const message = graph.message[i]!
    if (!isAssistant(i) || message === NONE) continue
    if (lastOnChain.has(message)) {
      const group = byMessage.get(message)
      if (group === undefined) byMessage.set(message, [i])
      else group.push(i)
    }
    for (const id of graph.toolsOf(i)) {
      const other = caller[id]!
      caller[id] = other === UNSEEN || (other !== CLAIMED && graph.message[other] === message) ? i : CLAIMED
    }
  }
  // Only the children of the entries of the chain's API messages are read.
  const children = new Map<number, Array<number>>()
  const addChild = (parent: number, i: number) => {
    if (parent < 0 || !isAssistant(parent) || !lastOnChain.has(graph.message[parent]!)) return
    const list = children.get(parent)
    if (list === undefined) children.set(parent, [i])
    else if (!list.includes(i)) list.push(i)
  }
  const sameSide = (a: number, b: number) => graph.side[a] === graph.side[b] && (graph.flags[a]! & (ASSISTANT | RESULT)) !== 0
  for (const i of results) {
    const parent = graph.parent[i]!
    const source = graph.source[i]!
    addChild(parent, i)
    if (source !== NONE && source !== parent && sameSide(source, i)) addChild(source, i)
    for (const id of graph.toolsOf(i)) {
      const call = callerOf(id)
      if (call !== undefined && sameSide(call, i)) addChild(call, i)
    }
  }
  const answered = new Set<number>()
  for (const i of chain) if (isResult(i)) for (const id of graph.toolsOf(i)) answered.add(id)
  const byTimestamp = (a: number, b: number) => graph.time[a]! < graph.time[b]! ? -1 : graph.time[a]! > graph.time[b]! ? 1 : 0
  const inserts = new Map<number, Array<number>>()
  const done = new Set<number>()
  for (const i of assistants) {
    const message = graph.message[i]!
    if (message === NONE || done.has(message)) continue
    done.add(message)
    const group = byMessage.get(message) ?? [i]
    const inGroup = new Set(group)
    const calls = group.filter((entry) => onChain[entry] === 0)
    const direct: Array<number> = []
    const indirect: Array<number> = []
    const met = new Set<number>()
    for (const entry of group) {
      for (const child of children.get(entry) ?? []) {
        if (onChain[child] === 1 || met.has(child)) continue
        met.add(child)
        if (inGroup.has(graph.parent[child]!)) direct.push(child)
        else indirect.push(child)
      }
    }
    if (indirect.length > 0) {
      // A result hanging elsewhere counts only for a call of this message that nothing answered yet.
      const covered = new Set(answered)
      for (const child of direct) for (const id of graph.toolsOf(child)) covered.add(id)
      indirect.sort((a, b) => graph.line[a]! - graph.line[b]!)
      for (const child of indirect) {
        const ids = graph.toolsOf(child)
        if (!ids.some((id) => !covered.has(id) && inGroup.has(callerOf(id) ?? NONE))) continue
        for (const id of ids) covered.add(id)
        direct.push(child)
      }
    }
    if (calls.length === 0 && direct.length === 0) continue
    const put = [...calls.sort(byTimestamp), ...direct.sort(byTimestamp)]
    for (const entry of put) onChain[entry] = 1
    inserts.set(lastOnChain.get(message)!, put)
  }
  if (inserts.size === 0) return chain
  const ordered: Array<number> = []
  for (const i of chain) {
    ordered.push(i)
    const put = inserts.get(i)
    if (put !== undefined) for (const entry of put) ordered.push(entry)
  }
  return ordered
}

/**
 * The second pass: the records on the chain, in chain order, and the bad lines where they are read (see the
 * module doc).
 *
 * @internal
 */
export const select = <A extends TranscriptDecode.DecodedEntry | DecodeError, E, R>(
  records: Stream.Stream<A, E, R>,
  chain: Chain
): Stream.Stream<A, E, R> => {
  const wanted = new Set(chain.lines)
  const kept = Stream.filter(records, (record) =>
    isDecodeError(record) ? chain.stop === undefined || record.line === chain.stop : wanted.has(record.line))
  const onChain = chain.stop === undefined ? kept : Stream.takeUntil(kept, isDecodeError)
  const ordered = chain.lines.every((line, i) => i === 0 || chain.lines[i - 1]! < line)
  if (ordered) return onChain
  // Only the records read before their place are held, until the records before them come.
  return Stream.suspend(() => {
    const rank = new Map(chain.lines.map((line, i) => [line, i]))
    const early = new Map<number, A>()
    let next = 0
    return onChain.pipe(
      Stream.map((record): ReadonlyArray<A> => {
        if (isDecodeError(record)) return [record]
        const at = rank.get(record.line)!
        if (at !== next) {
          early.set(at, record)
          return []
        }
        const out = [record]
        next++
        for (let held = early.get(next); held !== undefined; held = early.get(next)) {
          early.delete(next)
          out.push(held)
          next++
        }
        return out
      }),
      Stream.flattenIterable
    )
  })
}

/**
 * The messages of a transcript in conversation order (user and assistant entries, system ones when asked
 * for), a page of them, bad lines in-band: both passes over `records`, which is read twice.
 *
 * @internal
 */
export const conversation = <A extends TranscriptDecode.DecodedEntry | DecodeError, E, R>(
  records: Stream.Stream<A, E, R>,
  sidechains: boolean,
  options: {
    readonly limit?: number | undefined
    readonly offset?: number | undefined
    readonly includeSystemMessages?: boolean | undefined
    readonly onBadLine?: Ndjson.OnBadLine | undefined
  }
): Stream.Stream<Transcript.MessageEntry | Transcript.SystemEntry | Extract<A, DecodeError>, E, R> =>
  Stream.unwrap(Effect.map(build(records, sidechains, options.onBadLine), (chain) => {
    const includeSystem = options.includeSystemMessages === true
    const asMessage = (entry: Transcript.Entry): Transcript.Entry | undefined =>
      entry._tag === "AttachmentEntry" ? queuedPrompt(entry) : entry
    const messages = select(records, chain).pipe(
      Stream.filterMap((record): Result.Result<Transcript.MessageEntry | Transcript.SystemEntry | Extract<A, DecodeError>, void> => {
        if (isDecodeError(record)) return Result.succeed(record as Extract<A, DecodeError>)
        const entry = chain.queued.has(record.line) ? asMessage(record.entry) : record.entry
        return entry !== undefined && isMessage(entry, includeSystem)
          ? Result.succeed(entry as Transcript.MessageEntry | Transcript.SystemEntry)
          : Result.failVoid
      })
    )
    // Paging counts messages only; bad lines pass through.
    let skipped = 0
    let taken = 0
    const offset = options.offset ?? 0
    const limit = options.limit
    const paged = offset > 0 ? Stream.filter(messages, (item) => isDecodeError(item) || ++skipped > offset) : messages
    if (limit === undefined) return paged
    return limit <= 0 ? Stream.empty : Stream.takeUntil(paged, (item) => !isDecodeError(item) && ++taken >= limit)
  }))

const isMessage = (entry: Transcript.Entry, includeSystem: boolean) =>
  entry._tag === "AssistantEntry" || (entry._tag === "UserEntry" && entry.isMeta !== true) ||
  (includeSystem && Transcript.isSystem(entry))
