/**
 * One value per line kind the official SDK declares the CLI writes (its
 * `StdoutMessage`: every `SDKMessage` member, `active_goal` and the control
 * frames), each typed against the SDK's own declaration so the compiler checks
 * it is a valid SDK message. The cases are keyed by the SDK's discriminants
 * (`type`, `subtype`, `isReplay`), so a kind the SDK adds and these cases lack
 * is a compile error. Each must decode to our variant and encode back to the
 * same JSON.
 */
import type {
  SDKActiveGoalMessage,
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
  SDKWorkerShuttingDownMessage,
  Transport
} from "@anthropic-ai/claude-agent-sdk"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import * as Result from "effect/Result"
import { decodeMessage, encodeMessage, type Message, variants } from "../../src/schema/Message.ts"

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
  input_transformations: [
    { type: "thinking_dropped", path: "messages.1.content.0", reason: "model_binding_mismatch" },
    { type: "thinking_mismatch_allowed", path: "messages.3.content.0", reason: "prefix_binding_mismatch" }
  ],
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

const reply = { user_message_uuid: "u2", user_message_uuids: ["u1", "u2"], resume_reason: "interrupted_turn" }
const modelUsage = summary.modelUsage
const assistant: SDKAssistantMessage = {
  type: "assistant",
  message: apiMessage,
  parent_tool_use_id: null,
  request_id: "req_1",
  ...reply,
  resumed_from_incomplete_thinking: true,
  supersedes: [uuid],
  aborted: true,
  timestamp: "2025-01-01T00:00:00.000Z",
  context_usage: {
    model: "claude-sonnet-4-5",
    total_tokens: 210000,
    raw_max_tokens: 200000,
    percentage: 105,
    over_limit: { tokens_over: 10000, kind: "hard_limit" },
    categories: [{ name: "Messages", tokens: 200000, kind: "used" }],
    mcp_tools: [{ name: "mcp__linear__create_issue", server_name: "linear", tokens: 300 }],
    memory_files: [{ path: "/w/CLAUDE.md", type: "Project", tokens: 40 }],
    agents: [{ agent_type: "reviewer", source: "projectSettings", tokens: 20 }],
    skills: [{ name: "pdf", source: "plugin", plugin_name: "docs", tokens: 10 }]
  },
  usage_report: {
    session: {
      total_cost_usd: 0.5,
      total_api_duration_ms: 900,
      total_duration_ms: 1500,
      total_lines_added: 3,
      total_lines_removed: 1,
      model_usage: modelUsage
    },
    rate_limits: {
      limits: [{
        kind: "weekly_scoped",
        group: "weekly",
        percent: 12,
        resets_at: null,
        scope: { model: { display_name: "Opus" }, surface: null },
        severity: "normal",
        is_active: true
      }],
      extra_usage: { is_enabled: false, monthly_limit: null, used_credits: 0, utilization: null, currency: "USD" }
    }
  },
  agent_id: "a1",
  subagent_type: "reviewer",
  task_description: "review",
  ...base
}
const cacheControl = { type: "ephemeral", ttl: "5m" } as const
const user: SDKUserMessage = {
  type: "user",
  message: {
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: [
          { type: "text", text: "ok", cache_control: cacheControl },
          {
            type: "image",
            source: { type: "url", url: "https://example.com/a.png" },
            cache_control: null,
            transformations: { oversized_image: "downsize" }
          }
        ],
        toolset_name: "browser",
        cache_control: cacheControl
      },
      { type: "text", text: "look", cache_control: cacheControl },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "d" }, cache_control: cacheControl }
    ]
  },
  parent_tool_use_id: null,
  isSynthetic: false,
  tool_use_result: { stdout: "ok", stderr: "", interrupted: false },
  priority: "next",
  origin: {
    kind: "peer",
    from: "session-2",
    fromMode: "prompting",
    name: "Reviewer",
    fromSession: "local_1",
    senderTaskId: "task_1",
    body: "please review",
    verifiedPeerPid: 4242
  },
  shouldQuery: true,
  timestamp: "2025-01-01T00:00:00.000Z",
  client_composed: true,
  pasted_content: ["pasted text", [{ type: "text", text: "pasted block" }]],
  inline_pastes: ["inline"],
  ...base
}
const replay: SDKUserMessageReplay = {
  type: "user",
  message: { role: "user", content: "hello" },
  parent_tool_use_id: null,
  isReplay: true,
  origin: { kind: "channel", server: "slack" },
  file_attachments: [{ name: "a.txt" }],
  ...base
}
const success: SDKResultSuccess = {
  type: "result",
  subtype: "success",
  result: "done",
  ...summary,
  ...reply,
  ttft_ms: 100,
  local_command: "/usage",
  request_sent_wall_ms: 1700000000000,
  first_content_frame_ms: 120,
  first_stream_post_ms: 130,
  first_stream_post_ack_ms: 140,
  first_stream_post_queue_wait_ms: 1,
  first_stream_post_queued_behind: "none",
  first_stream_post_wall_ms: 1700000000130,
  first_text_post_ms: 150,
  first_text_post_queue_wait_ms: 2,
  first_text_post_queued_behind: "hold",
  first_text_post_wall_ms: 1700000000150,
  time_to_request_from_spawn_ms: 300,
  warm_spare_claimed: false,
  time_origin_ms: 1699999999000.5,
  api_error_status: null,
  queued_turn_count: 0,
  structured_output: { answer: 42 },
  deferred_tool_use: { id: "toolu_3", name: "AskUserQuestion", input: { question: "?" } },
  terminal_reason: "completed",
  result_index: 0,
  credential_expires_at: "2025-02-01T00:00:00Z",
  fast_mode_state: "off",
  fast_mode_disabled_reason: "preference",
  origin: { kind: "human" },
  ...base
}
const errorResult: SDKResultError = {
  type: "result",
  subtype: "error_max_turns",
  errors: ["max turns"],
  ...summary,
  is_error: true,
  ...base
}
const startupFailure: SDKResultError & { readonly subtype: "error_during_execution" } = {
  ...errorResult,
  subtype: "error_during_execution",
  errors: ["~/.claude.json is not valid JSON"],
  startup_failure_reason: "config_file_invalid",
  invalid_config_file: { path: "/h/.claude.json", is_global: true, backup_searched: true, backup_path: "/h/.claude.json.backup" },
  ...reply,
  credential_expires_at: "2025-02-01T00:00:00Z",
  origin: { kind: "human" }
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
  ttft_ms: 90,
  ...reply,
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
  request: {
    subtype: "can_use_tool",
    tool_name: "Write",
    input: { file_path: "/b" },
    tool_use_id: "toolu_2",
    decision_reason_type: "safetyCheck",
    classifier_approvable: false,
    suppress_always_allow_rule: true,
    default_to_no: true,
    matched_ask_rule: { source: "userSettings", tool_name: "Write", rule_content: "/etc/**" },
    requires_user_interaction: true
  }
}
const initializeRequest: SDKControlRequest = {
  type: "control_request",
  request_id: "r2",
  request: {
    subtype: "initialize",
    hooks: { PreToolUse: [{ matcher: "Bash", hookCallbackIds: ["h1"], timeout: 5 }] },
    sdkMcpServers: ["tools"],
    sdkMcpServerConfigs: { tools: { timeout: 1000, tools: [{ name: "echo", permission_policy: "always_allow" }] } },
    sdkMcpServerManifests: { tools: { initializeResult: { protocolVersion: "2025-06-18" }, toolsListResult: { tools: [] } } },
    sdkMcpServerManifestsOrigin: "host_per_send",
    jsonSchema: { type: "object" },
    systemPrompt: ["You are terse."],
    appendSystemPrompt: "Be kind.",
    systemPromptSnapshot: true,
    planModeInstructions: "Plan first.",
    toolAliases: { Shell: "Bash" },
    excludeDynamicSections: true,
    agents: { reviewer: { description: "Reviews", prompt: "Review it." } },
    title: "Session",
    skills: ["pdf"],
    promptSuggestions: false,
    agentProgressSummaries: true,
    forwardSubagentText: true,
    supportedDialogKinds: ["confirm"],
    perTaskStopAffordance: true,
    plugins: [{ type: "local", path: "/plugins/p" }],
    mcpServers: { fs: { command: "mcp-fs", args: ["/w"], env: { A: "1" } } }
  }
}
const messageDelta: SDKPartialAssistantMessage = {
  type: "stream_event",
  event: {
    type: "message_delta",
    delta: {
      container: { id: "c1", expires_at: "2025-01-01T01:00:00Z", skills: null },
      stop_details: null,
      stop_reason: "end_turn",
      stop_sequence: null
    },
    usage: {
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      input_tokens: null,
      output_tokens: 5,
      server_tool_use: null,
      iterations: null,
      fallback_credit: null,
      output_tokens_details: null
    },
    context_management: null,
    input_transformations: [{ type: "thinking_dropped", path: "messages.1.content.0", reason: "model_binding_mismatch" }]
  },
  parent_tool_use_id: null,
  ...base
}
const controlResponse: SDKControlResponse = {
  type: "control_response",
  response: { subtype: "success", request_id: "r1", response: { behavior: "allow" } }
}

const activeGoal: SDKActiveGoalMessage = {
  type: "active_goal",
  value: { condition: "tests pass", iterations: 2, set_at: 1700000000000, tokens_at_start: 1200, last_reason: "2 failing" },
  ...base
}
const goalMet: SDKActiveGoalMessage = { type: "active_goal", value: null, ...base }
const cancelRequest: StdoutMessage = { type: "control_cancel_request", request_id: "r1" }
const keepAlive: StdoutMessage = { type: "keep_alive" }

/** Every line the SDK says the CLI writes to stdout (the SDK does not export the union by name). */
type StdoutMessage = ReturnType<Transport["readMessages"]> extends AsyncGenerator<infer M, void, unknown> ? M : never

/** A line kind by the SDK's discriminants: `type`, then `subtype` or `isReplay`. */
type KeyOf<M> = M extends { readonly type: "user"; readonly isReplay: true } ? "user:replay"
  : M extends { readonly type: infer T extends string; readonly subtype: infer S extends string } ? `${T}/${S}`
  : M extends { readonly type: infer T extends string } ? T
  : never

type Key = KeyOf<StdoutMessage>

/** The SDK member of a kind, narrowed to the kind's subtype. */
type Member<K extends Key> =
  & (StdoutMessage extends infer M ? M extends unknown ? K extends KeyOf<M> ? M : never : never : never)
  & (K extends `${string}/${infer S}` ? { readonly subtype: S } : unknown)

// Every kind must be listed (a missing key does not compile), each with a value of that kind.
const cases: { readonly [K in Key]: readonly [Message["_tag"], Member<K>] } = {
  "assistant": ["AssistantMessage", assistant],
  "user": ["UserMessage", user],
  "user:replay": ["UserMessageReplay", replay],
  "result/success": ["ResultSuccess", success],
  "result/error_during_execution": ["ResultError", startupFailure],
  "result/error_max_turns": ["ResultError", { ...errorResult, subtype: "error_max_turns" }],
  "result/error_max_budget_usd": ["ResultError", { ...errorResult, subtype: "error_max_budget_usd" }],
  "result/error_max_structured_output_retries": ["ResultError", {
    ...errorResult,
    subtype: "error_max_structured_output_retries"
  }],
  "system/init": ["SystemInit", init],
  "stream_event": ["StreamEventMessage", partial],
  "system/compact_boundary": ["SystemCompactBoundary", compact],
  "system/status": ["SystemStatus", status],
  "system/api_retry": ["SystemApiRetry", apiRetry],
  "system/control_request_progress": ["SystemControlRequestProgress", progress],
  "system/model_refusal_fallback": ["SystemModelRefusalFallback", refusalFallback],
  "system/model_refusal_no_fallback": ["SystemModelRefusalNoFallback", refusalNoFallback],
  "system/local_command_output": ["SystemLocalCommandOutput", localOutput],
  "system/hook_started": ["SystemHookStarted", hookStarted],
  "system/hook_progress": ["SystemHookProgress", hookProgress],
  "system/hook_response": ["SystemHookResponse", hookResponse],
  "system/plugin_install": ["SystemPluginInstall", pluginInstall],
  "tool_progress": ["ToolProgress", toolProgress],
  "auth_status": ["AuthStatus", authStatus],
  "system/task_notification": ["SystemTaskNotification", taskNotification],
  "system/task_started": ["SystemTaskStarted", taskStarted],
  "system/task_updated": ["SystemTaskUpdated", taskUpdated],
  "system/task_progress": ["SystemTaskProgress", taskProgress],
  "system/background_tasks_changed": ["SystemBackgroundTasksChanged", tasksChanged],
  "system/thinking_tokens": ["SystemThinkingTokens", thinkingTokens],
  "system/session_state_changed": ["SystemSessionStateChanged", stateChanged],
  "system/worker_shutting_down": ["SystemWorkerShuttingDown", shuttingDown],
  "system/commands_changed": ["SystemCommandsChanged", commandsChanged],
  "system/notification": ["SystemNotification", notification],
  "system/files_persisted": ["SystemFilesPersisted", filesPersisted],
  "tool_use_summary": ["ToolUseSummary", toolUseSummary],
  "system/memory_recall": ["SystemMemoryRecall", memoryRecall],
  "rate_limit_event": ["RateLimitEvent", rateLimit],
  "system/elicitation_complete": ["SystemElicitationComplete", elicitation],
  "system/permission_denied": ["SystemPermissionDenied", permissionDenied],
  "prompt_suggestion": ["PromptSuggestion", promptSuggestion],
  "system/mirror_error": ["SystemMirrorError", mirrorError],
  "system/informational": ["SystemInformational", informational],
  "conversation_reset": ["ConversationReset", conversationReset],
  "system/session_writes_lost": ["SystemSessionWritesLost", writesLost],
  "active_goal": ["ActiveGoal", activeGoal],
  "control_request": ["ControlRequest", controlRequest],
  "control_response": ["ControlResponse", controlResponse],
  "control_cancel_request": ["ControlCancelRequest", cancelRequest],
  "keep_alive": ["KeepAlive", keepAlive]
}

// More values of some kinds: the other branch of a union field, the bare minimum.
const more: ReadonlyArray<readonly [string, Message["_tag"], StdoutMessage]> = [
  ["a met goal (value null)", "ActiveGoal", goalMet],
  ["an initialize request with every field", "ControlRequest", initializeRequest],
  ["a message_delta event after a model fallback (container, input_transformations)", "StreamEventMessage", messageDelta],
  ["an error result with only the required fields", "ResultError", errorResult]
]

const assertDecodesTo = (tag: Message["_tag"], value: StdoutMessage) => {
  const decoded = decodeMessage(value)
  if (Result.isFailure(decoded)) assert.fail(decoded.failure.message)
  assert.strictEqual(decoded.success._tag, tag)
  assert.deepStrictEqual(encodeMessage(decoded.success), JSON.parse(JSON.stringify(value)))
}

describe("values typed against the official SDK", () => {
  for (const [key, [tag, value]] of Object.entries(cases)) {
    it(`${key} decodes to ${tag} and encodes back to the same JSON`, () => assertDecodesTo(tag, value))
  }
  for (const [what, tag, value] of more) {
    it(`${what} decodes to ${tag} and encodes back to the same JSON`, () => assertDecodesTo(tag, value))
  }

  it("each SDK message kind is a distinct case of ours", () => {
    expectTypeOf<KeyOf<SDKMessage>>().toExtend<keyof typeof cases>()
    // Our variants that the SDK does not declare: the summary CLI 2.1.154 wrote, and the `transcript_mirror`
    // frame (the SDK's transport takes it off stdout before its messages are typed).
    const covered = new Set(Object.values(cases).map(([tag]) => tag))
    const ours = variants.map((variant) => variant.identifier.replace("effect-claude-code/", ""))
    assert.deepStrictEqual(ours.filter((tag) => !covered.has(tag as Message["_tag"])), ["SystemPostTurnSummary", "TranscriptMirror"])
  })
})
