/**
 * An attempt's tool calls as its progress was logged: one assistant message calling each tool given (no
 * results yet), for a turn log to hold as a cut attempt's progress.
 */
import * as TurnLog from "../../../src/cluster/TurnLog.ts"
import type * as Message from "../../../src/schema/Message.ts"

export const calling = (calls: ReadonlyArray<{ readonly name: string; readonly input: Record<string, unknown> }>): Array<Message.Message> =>
  TurnLog.decodeAll([{
    type: "assistant",
    uuid: "a1",
    session_id: "s",
    parent_tool_use_id: null,
    message: {
      id: "m1",
      type: "message",
      role: "assistant",
      model: "scripted",
      content: calls.map((call, i) => ({ type: "tool_use", id: `t${i}`, ...call })),
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 }
    }
  }]).filter((m): m is Message.Message => m._tag === "AssistantMessage")
