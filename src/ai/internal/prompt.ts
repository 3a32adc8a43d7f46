/**
 * A `Prompt` as one Claude Code turn: its system messages join the system prompt, a lone user message is the
 * turn's text, and a longer history (one the CLI has not seen as a session) is written out as a transcript
 * before the last message.
 *
 * @internal
 */
import * as AiError from "effect/ai/AiError"
import type * as Prompt from "effect/ai/Prompt"
import * as Effect from "effect/Effect"

export interface Turn {
  readonly system: string | undefined
  readonly text: string
}

const json = (value: unknown): string => typeof value === "string" ? value : JSON.stringify(value)

const partText = (part: Prompt.Message["content"][number] | string): string | undefined => {
  if (typeof part === "string") return part
  switch (part.type) {
    case "text":
      return part.text
    case "reasoning":
      return undefined
    case "tool-call":
      return `[called ${part.name} with ${json(part.params)}]`
    case "tool-result":
      return `[${part.name} ${part.isFailure ? "failed" : "returned"}: ${json(part.result)}]`
    default:
      return undefined
  }
}

const messageText = (message: Prompt.Message): string =>
  typeof message.content === "string"
    ? message.content
    : message.content.flatMap((part) => {
      const text = partText(part)
      return text === undefined ? [] : [text]
    }).join("\n")

const speaker = { user: "User", assistant: "Assistant", tool: "Tool" } as const

export const render = (prompt: Prompt.Prompt, module: string, method: string): Effect.Effect<Turn, AiError.AiError> => {
  const system: Array<string> = []
  const turns: Array<Exclude<Prompt.Message, Prompt.SystemMessage>> = []
  for (const message of prompt.content) {
    if (message.role === "system") system.push(message.content)
    else turns.push(message)
  }
  // Files would need the CLI's stream-json input with content blocks; a text turn cannot carry them.
  const file = turns.some((m) => typeof m.content !== "string" && m.content.some((p) => p.type === "file"))
  if (file) {
    return Effect.fail(AiError.make({
      module,
      method,
      reason: new AiError.InvalidUserInputError({ description: "Claude Code prompts take text only; a file part was given" })
    }))
  }
  const last = turns.at(-1)
  const earlier = turns.slice(0, -1)
  const text = earlier.length === 0
    ? last === undefined ? "" : messageText(last)
    : [
      "The conversation so far:",
      ...earlier.map((m) => `${speaker[m.role]}: ${messageText(m)}`),
      "",
      last === undefined ? "" : messageText(last)
    ].join("\n\n")
  return Effect.succeed({ system: system.length === 0 ? undefined : system.join("\n\n"), text })
}
