/**
 * A conversation in the order the CLI resumes it: from its last message back along `parentUuid` (across
 * compaction boundaries by `logicalParentUuid`), sidechains apart. Built in two passes over the transcript
 * so that memory holds only ids, never the messages: the first pass keeps each entry's parent and line, the
 * second emits the lines on the chain.
 *
 * Bad lines come in-band as {@link DecodeError}s. With `onBadLine: "fail"` the chain is the one written
 * before the first bad line, followed by that line's error; with `"emit"` bad lines are left out of the
 * chain (a parent lost on one is bridged to the entry written before it) and passed on in file order.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Transcript from "../../schema/Transcript.ts"
import { DecodeError } from "../../stream/DecodeError.ts"
import type * as Ndjson from "../../stream/Ndjson.ts"
import type * as TranscriptDecode from "../../transcript/Decode.ts"

interface Node {
  readonly parent: string | undefined
  readonly line: number
}

/** @internal */
export interface Chain {
  /** The lines on the chain, in conversation order. */
  readonly lines: ReadonlyArray<number>
  /** Every uuid seen on a linkable entry, with its parent (for remapping a fork's parents). */
  readonly parents: ReadonlyMap<string, string | undefined>
  /** The first bad line with `onBadLine: "fail"`: the chain ends before it and its error follows. */
  readonly stop: number | undefined
}

/** The uuid and parent of an entry that takes part in the conversation graph; `undefined` otherwise. */
export const link = (
  entry: Transcript.Entry
): { readonly uuid: string; readonly parent: string | undefined; readonly sidechain: boolean } | undefined => {
  if (Transcript.isConversation(entry)) {
    return { uuid: entry.uuid, parent: entry.parentUuid ?? entry.logicalParentUuid ?? undefined, sidechain: entry.isSidechain === true }
  }
  if (entry._tag !== "UnknownEntry") return undefined
  // Conversation entries of other CLI versions still link the chain.
  const raw = entry.raw
  if (typeof raw.uuid !== "string" || !("parentUuid" in raw)) return undefined
  const parent = typeof raw.parentUuid === "string"
    ? raw.parentUuid
    : typeof raw.logicalParentUuid === "string"
    ? raw.logicalParentUuid
    : undefined
  return { uuid: raw.uuid, parent, sidechain: raw.isSidechain === true }
}

const isTurn = (entry: Transcript.Entry) => entry._tag === "UserEntry" || entry._tag === "AssistantEntry"

const isBad = (record: unknown): record is DecodeError => record instanceof DecodeError

/**
 * The first pass: the chain ending at the last user or assistant entry. `sidechains: false` leaves out
 * entries marked `isSidechain` (the main transcript); subagent transcripts are all sidechain.
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
        nodes.set(l.uuid, { parent: l.parent, line: record.line })
        last = l.uuid
        if (isTurn(record.entry)) leaf = l.uuid
        return true
      }))
    const lines: Array<number> = []
    const seen = new Set<string>()
    for (let uuid = leaf; uuid !== undefined && !seen.has(uuid);) {
      seen.add(uuid)
      const node = nodes.get(uuid)
      if (node === undefined) break
      lines.push(node.line)
      uuid = node.parent !== undefined && !nodes.has(node.parent) ? bridges.get(uuid) : node.parent
    }
    lines.reverse()
    const parents = new Map<string, string | undefined>()
    for (const [uuid, node] of nodes) parents.set(uuid, node.parent)
    return { lines, parents, stop }
  })

/**
 * The second pass: the records on the chain, in chain order, and the bad lines (see the module doc). In
 * file order when the chain is (the CLI writes parents first); otherwise the chain's records are held and
 * put in order, bad lines last.
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
  const rank = new Map(chain.lines.map((line, i) => [line, i]))
  const rankOf = (record: A) => isBad(record) ? chain.lines.length + record.line : rank.get(record.line)!
  return Stream.unwrap(
    Stream.runCollect(onChain).pipe(
      Effect.map((all) => Stream.fromIterable([...all].sort((a, b) => rankOf(a) - rankOf(b))))
    )
  )
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
    const messages = select(records, chain).pipe(
      Stream.filter((record) => isBad(record) || isMessage(record.entry, includeSystem)),
      Stream.map((record) =>
        (isBad(record) ? record : record.entry) as Transcript.MessageEntry | Transcript.SystemEntry | Extract<A, DecodeError>
      )
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
