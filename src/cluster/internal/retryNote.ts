/**
 * What a retried turn tells the model: the attempt before was cut short, and what it did, from the tool calls
 * and results the {@link TurnLog} kept while it ran (or that it called no tool). The model then goes on from
 * there instead of taking the prompt as new: a call without a result may have run, in part or whole.
 *
 * @internal
 */
import type * as Message from "../../schema/Message.ts"

// A result is quoted up to this many characters: enough to tell what happened, not to fill the context.
const quoted = 400

/** Whether a message carries a tool call or a tool result (what the log keeps of a running turn). */
export const isToolActivity = (message: Message.Message): boolean =>
  (message._tag === "AssistantMessage" && message.toolUses.length > 0) ||
  (message._tag === "UserMessage" && message.toolResults.length > 0)

const text = (content: unknown): string => {
  const flat = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((block) => typeof block?.text === "string" ? block.text : JSON.stringify(block)).join("\n")
    : ""
  return flat.length > quoted ? `${flat.slice(0, quoted)}...` : flat
}

/** What came of rewinding the interrupted attempt's files, in a sentence of the note. */
export interface Files {
  readonly note: string
  /** Whether files were rewound: what the attempt did to them is then undone. */
  readonly rewound: boolean
}

/**
 * The prompt of a retry: the note on the interrupted attempt (with what came of rewinding its files, when the
 * retry tried), then the prompt itself.
 */
export const prompt = (prompt: string, interrupted: ReadonlyArray<Message.Message>, files?: Files): string => {
  const results = new Map(
    interrupted.flatMap((m) => m._tag === "UserMessage" ? m.toolResults.map((r) => [r.tool_use_id, r] as const) : [])
  )
  const calls = interrupted.flatMap((m) => m._tag === "AssistantMessage" ? m.toolUses : []).map((call) => {
    const result = results.get(call.id)
    const outcome = result === undefined
      ? "no result was recorded: it may have run, in part or whole"
      : `${result.isError ? "it failed" : "its result"}: ${JSON.stringify(text(result.content))}`
    return `- ${call.name} ${JSON.stringify(call.input)}: ${outcome}`
  })
  const did = (calls.length === 0 ? "It called no tool." : `Its tool calls:\n${calls.join("\n")}`) +
    (files === undefined ? "" : `\n${files.note}`)
  const but = files?.rewound === true ? ", but for the files rewound" : ""
  return `[This prompt was sent before; that attempt was cut short (its runner stopped) before the turn ended. ${did}\n` +
    `Go on from there: do not take what it did as undone${but}.]\n\n${prompt}`
}
