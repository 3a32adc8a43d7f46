/**
 * A conversation in the order the CLI resumes it: from its last message back along `parentUuid` (across
 * compaction boundaries by `logicalParentUuid`), sidechains apart. Built in two passes over the transcript
 * so that memory holds only ids, never the messages: the first pass keeps each entry's parent and line, the
 * second emits the lines on the chain.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Transcript from "../../schema/Transcript.ts"
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
}

/** The uuid and parent of an entry that takes part in the conversation graph; `undefined` otherwise. */
export const link = (
  entry: Transcript.Entry
): { readonly uuid: string; readonly parent: string | undefined; readonly sidechain: boolean } | undefined => {
  if (Transcript.isConversation(entry)) {
    return { uuid: entry.uuid, parent: entry.parentUuid ?? entry.logicalParentUuid ?? undefined, sidechain: entry.isSidechain === true }
  }
  if (entry._tag !== "UnknownEntry") return undefined
  // Conversation entries of other CLI versions (`progress`, ...) still link the chain.
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

/**
 * The first pass: the chain ending at the last user or assistant entry. `sidechains: false` leaves out
 * entries marked `isSidechain` (the main transcript); subagent transcripts are all sidechain.
 *
 * @internal
 */
export const build = <E, R>(
  records: Stream.Stream<TranscriptDecode.DecodedEntry, E, R>,
  sidechains: boolean
): Effect.Effect<Chain, E, R> =>
  Effect.gen(function*() {
    const nodes = new Map<string, Node>()
    let leaf: string | undefined
    yield* Stream.runForEach(records, (record) =>
      Effect.sync(() => {
        const l = link(record.entry)
        if (l === undefined || (l.sidechain && !sidechains)) return
        nodes.set(l.uuid, { parent: l.parent, line: record.line })
        if (isTurn(record.entry)) leaf = l.uuid
      }))
    const lines: Array<number> = []
    const seen = new Set<string>()
    for (let uuid = leaf; uuid !== undefined && !seen.has(uuid);) {
      seen.add(uuid)
      const node = nodes.get(uuid)
      if (node === undefined) break
      lines.push(node.line)
      uuid = node.parent
    }
    lines.reverse()
    const parents = new Map<string, string | undefined>()
    for (const [uuid, node] of nodes) parents.set(uuid, node.parent)
    return { lines, parents }
  })

/**
 * The second pass: the records on the chain, in chain order. In file order when the chain is (the CLI
 * writes parents first); otherwise the chain's records are held and put in order.
 *
 * @internal
 */
export const select = <E, R>(
  records: Stream.Stream<TranscriptDecode.DecodedEntry, E, R>,
  chain: Chain
): Stream.Stream<TranscriptDecode.DecodedEntry, E, R> => {
  const wanted = new Set(chain.lines)
  const onChain = Stream.filter(records, (record) => wanted.has(record.line))
  const ordered = chain.lines.every((line, i) => i === 0 || chain.lines[i - 1]! < line)
  if (ordered) return onChain
  const rank = new Map(chain.lines.map((line, i) => [line, i]))
  return Stream.unwrap(
    Stream.runCollect(onChain).pipe(
      Effect.map((all) => Stream.fromIterable([...all].sort((a, b) => rank.get(a.line)! - rank.get(b.line)!)))
    )
  )
}

/**
 * The messages of a transcript in conversation order (user and assistant entries, system ones when asked
 * for), a page of them: both passes over `records`, which is read twice.
 *
 * @internal
 */
export const conversation = <E, R>(
  records: Stream.Stream<TranscriptDecode.DecodedEntry, E, R>,
  sidechains: boolean,
  options: {
    readonly limit?: number | undefined
    readonly offset?: number | undefined
    readonly includeSystemMessages?: boolean | undefined
  }
): Stream.Stream<Transcript.MessageEntry | Transcript.SystemEntry, E, R> =>
  Stream.unwrap(Effect.map(build(records, sidechains), (chain) => {
    const includeSystem = options.includeSystemMessages === true
    const messages = select(records, chain).pipe(
      Stream.map((record) => record.entry),
      Stream.filter((entry): entry is Transcript.MessageEntry | Transcript.SystemEntry =>
        entry._tag === "AssistantEntry" || (entry._tag === "UserEntry" && entry.isMeta !== true) ||
        (includeSystem && Transcript.isSystem(entry))
      )
    )
    const dropped = options.offset !== undefined && options.offset > 0 ? Stream.drop(messages, options.offset) : messages
    return options.limit !== undefined ? Stream.take(dropped, options.limit) : dropped
  }))
