/**
 * The chaos run's scripted model (`npm run chaos`): each session's turns are asked by id in their prompt
 * ("chaos s03-t5 (tool)"); a turn runs a Bash command (short, or long enough for faults to land mid-tool) or
 * none, then answers with a text no other answer has ("answer s03-t5 #17", a counter of the model's answers),
 * so that an answer given twice shows as two texts. What the model was asked is read back from the scripted
 * server's request log by {@link classify}.
 */
import { Option } from "effect"
import * as path from "node:path"
import { MessagesRequest, Script } from "../../src/testing/index.ts"

/** A turn's kind: a short Bash command, a long one, or no tool. */
export type Kind = "tool" | "slow" | "plain"

export const turnId = (session: string, n: number) => `${session}-t${n}`

/** Each turn's kind, from the seed and its id: a client that comes back asks the same prompt. */
export const kindOf = (seed: number, id: string): Kind => {
  let hash = seed >>> 0
  for (const char of id) hash = Math.imul(hash ^ char.charCodeAt(0), 2654435761) >>> 0
  const draw = (hash >>> 8) % 100
  return draw < 55 ? "tool" : draw < 80 ? "slow" : "plain"
}

export const prompt = (seed: number, id: string) => `chaos ${id} (${kindOf(seed, id)}): go on.`

/** The file every Bash command of the run appends its turn's id to, once per run of the command. */
export const runsFile = (cwd: string) => path.join(cwd, "chaos-tool-runs.log")

/** How long each kind's command sleeps (seconds). */
const sleeps: Record<Kind, number> = { tool: 0.3, slow: 8, plain: 0 }

const command = (cwd: string, id: string, kind: Kind) => `echo ${id} >> ${runsFile(cwd)}; sleep ${sleeps[kind]}`

const asked = /chaos (s\d+-t\d+) \((tool|slow|plain)\)/g
// How AgentSession's note on a retried turn begins (its prompt then names the cut attempt's tool calls).
const retryNote = "This prompt was sent before"

type Block = { readonly type: string; readonly text?: unknown }
const blocks = (m: MessagesRequest.Message): ReadonlyArray<Block> =>
  typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as ReadonlyArray<Block>)
const textOf = (m: MessagesRequest.Message) => blocks(m).flatMap((b) => b.type === "text" ? [String(b.text)] : []).join("\n")

/** What a model request asks: which turn, and whether its answer ends the turn (no tool to run first). */
export interface Asked {
  readonly id: string
  readonly kind: Kind
  readonly final: boolean
}

/**
 * The turn a request asks for: the last user message naming a turn is its prompt; a request that ends with
 * tool results, a turn of no tool, and a retry told that its cut attempt already called the tool are answered
 * with the turn's end. Undefined for a request of no chaos turn.
 */
export const classify = (request: MessagesRequest.MessagesRequest): Asked | undefined => {
  const users = request.messages.filter((m) => m.role === "user")
  const promptMessage = users.findLast((m) => [...textOf(m).matchAll(asked)].length > 0)
  if (promptMessage === undefined) return undefined
  const text = textOf(promptMessage)
  const [, id, kind] = [...text.matchAll(asked)].at(-1)!
  const last = request.messages.at(-1)
  const afterTool = last?.role === "user" && blocks(last).some((b) => b.type === "tool_result")
  const ranBefore = text.includes(retryNote) && text.includes(`${id} >> `)
  return { id: id!, kind: kind as Kind, final: afterTool || kind === "plain" || ranBefore }
}

/** The unique answer texts of turn `id` in `text`. */
export const answersIn = (text: string, id: string): ReadonlySet<string> =>
  new Set(text.match(new RegExp(`answer ${id} #\\d+`, "g")) ?? [])

/** A reply of the model to a chaos turn's request, for a look at a run (`CHAOS_KEEP`): when, to what. */
export interface Reply {
  readonly at: number
  readonly id: string
  readonly final: boolean
  readonly answer: string | undefined
}

/**
 * The script: one conversation answering every request, its reply computed from the request (the server
 * looks the conversation up, then its turn, at once: the request the reply is for is the one just matched).
 */
export const script = (cwd: string): Script.Script & { readonly replies: ReadonlyArray<Reply> } => {
  let answers = 0
  let current: MessagesRequest.MessagesRequest | undefined
  const replies: Array<Reply> = []
  const reply = (): Script.Turn => {
    const asked = current === undefined ? undefined : classify(current)
    if (asked === undefined) return Script.turn("Scripted session")
    replies.push({ at: Date.now(), id: asked.id, final: asked.final, answer: asked.final ? `answer ${asked.id} #${answers + 1}` : undefined })
    if (asked.final) return Script.turn(`answer ${asked.id} #${++answers}`)
    return Script.turn([Script.text("Running it."), Script.toolUse("Bash", { command: command(cwd, asked.id, asked.kind) })])
  }
  const turns = new Proxy([] as Array<Script.Turn>, {
    get: (target, key) => typeof key === "string" && /^\d+$/.test(key) ? reply() : Reflect.get(target, key)
  })
  return {
    conversations: [Script.conversation("chaos", (request) => (current = request, true), turns)],
    sideReply: "Scripted session",
    replies
  }
}

/** The decoded body of a recorded request. */
export const decoded = (body: unknown) => Option.getOrUndefined(MessagesRequest.decode(body))
