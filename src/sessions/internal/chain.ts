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
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Transcript from "../../schema/Transcript.ts"
import { DecodeError } from "../../stream/DecodeError.ts"
import type * as Ndjson from "../../stream/Ndjson.ts"
import type * as TranscriptDecode from "../../transcript/Decode.ts"

interface Node {
  // A compaction that kept recent messages moves them after its summary (see `relink`).
  parent: string | undefined
  readonly line: number
  readonly turn?: Turn | undefined
  /** A person's prompt (a user entry that is not a tool result, a meta note or a compaction summary). */
  readonly prompt?: boolean | undefined
  /** The uuid a prompt queued mid-turn takes as a user message. */
  readonly queued?: string | undefined
  /** A user or assistant entry. */
  readonly message: boolean
  /** Can end the conversation (not progress, nor a fork's briefing). */
  readonly ends: boolean
}

/** What ties the entries of parallel tool calls: an assistant entry's API message, or a user entry's results. */
interface Turn {
  readonly kind: "assistant" | "result"
  /** The API message id of an assistant entry. */
  readonly message?: string | undefined
  /** The `tool_use` ids of an assistant entry, the `tool_use_id`s of a user entry's results. */
  readonly ids: ReadonlyArray<string>
  readonly source?: string | undefined
  readonly timestamp: string
  /** Sidechain and agent: a result ties only to a call on the same side. */
  readonly side: string
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

const turnOf = (entry: Transcript.Entry): Turn | undefined => {
  if (entry._tag !== "AssistantEntry" && entry._tag !== "UserEntry") return undefined
  const side = `${entry.isSidechain === true}/${entry.agentId ?? ""}`
  if (entry._tag === "AssistantEntry") {
    return {
      kind: "assistant",
      message: entry.message.id,
      ids: blockIds(entry.message.content, "tool_use", "id"),
      timestamp: entry.timestamp ?? "",
      side
    }
  }
  if (entry.parentUuid == null) return undefined
  const ids = blockIds(entry.message.content, "tool_result", "tool_use_id")
  if (ids.length === 0) return undefined
  return { kind: "result", ids, source: entry.sourceToolAssistantUUID, timestamp: entry.timestamp ?? "", side }
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

const isBad = (record: unknown): record is DecodeError => record instanceof DecodeError

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
    const nodes = new Map<string, Node>()
    // An entry written right after bad lines (no entry of the graph between) whose parent is lost on one of
    // them goes on from the entry written before them.
    const bridges = new Map<string, string>()
    let last: string | undefined
    let afterBad = false
    let leaf: string | undefined
    let stop: number | undefined
    const compactions: Array<{ readonly [key: string]: unknown }> = []
    yield* Stream.runForEachWhile(records, (record) =>
      Effect.sync(() => {
        if (isBad(record)) {
          if (onBadLine === "fail") {
            stop = record.line
            return false
          }
          afterBad = true
          return true
        }
        const l = link(record.entry)
        if (l === undefined || (l.sidechain && !sidechains)) return true
        if (afterBad && last !== undefined && l.parent !== undefined && !nodes.has(l.parent)) bridges.set(l.uuid, last)
        afterBad = false
        const entry = record.entry
        if (entry._tag === "CompactBoundaryEntry" && entry.compactMetadata !== undefined) compactions.push(entry.compactMetadata)
        const turn = turnOf(entry)
        const prompt = entry._tag === "UserEntry" && turn === undefined && entry.isMeta !== true && entry.isCompactSummary !== true
        const queued = entry._tag === "AttachmentEntry" ? queuedPrompt(entry)?.uuid : undefined
        const ends = entry._tag !== "ProgressEntry" &&
          !(entry._tag === "AttachmentEntry" && entry.attachment.type === "fork_briefing")
        nodes.set(l.uuid, { parent: l.parent, line: record.line, turn, prompt, queued, message: isTurn(entry), ends })
        last = l.uuid
        if (isTurn(record.entry)) leaf = l.uuid
        return true
      }))
    if (!sidechains) for (const metadata of compactions) relink(nodes, metadata)
    const up = (uuid: string) => {
      const parent = nodes.get(uuid)!.parent
      return parent !== undefined && !nodes.has(parent) ? bridges.get(uuid) : parent
    }
    const chain: Array<string> = []
    const seen = new Set<string>()
    for (let uuid = sidechains ? leaf : lastEnd(nodes, up) ?? leaf; uuid !== undefined && !seen.has(uuid); uuid = up(uuid)) {
      seen.add(uuid)
      chain.push(uuid)
    }
    chain.reverse()
    const ordered = sidechains ? chain : withSiblings(nodes, chain)
    const lines = ordered.map((uuid) => nodes.get(uuid)!.line)
    return { lines, stop, queued: sidechains ? new Set() : answered(nodes, ordered) }
  })

/**
 * Where the main conversation ends, as the SDK finds it: of the entries nothing goes on from, the one written
 * last whose way back reaches a user or assistant entry not reached from one written later; that entry.
 */
const lastEnd = (nodes: ReadonlyMap<string, Node>, up: (uuid: string) => string | undefined) => {
  const parents = new Set<string>()
  for (const node of nodes.values()) if (node.ends && node.parent !== undefined) parents.add(node.parent)
  const ends: Array<string> = []
  for (const [uuid, node] of nodes) if (node.ends && !parents.has(uuid)) ends.push(uuid)
  ends.sort((a, b) => nodes.get(b)!.line - nodes.get(a)!.line)
  const reached = new Set<string>()
  for (const end of ends) {
    const path = new Set<string>()
    for (let uuid: string | undefined = end; uuid !== undefined && !reached.has(uuid) && !path.has(uuid); uuid = up(uuid)) {
      if (nodes.get(uuid)!.message) return uuid
      path.add(uuid)
    }
    for (const uuid of path) reached.add(uuid)
  }
  return undefined
}

const isRecord = (value: unknown): value is { readonly [key: string]: unknown } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * A compaction that kept recent messages (`preservedMessages` or `preservedSegment` in its metadata) puts them
 * after its anchor, and what followed the anchor after them, as the SDK and the CLI read it.
 */
const relink = (nodes: Map<string, Node>, metadata: { readonly [key: string]: unknown }) => {
  const setParent = (uuid: string, parent: unknown) => {
    const node = nodes.get(uuid)
    if (node !== undefined) node.parent = typeof parent === "string" ? parent : undefined
  }
  const moveChildren = (anchor: unknown, except: unknown, to: unknown) => {
    if (typeof anchor !== "string") return
    for (const [uuid, node] of nodes) if (node.parent === anchor && uuid !== except) setParent(uuid, to)
  }
  const messages = metadata.preservedMessages
  const segment = metadata.preservedSegment
  if (isRecord(messages)) {
    const uuids = messages.uuids
    if (!Array.isArray(uuids) || uuids.length === 0 || uuids.some((u) => typeof u !== "string" || !nodes.has(u))) return
    let parent = messages.anchorUuid
    for (const uuid of uuids as ReadonlyArray<string>) {
      setParent(uuid, parent)
      parent = uuid
    }
    moveChildren(messages.anchorUuid, uuids[0], uuids.at(-1))
  } else if (isRecord(segment)) {
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
const answered = (nodes: ReadonlyMap<string, Node>, ordered: ReadonlyArray<string>): ReadonlySet<number> => {
  const lines = new Set<number>()
  const uuids = new Set(ordered)
  let next: "reply" | "prompt" | undefined
  for (let i = ordered.length - 1; i >= 0; i--) {
    const node = nodes.get(ordered[i]!)!
    if (node.queued !== undefined && next === "reply" && (node.queued === ordered[i] || !uuids.has(node.queued))) {
      lines.add(node.line)
    }
    if (node.turn !== undefined) next = "reply"
    else if (node.prompt === true) next = "prompt"
  }
  return lines
}

/**
 * The chain with the sibling branches of parallel tool calls put back, as the SDK's `getSessionMessages`
 * does: for each API message on the chain, its entries off the chain, then the results of its calls off the
 * chain (each set by timestamp), right after the message's last entry on the chain.
 */
const withSiblings = (nodes: ReadonlyMap<string, Node>, chain: ReadonlyArray<string>): ReadonlyArray<string> => {
  const turn = (uuid: string) => nodes.get(uuid)?.turn
  const assistants = chain.filter((uuid) => turn(uuid)?.kind === "assistant")
  if (assistants.length === 0) return chain
  const onChain = new Set(chain)
  const lastOnChain = new Map<string, string>()
  for (const uuid of assistants) {
    const message = turn(uuid)!.message
    if (message !== undefined) lastOnChain.set(message, uuid)
  }
  const byMessage = new Map<string, Array<string>>()
  // A call's entry; null when entries of two API messages claim the same call.
  const caller = new Map<string, string | null>()
  const results: Array<string> = []
  for (const [uuid, node] of nodes) {
    const t = node.turn
    if (t?.kind === "result") results.push(uuid)
    if (t?.kind !== "assistant" || t.message === undefined) continue
    const group = byMessage.get(t.message)
    if (group === undefined) byMessage.set(t.message, [uuid])
    else group.push(uuid)
    for (const id of t.ids) {
      const other = caller.get(id)
      caller.set(id, other === undefined || (other !== null && turn(other)!.message === t.message) ? uuid : null)
    }
  }
  const children = new Map<string, Array<string>>()
  const linked = new Set<string>()
  const addChild = (parent: string, uuid: string) => {
    if (linked.has(`${parent}\n${uuid}`)) return
    linked.add(`${parent}\n${uuid}`)
    const list = children.get(parent)
    if (list === undefined) children.set(parent, [uuid])
    else list.push(uuid)
  }
  for (const uuid of results) {
    const node = nodes.get(uuid)!
    const t = node.turn!
    addChild(node.parent!, uuid)
    if (t.source !== undefined && t.source !== node.parent && turn(t.source)?.side === t.side) addChild(t.source, uuid)
    for (const id of t.ids) {
      const call = caller.get(id)
      if (call != null && turn(call)!.side === t.side) addChild(call, uuid)
    }
  }
  const answered = new Set<string>()
  for (const uuid of chain) if (turn(uuid)?.kind === "result") for (const id of turn(uuid)!.ids) answered.add(id)
  const byTimestamp = (a: string, b: string) => turn(a)!.timestamp.localeCompare(turn(b)!.timestamp)
  const inserts = new Map<string, Array<string>>()
  const done = new Set<string>()
  for (const uuid of assistants) {
    const message = turn(uuid)!.message
    if (message === undefined || done.has(message)) continue
    done.add(message)
    const group = byMessage.get(message) ?? [uuid]
    const inGroup = new Set(group)
    const calls = group.filter((entry) => !onChain.has(entry))
    const direct: Array<string> = []
    const indirect: Array<string> = []
    const met = new Set<string>()
    for (const entry of group) {
      for (const child of children.get(entry) ?? []) {
        if (onChain.has(child) || met.has(child)) continue
        met.add(child)
        if (inGroup.has(nodes.get(child)!.parent!)) direct.push(child)
        else indirect.push(child)
      }
    }
    if (indirect.length > 0) {
      // A result hanging elsewhere counts only for a call of this message that nothing answered yet.
      const covered = new Set(answered)
      for (const child of direct) for (const id of turn(child)!.ids) covered.add(id)
      indirect.sort((a, b) => nodes.get(a)!.line - nodes.get(b)!.line)
      for (const child of indirect) {
        const ids = turn(child)!.ids
        if (!ids.some((id) => !covered.has(id) && inGroup.has(caller.get(id) ?? ""))) continue
        for (const id of ids) covered.add(id)
        direct.push(child)
      }
    }
    if (calls.length === 0 && direct.length === 0) continue
    const put = [...calls.sort(byTimestamp), ...direct.sort(byTimestamp)]
    for (const entry of put) onChain.add(entry)
    inserts.set(lastOnChain.get(message)!, put)
  }
  if (inserts.size === 0) return chain
  return chain.flatMap((uuid) => [uuid, ...(inserts.get(uuid) ?? [])])
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
    isBad(record) ? chain.stop === undefined || record.line === chain.stop : wanted.has(record.line))
  const onChain = chain.stop === undefined ? kept : Stream.takeUntil(kept, isBad)
  const ordered = chain.lines.every((line, i) => i === 0 || chain.lines[i - 1]! < line)
  if (ordered) return onChain
  // Only the records read before their place are held, until the records before them come.
  return Stream.suspend(() => {
    const rank = new Map(chain.lines.map((line, i) => [line, i]))
    const early = new Map<number, A>()
    let next = 0
    return onChain.pipe(
      Stream.map((record): ReadonlyArray<A> => {
        if (isBad(record)) return [record]
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
        if (isBad(record)) return Result.succeed(record as Extract<A, DecodeError>)
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
    const paged = offset > 0 ? Stream.filter(messages, (item) => isBad(item) || ++skipped > offset) : messages
    if (limit === undefined) return paged
    return limit <= 0 ? Stream.empty : Stream.takeUntil(paged, (item) => !isBad(item) && ++taken >= limit)
  }))

const isMessage = (entry: Transcript.Entry, includeSystem: boolean) =>
  entry._tag === "AssistantEntry" || (entry._tag === "UserEntry" && entry.isMeta !== true) ||
  (includeSystem && Transcript.isSystem(entry))
