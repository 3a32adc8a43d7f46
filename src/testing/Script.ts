/**
 * What the scripted model answers, turn by turn. Build a {@link Script} with {@link make} from {@link turn}s.
 * A request goes to the first {@link Conversation} whose `when` accepts it (the main one comes last), and its
 * turn is the number of assistant messages already in it: retries land on the same turn, so a turn's
 * `failures` are served to its first attempts.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import { dual } from "effect/Function"
import * as MessagesRequest from "./MessagesRequest.ts"

/**
 * @since 0.1.0
 * @category models
 */
export interface TextBlock {
  readonly type: "text"
  readonly text: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ThinkingBlock {
  readonly type: "thinking"
  readonly thinking: string
  readonly signature: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolUseBlock {
  readonly type: "tool_use"
  /** Defaults to an id derived from the conversation, turn and block index. */
  readonly id?: string | undefined
  readonly name: string
  readonly input: unknown
}

/**
 * A content block of a scripted assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export type Block = TextBlock | ThinkingBlock | ToolUseBlock

/**
 * @since 0.1.0
 * @category models
 */
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "pause_turn" | "refusal"

/**
 * Usage figures reported in `message_start` (input side) and `message_delta` (output tokens).
 *
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_creation_input_tokens: number
  readonly cache_read_input_tokens: number
}

/**
 * An HTTP error answered instead of a turn, with Anthropic's error JSON
 * (`{"type":"error","error":{"type":...,"message":...}}`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ApiError {
  readonly status: number
  readonly type: string
  readonly message: string
  /** Sent as the `retry-after` header (seconds), which the CLI honours. */
  readonly retryAfterSeconds?: number | undefined
}

/**
 * One assistant message of a conversation.
 *
 * @since 0.1.0
 * @category models
 */
export interface Turn {
  readonly content: ReadonlyArray<Block>
  readonly stopReason: StopReason
  readonly usage: Usage
  /** Answered, in order, to the first attempts of this turn before the turn itself. */
  readonly failures: ReadonlyArray<ApiError>
  /** Pause before each SSE event. */
  readonly eventDelay?: Duration.Input | undefined
  /** Characters per `text_delta` / `thinking_delta` / `input_json_delta`; by default each is split in three. */
  readonly chunkSize?: number | undefined
  /** Overrides the model echoed in `message_start` (defaults to the requested model). */
  readonly model?: string | undefined
}

/**
 * A sequence of turns and the requests it answers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Conversation {
  readonly name: string
  readonly when: (request: MessagesRequest.MessagesRequest) => boolean
  readonly turns: ReadonlyArray<Turn>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Script {
  /** Tried in order; the first whose `when` accepts a request answers it. */
  readonly conversations: ReadonlyArray<Conversation>
  /** Text of non-streaming side requests (titles, summaries); they never consume turns. */
  readonly sideReply: string
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const text = (text: string): TextBlock => ({ type: "text", text })

/**
 * @since 0.1.0
 * @category constructors
 */
export const thinking = (thinking: string, signature = "c2NyaXB0ZWQtc2lnbmF0dXJl"): ThinkingBlock => ({
  type: "thinking",
  thinking,
  signature
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const toolUse = (name: string, input: unknown, id?: string): ToolUseBlock => ({
  type: "tool_use",
  name,
  input,
  id
})

/**
 * @since 0.1.0
 * @category models
 */
export interface TurnOptions {
  readonly stopReason?: StopReason | undefined
  readonly usage?: Partial<Usage> | undefined
  readonly failures?: ReadonlyArray<ApiError> | undefined
  readonly eventDelay?: Duration.Input | undefined
  readonly chunkSize?: number | undefined
  readonly model?: string | undefined
}

const defaultUsage: Usage = {
  input_tokens: 100,
  output_tokens: 20,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0
}

/**
 * A turn from content blocks (a string is one text block). The stop reason defaults to `tool_use`
 * when the turn calls a tool, `end_turn` otherwise.
 *
 * @example
 * ```ts
 * import { Script } from "effect-claude-code/testing"
 *
 * const turn = Script.turn([Script.text("Reading it."), Script.toolUse("Read", { file_path: "/tmp/a.txt" })])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const turn = (content: string | Block | ReadonlyArray<Block>, options: TurnOptions = {}): Turn => {
  const blocks: ReadonlyArray<Block> = typeof content === "string"
    ? [text(content)]
    : Array.isArray(content)
    ? content
    : [content as Block]
  return {
    content: blocks,
    stopReason: options.stopReason ?? (blocks.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
    usage: { ...defaultUsage, ...options.usage },
    failures: options.failures ?? [],
    eventDelay: options.eventDelay,
    chunkSize: options.chunkSize,
    model: options.model
  }
}

/**
 * Serve `failures` to the first attempts of a turn before the turn itself.
 *
 * @since 0.1.0
 * @category combinators
 */
export const failFirst: {
  (failures: ReadonlyArray<ApiError>): (self: Turn) => Turn
  (self: Turn, failures: ReadonlyArray<ApiError>): Turn
} = dual(2, (self: Turn, failures: ReadonlyArray<ApiError>): Turn => ({
  ...self,
  failures: [...self.failures, ...failures]
}))

/**
 * The same error for `n` attempts, for {@link failFirst} or `failures`.
 *
 * @since 0.1.0
 * @category errors
 */
export const times = (n: number, error: ApiError): ReadonlyArray<ApiError> => Array.from({ length: n }, () => error)

/**
 * @since 0.1.0
 * @category errors
 */
export const overloaded = (message = "Overloaded"): ApiError => ({ status: 529, type: "overloaded_error", message })

/**
 * @since 0.1.0
 * @category errors
 */
export const rateLimited = (retryAfterSeconds?: number): ApiError => ({
  status: 429,
  type: "rate_limit_error",
  message: "Number of request tokens has exceeded your per-minute rate limit",
  retryAfterSeconds
})

/**
 * @since 0.1.0
 * @category errors
 */
export const serverError = (message = "Internal server error"): ApiError => ({ status: 500, type: "api_error", message })

/**
 * A 400: the CLI does not retry it.
 *
 * @since 0.1.0
 * @category errors
 */
export const invalidRequest = (message: string): ApiError => ({ status: 400, type: "invalid_request_error", message })

/**
 * A conversation answering the requests `when` accepts, e.g. a subagent's (Task tool), whose requests
 * carry their own conversation starting from the Task prompt.
 *
 * @since 0.1.0
 * @category constructors
 */
export const conversation = (
  name: string,
  when: (request: MessagesRequest.MessagesRequest) => boolean,
  turns: ReadonlyArray<Turn>
): Conversation => ({ name, when, turns })

/**
 * A script whose main conversation is `turns`; `subagents` are tried first.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  turns: ReadonlyArray<Turn>,
  options: { readonly subagents?: ReadonlyArray<Conversation>; readonly sideReply?: string } = {}
): Script => ({
  conversations: [...(options.subagents ?? []), conversation("main", () => true, turns)],
  sideReply: options.sideReply ?? "Scripted session"
})

/**
 * Where a request lands in a script: its conversation and turn index (the turn is `undefined` when the
 * conversation has no turn that far).
 *
 * @since 0.1.0
 * @category models
 */
export interface Position {
  readonly conversation: string
  readonly index: number
  readonly turn: Turn | undefined
}

/**
 * @since 0.1.0
 * @category selection
 */
export const locate = (script: Script, request: MessagesRequest.MessagesRequest): Position => {
  const found = script.conversations.find((c) => c.when(request))
  const index = MessagesRequest.assistantTurns(request)
  return found === undefined
    ? { conversation: "(none)", index, turn: undefined }
    : { conversation: found.name, index, turn: found.turns[index] }
}

/**
 * What to answer at a position on its `attempt`-th request (0-based).
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Answer"; readonly turn: Turn }
  | { readonly _tag: "Fail"; readonly error: ApiError }
  | { readonly _tag: "Exhausted"; readonly error: ApiError }

/**
 * @since 0.1.0
 * @category selection
 */
export const outcome = (position: Position, attempt: number): Outcome => {
  const turn = position.turn
  if (turn === undefined) {
    return {
      _tag: "Exhausted",
      error: invalidRequest(
        `scripted server: conversation "${position.conversation}" has no turn ${position.index} (attempt ${attempt})`
      )
    }
  }
  const failure = turn.failures[attempt]
  return failure === undefined ? { _tag: "Answer", turn } : { _tag: "Fail", error: failure }
}
