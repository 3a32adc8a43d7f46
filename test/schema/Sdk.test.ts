/**
 * One value per variant of the official SDK's `SDKMessage` (and the control
 * frames it exports), each typed against the SDK's own declaration so the
 * compiler checks it is a valid SDK message; each must decode to our variant.
 */
import type {
  SDKAPIRetryMessage,
  SDKAssistantMessage,
  SDKAuthStatusMessage,
  SDKBackgroundTasksChangedMessage,
  SDKCommandsChangedMessage,
  SDKCompactBoundaryMessage,
  SDKControlRequest,
  SDKControlRequestProgressMessage,
  SDKControlResponse,
  SDKConversationResetMessage,
  SDKElicitationCompleteMessage,
  SDKFilesPersistedEvent,
  SDKHookProgressMessage,
  SDKHookResponseMessage,
  SDKHookStartedMessage,
  SDKInformationalMessage,
  SDKLocalCommandOutputMessage,
  SDKMemoryRecallMessage,
  SDKMessage,
  SDKMirrorErrorMessage,
  SDKModelRefusalFallbackMessage,
  SDKModelRefusalNoFallbackMessage,
  SDKNotificationMessage,
  SDKPartialAssistantMessage,
  SDKPermissionDeniedMessage,
  SDKPluginInstallMessage,
  SDKPromptSuggestionMessage,
  SDKRateLimitEvent,
  SDKResultError,
  SDKResultSuccess,
  SDKSessionStateChangedMessage,
  SDKSessionWritesLostMessage,
  SDKStatusMessage,
  SDKSystemMessage,
  SDKTaskNotificationMessage,
  SDKTaskProgressMessage,
  SDKTaskStartedMessage,
  SDKTaskUpdatedMessage,
  SDKThinkingTokensMessage,
  SDKToolProgressMessage,
  SDKToolUseSummaryMessage,
  SDKUserMessage,
  SDKUserMessageReplay,
  SDKWorkerShuttingDownMessage
} from "@anthropic-ai/claude-agent-sdk"
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import { decodeMessage, encodeMessage, type Message } from "../../src/schema/Message.ts"

const uuid = "00000000-0000-4000-8000-000000000001"
const base = { uuid, session_id: "session-1" } as const
const usage = {
  input_tokens: 10,
  output_tokens: 5,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
  server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
  service_tier: "standard",
  inference_geo: null,
  iterations: null,
  output_tokens_details: null,
  fallback_credit: null,
  speed: null
} as const
const apiMessage: SDKAssistantMessage["message"] = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  container: null,
  context_management: null,
  diagnostics: null,
  stop_details: null,
  stop_reason: "tool_use",
  stop_sequence: null,
  usage,
  content: [
    { type: "text", text: "Reading.", citations: null },
    { type: "thinking", thinking: "hmm", signature: "sig" },
    { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/a" } }
  ]
}
// Results carry `NonNullableUsage`: every field set.
const resultUsage = {
  ...usage,
  inference_geo: "us",
  iterations: [] as Array<never>,
  output_tokens_details: { thinking_tokens: 0 },
  speed: "standard"
} as const
const summary = {
  duration_ms: 10,
  duration_api_ms: 8,
  is_error: false,
  num_turns: 1,
  stop_reason: "end_turn",
  total_cost_usd: 0.01,
  usage: resultUsage,
  modelUsage: {
    "claude-sonnet-4-5": {
      inputTokens: 10,
      outputTokens: 5,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      webSearchRequests: 0,
      costUSD: 0.01,
      contextWindow: 200000,
      maxOutputTokens: 32000
    }
  },
  permission_denials: [{ tool_name: "Write", tool_use_id: "toolu_2", tool_input: { file_path: "/b" } }]
}
const hook = { hook_id: "h1", hook_name: "SessionStart:startup", hook_event: "SessionStart" }
const retry = { attempt: 1, max_retries: 3, retry_delay_ms: 500, error_status: 529 }

const assistant: SDKAssistantMessage = { type: "assistant", message: apiMessage, parent_tool_use_id: null, ...base }
const user: SDKUserMessage = {
  type: "user",
  message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
  parent_tool_use_id: null,
  tool_use_result: { stdout: "ok", stderr: "", interrupted: false },
  ...base
}
const replay: SDKUserMessageReplay = {
  type: "user",
  message: { role: "user", content: "hello" },
  parent_tool_use_id: null,
  isReplay: true,
  ...base
}
const success: SDKResultSuccess = { type: "result", subtype: "success", result: "done", ...summary, ...base }
const errorResult: SDKResultError = {
  type: "result",
  subtype: "error_max_turns",
  errors: ["max turns"],
  ...summary,
  is_error: true,
  ...base
}
const init: SDKSystemMessage = {
  type: "system",
  subtype: "init",
  apiKeySource: "ANTHROPIC_API_KEY",
  claude_code_version: "2.1.330",
  cwd: "/w",
  tools: ["Read"],
  mcp_servers: [{ name: "m", status: "connected" }],
  model: "claude-sonnet-4-5",
  permissionMode: "acceptEdits",
  slash_commands: ["compact"],
  output_style: "default",
  skills: [],
  plugins: [{ name: "p", path: "/p" }],
  ...base
}
const partial: SDKPartialAssistantMessage = {
  type: "stream_event",
  event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
  parent_tool_use_id: null,
  ...base
}
const compact: SDKCompactBoundaryMessage = {
  type: "system",
  subtype: "compact_boundary",
  compact_metadata: { trigger: "auto", pre_tokens: 1000 },
  ...base
}
const status: SDKStatusMessage = { type: "system", subtype: "status", status: "compacting", ...base }
const apiRetry: SDKAPIRetryMessage = { type: "system", subtype: "api_retry", ...retry, error: "overloaded", ...base }
const progress: SDKControlRequestProgressMessage = {
  type: "system",
  subtype: "control_request_progress",
  request_id: "r1",
  status: "api_retry",
  ...retry,
  ...base
}
const refusalFallback: SDKModelRefusalFallbackMessage = {
  type: "system",
  subtype: "model_refusal_fallback",
  trigger: "refusal",
  direction: "retry",
  original_model: "a",
  fallback_model: "b",
  request_id: null,
  content: "refused",
  ...base
}
const refusalNoFallback: SDKModelRefusalNoFallbackMessage = {
  type: "system",
  subtype: "model_refusal_no_fallback",
  original_model: "a",
  request_id: "req",
  content: "refused",
  ...base
}
const localOutput: SDKLocalCommandOutputMessage = {
  type: "system",
  subtype: "local_command_output",
  content: "out",
  ...base
}
const hookStarted: SDKHookStartedMessage = { type: "system", subtype: "hook_started", ...hook, ...base }
const hookProgress: SDKHookProgressMessage = {
  type: "system",
  subtype: "hook_progress",
  ...hook,
  stdout: "o",
  stderr: "",
  output: "o",
  ...base
}
const hookResponse: SDKHookResponseMessage = {
  type: "system",
  subtype: "hook_response",
  ...hook,
  output: "",
  stdout: "",
  stderr: "",
  exit_code: 0,
  outcome: "success",
  ...base
}
const pluginInstall: SDKPluginInstallMessage = { type: "system", subtype: "plugin_install", status: "started", ...base }
const toolProgress: SDKToolProgressMessage = {
  type: "tool_progress",
  tool_use_id: "toolu_1",
  tool_name: "Bash",
  parent_tool_use_id: null,
  elapsed_time_seconds: 3,
  ...base
}
const authStatus: SDKAuthStatusMessage = { type: "auth_status", isAuthenticating: true, output: ["..."], ...base }
const taskUsage = { total_tokens: 1, tool_uses: 1, duration_ms: 1 }
const taskNotification: SDKTaskNotificationMessage = {
  type: "system",
  subtype: "task_notification",
  task_id: "t1",
  status: "completed",
  output_file: "/o",
  summary: "done",
  usage: taskUsage,
  ...base
}
const taskStarted: SDKTaskStartedMessage = {
  type: "system",
  subtype: "task_started",
  task_id: "t1",
  description: "d",
  ...base
}
const taskUpdated: SDKTaskUpdatedMessage = {
  type: "system",
  subtype: "task_updated",
  task_id: "t1",
  patch: { status: "running" },
  ...base
}
const taskProgress: SDKTaskProgressMessage = {
  type: "system",
  subtype: "task_progress",
  task_id: "t1",
  description: "d",
  usage: taskUsage,
  ...base
}
const tasksChanged: SDKBackgroundTasksChangedMessage = {
  type: "system",
  subtype: "background_tasks_changed",
  tasks: [{ task_id: "t1", task_type: "agent", description: "d" }],
  ...base
}
const thinkingTokens: SDKThinkingTokensMessage = {
  type: "system",
  subtype: "thinking_tokens",
  estimated_tokens: 10,
  estimated_tokens_delta: 2,
  ...base
}
const stateChanged: SDKSessionStateChangedMessage = {
  type: "system",
  subtype: "session_state_changed",
  state: "idle",
  ...base
}
const shuttingDown: SDKWorkerShuttingDownMessage = {
  type: "system",
  subtype: "worker_shutting_down",
  reason: "exit",
  ...base
}
const commandsChanged: SDKCommandsChangedMessage = {
  type: "system",
  subtype: "commands_changed",
  commands: [{ name: "compact", description: "Compact", argumentHint: "" }],
  ...base
}
const notification: SDKNotificationMessage = {
  type: "system",
  subtype: "notification",
  key: "k",
  text: "t",
  priority: "low",
  ...base
}
const filesPersisted: SDKFilesPersistedEvent = {
  type: "system",
  subtype: "files_persisted",
  files: [{ filename: "a", file_id: "f" }],
  failed: [],
  processed_at: "2025-01-01T00:00:00Z",
  ...base
}
const toolUseSummary: SDKToolUseSummaryMessage = {
  type: "tool_use_summary",
  summary: "read a file",
  preceding_tool_use_ids: ["toolu_1"],
  ...base
}
const memoryRecall: SDKMemoryRecallMessage = {
  type: "system",
  subtype: "memory_recall",
  mode: "select",
  memories: [{ path: "/m", scope: "personal" }],
  ...base
}
const rateLimit: SDKRateLimitEvent = {
  type: "rate_limit_event",
  rate_limit_info: { status: "allowed", resetsAt: 1, rateLimitType: "five_hour" },
  ...base
}
const elicitation: SDKElicitationCompleteMessage = {
  type: "system",
  subtype: "elicitation_complete",
  mcp_server_name: "m",
  elicitation_id: "e",
  ...base
}
const permissionDenied: SDKPermissionDeniedMessage = {
  type: "system",
  subtype: "permission_denied",
  tool_name: "Write",
  tool_use_id: "toolu_2",
  message: "denied",
  ...base
}
const promptSuggestion: SDKPromptSuggestionMessage = { type: "prompt_suggestion", suggestion: "next?", ...base }
const mirrorError: SDKMirrorErrorMessage = {
  type: "system",
  subtype: "mirror_error",
  error: "e",
  key: { projectKey: "p", sessionId: "s" },
  ...base
}
const informational: SDKInformationalMessage = {
  type: "system",
  subtype: "informational",
  content: "c",
  level: "info",
  ...base
}
const conversationReset: SDKConversationResetMessage = {
  type: "conversation_reset",
  new_conversation_id: uuid,
  ...base
}
const writesLost: SDKSessionWritesLostMessage = {
  type: "system",
  subtype: "session_writes_lost",
  error_code: "ENOSPC",
  lost: ["transcript"],
  ...base
}
const controlRequest: SDKControlRequest = {
  type: "control_request",
  request_id: "r1",
  request: { subtype: "can_use_tool", tool_name: "Write", input: { file_path: "/b" }, tool_use_id: "toolu_2" }
}
const controlResponse: SDKControlResponse = {
  type: "control_response",
  response: { subtype: "success", request_id: "r1", response: { behavior: "allow" } }
}

const cases: ReadonlyArray<readonly [Message["_tag"], SDKMessage | SDKControlRequest | SDKControlResponse]> = [
  ["AssistantMessage", assistant],
  ["UserMessage", user],
  ["UserMessageReplay", replay],
  ["ResultSuccess", success],
  ["ResultError", errorResult],
  ["SystemInit", init],
  ["StreamEventMessage", partial],
  ["SystemCompactBoundary", compact],
  ["SystemStatus", status],
  ["SystemApiRetry", apiRetry],
  ["SystemControlRequestProgress", progress],
  ["SystemModelRefusalFallback", refusalFallback],
  ["SystemModelRefusalNoFallback", refusalNoFallback],
  ["SystemLocalCommandOutput", localOutput],
  ["SystemHookStarted", hookStarted],
  ["SystemHookProgress", hookProgress],
  ["SystemHookResponse", hookResponse],
  ["SystemPluginInstall", pluginInstall],
  ["ToolProgress", toolProgress],
  ["AuthStatus", authStatus],
  ["SystemTaskNotification", taskNotification],
  ["SystemTaskStarted", taskStarted],
  ["SystemTaskUpdated", taskUpdated],
  ["SystemTaskProgress", taskProgress],
  ["SystemBackgroundTasksChanged", tasksChanged],
  ["SystemThinkingTokens", thinkingTokens],
  ["SystemSessionStateChanged", stateChanged],
  ["SystemWorkerShuttingDown", shuttingDown],
  ["SystemCommandsChanged", commandsChanged],
  ["SystemNotification", notification],
  ["SystemFilesPersisted", filesPersisted],
  ["ToolUseSummary", toolUseSummary],
  ["SystemMemoryRecall", memoryRecall],
  ["RateLimitEvent", rateLimit],
  ["SystemElicitationComplete", elicitation],
  ["SystemPermissionDenied", permissionDenied],
  ["PromptSuggestion", promptSuggestion],
  ["SystemMirrorError", mirrorError],
  ["SystemInformational", informational],
  ["ConversationReset", conversationReset],
  ["SystemSessionWritesLost", writesLost],
  ["ControlRequest", controlRequest],
  ["ControlResponse", controlResponse]
]

describe("values typed against the official SDK", () => {
  for (const [tag, value] of cases) {
    it(`${tag} decodes to the right variant and encodes back`, () => {
      const decoded = decodeMessage(value)
      if (Result.isFailure(decoded)) assert.fail(decoded.failure.message)
      assert.strictEqual(decoded.success._tag, tag)
      assert.deepStrictEqual(encodeMessage(decoded.success), JSON.parse(JSON.stringify(value)))
    })
  }

  it("covers every SDK variant with a distinct tag", () => {
    assert.strictEqual(new Set(cases.map(([tag]) => tag)).size, cases.length)
  })
})
