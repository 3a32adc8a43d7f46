/**
 * The branches of a stored conversation that a lease's holder does not go on from: a holder that lost the
 * lease mid-turn leaves its cut turn in the store (its prompt, its calls), and the next holder retries the
 * turn from the answer before it, so the conversation forks there. The store takes appends from the holder
 * alone, so the message it took last is on the live branch; at a fork on its way back where the live side
 * is a person's prompt, any other side that holds a prompt is a dead branch. The CLI must not see one: of
 * two ends it may resume at the dead one (CLI 2.1.332 takes a message nothing goes on from over the
 * retried answer, which an attachment follows), and `--resume-session-at` cannot leave the branch it took.
 * Other sides (tool results of parallel calls, attachments) are no branch and stay.
 *
 * @internal
 */
import type * as SessionStore from "../SessionStore.ts"

type Entry = SessionStore.Entry

const linked = (entry: Entry): entry is Entry & { readonly uuid: string } =>
  typeof entry.uuid === "string" && entry.isSidechain !== true

const isMessage = (entry: Entry) => linked(entry) && (entry.type === "user" || entry.type === "assistant")

// A person's prompt: a user message that is not tool results, a meta note or a compaction summary.
const isPrompt = (entry: Entry) => {
  if (entry.type !== "user" || entry.isMeta === true || entry.isCompactSummary === true) return false
  const content = (entry.message as { readonly content?: unknown } | undefined)?.content
  return typeof content === "string" ||
    (Array.isArray(content) && !content.some((block) => (block as { readonly type?: unknown })?.type === "tool_result"))
}

/**
 * The uuids of the main transcript's dead branches (see above); none when the conversation never forked so.
 *
 * @internal
 */
export const deadBranches = (entries: ReadonlyArray<Entry>): ReadonlySet<string> => {
  const parents = new Map<string, string>()
  const children = new Map<string, Array<Entry & { readonly uuid: string }>>()
  for (const entry of entries) {
    if (!linked(entry) || typeof entry.parentUuid !== "string") continue
    parents.set(entry.uuid, entry.parentUuid)
    children.set(entry.parentUuid, [...(children.get(entry.parentUuid) ?? []), entry])
  }
  const dead = new Set<string>()
  const leaf = entries.findLast(isMessage)
  if (leaf === undefined) return dead
  const live = new Set<string>()
  for (let uuid: string | undefined = leaf.uuid as string; uuid !== undefined && !live.has(uuid); uuid = parents.get(uuid)) {
    live.add(uuid)
  }
  // A side and what goes on from it (a uuid met twice is not followed again).
  const subtree = (root: Entry & { readonly uuid: string }) => {
    const found = new Map<string, Entry>()
    for (let next = [root]; next.length > 0;) {
      next = next.filter((entry) => !found.has(entry.uuid))
      for (const entry of next) found.set(entry.uuid, entry)
      next = next.flatMap((entry) => children.get(entry.uuid) ?? [])
    }
    return [...found.values()]
  }
  for (const uuid of live) {
    const sides = children.get(uuid) ?? []
    if (!sides.some((side) => live.has(side.uuid) && isPrompt(side))) continue
    for (const side of sides) {
      if (live.has(side.uuid)) continue
      const branch = subtree(side)
      if (branch.some(isPrompt)) for (const entry of branch) dead.add(entry.uuid as string)
    }
  }
  return dead
}
