/**
 * `type: "system"` lines, one class per `subtype`. Enumerations the CLI keeps
 * extending (statuses, levels, reasons) are plain strings so that a new value
 * never fails a decode.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ControlAnswer from "./ControlAnswer.ts"
import {
  envelope,
  JsonObject,
  Num,
  optionalBoolean,
  optionalNullableNumber,
  optionalNullableString,
  optionalNumber,
  optionalString,
  optionalStrings,
  optionalUnknown
} from "./internal/fields.ts"

/**
 * Token, tool and time totals of a background task.
 */
const TaskUsage = Schema.Struct({
  total_tokens: Num,
  tool_uses: Num,
  duration_ms: Num
})

/**
 * @since 0.1.0
 * @category models
 */
export type TaskUsage = typeof TaskUsage.Type

/**
 * The first line of a run: model, tools, permission mode, MCP servers.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemInit extends Schema.Class<SystemInit>("effect-claude-code/SystemInit")({
  _tag: Schema.tagDefaultOmit("SystemInit"),
  type: Schema.tag("system"),
  subtype: Schema.tag("init"),
  cwd: Schema.String,
  model: Schema.String,
  tools: optionalStrings,
  mcp_servers: Schema.optionalKey(Schema.Array(ControlAnswer.McpServerStatus)),
  permissionMode: optionalString,
  permission_mode: optionalString,
  apiKeySource: optionalString,
  api_key_source: optionalString,
  claude_code_version: optionalString,
  slash_commands: optionalStrings,
  terminal_slash_commands: optionalStrings,
  output_style: optionalString,
  agents: optionalStrings,
  skills: optionalStrings,
  plugins: Schema.optionalKey(Schema.Array(ControlAnswer.PluginInfo)),
  plugin_errors: Schema.optionalKey(Schema.Array(JsonObject)),
  betas: optionalStrings,
  capabilities: optionalStrings,
  fast_mode_state: optionalString,
  fast_mode_disabled_reason: optionalString,
  effort: optionalNullableString,
  view_mode: optionalString,
  // Written by CLI 2.1.330, not in the SDK's types.
  original_cwd: optionalString,
  additional_directories: optionalStrings,
  memory_paths: Schema.optionalKey(Schema.Struct({ auto: optionalString, team: optionalString })),
  messaging_socket_path: optionalString,
  per_turn_effort_active: optionalBoolean,
  ultrathink_available: optionalBoolean,
  ultrathink_typed_raises: optionalBoolean,
  analytics_disabled: optionalBoolean,
  product_feedback_disabled: optionalBoolean,
  served_by_anthropic: optionalBoolean,
  // Written by CLI 2.1.332: whether the run's shell commands run in the CLI's command sandbox.
  sandbox_enabled: Schema.optionalKey(Schema.Union([Schema.Boolean, Schema.Literal("unknown")])),
  startup_timing: Schema.optionalKey(JsonObject),
  ...envelope
}) {
  /**
   * The permission mode of the run (older CLIs wrote `permission_mode`).
   *
   * @since 0.1.0
   */
  get mode(): string | undefined {
    return this.permissionMode ?? this.permission_mode
  }
}

/**
 * Session status changes (e.g. `compacting`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemStatus extends Schema.Class<SystemStatus>("effect-claude-code/SystemStatus")({
  _tag: Schema.tagDefaultOmit("SystemStatus"),
  type: Schema.tag("system"),
  subtype: Schema.tag("status"),
  status: Schema.NullOr(Schema.String),
  permissionMode: optionalString,
  compact_result: optionalString,
  compact_error: optionalString,
  ...envelope
}) {}

/**
 * Marks where the conversation was compacted.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemCompactBoundary extends Schema.Class<SystemCompactBoundary>("effect-claude-code/SystemCompactBoundary")({
  _tag: Schema.tagDefaultOmit("SystemCompactBoundary"),
  type: Schema.tag("system"),
  subtype: Schema.tag("compact_boundary"),
  compact_metadata: Schema.Struct({
    trigger: Schema.String,
    pre_tokens: Num,
    post_tokens: optionalNumber,
    duration_ms: optionalNumber,
    preserved_segment: optionalUnknown,
    preserved_messages: optionalUnknown
  }),
  ...envelope
}) {}

/**
 * An API call failed and is retried.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemApiRetry extends Schema.Class<SystemApiRetry>("effect-claude-code/SystemApiRetry")({
  _tag: Schema.tagDefaultOmit("SystemApiRetry"),
  type: Schema.tag("system"),
  subtype: Schema.tag("api_retry"),
  attempt: Num,
  max_retries: Num,
  retry_delay_ms: Num,
  error_status: Schema.NullOr(Num),
  error: Schema.String,
  no_response: Schema.optionalKey(Schema.Struct({ waited_ms: Num, retry_wait_ms: Num })),
  ...envelope
}) {}

/**
 * Progress of a long control request.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemControlRequestProgress extends Schema.Class<SystemControlRequestProgress>("effect-claude-code/SystemControlRequestProgress")({
  _tag: Schema.tagDefaultOmit("SystemControlRequestProgress"),
  type: Schema.tag("system"),
  subtype: Schema.tag("control_request_progress"),
  request_id: Schema.String,
  status: Schema.String,
  attempt: optionalNumber,
  max_retries: optionalNumber,
  retry_delay_ms: optionalNumber,
  error_status: optionalNullableNumber,
  ...envelope
}) {}

/**
 * The model refused and the CLI fell back to another model.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemModelRefusalFallback extends Schema.Class<SystemModelRefusalFallback>("effect-claude-code/SystemModelRefusalFallback")({
  _tag: Schema.tagDefaultOmit("SystemModelRefusalFallback"),
  type: Schema.tag("system"),
  subtype: Schema.tag("model_refusal_fallback"),
  trigger: Schema.String,
  direction: Schema.String,
  scope: optionalString,
  original_model: Schema.String,
  fallback_model: Schema.String,
  request_id: Schema.NullOr(Schema.String),
  api_refusal_category: optionalNullableString,
  api_refusal_explanation: optionalNullableString,
  retracted_message_uuids: optionalStrings,
  refused_user_message_uuid: optionalNullableString,
  content: Schema.String,
  ...envelope
}) {}

/**
 * The model refused and no fallback model was available.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemModelRefusalNoFallback extends Schema.Class<SystemModelRefusalNoFallback>("effect-claude-code/SystemModelRefusalNoFallback")({
  _tag: Schema.tagDefaultOmit("SystemModelRefusalNoFallback"),
  type: Schema.tag("system"),
  subtype: Schema.tag("model_refusal_no_fallback"),
  original_model: Schema.String,
  request_id: Schema.NullOr(Schema.String),
  api_refusal_category: optionalNullableString,
  api_refusal_explanation: optionalNullableString,
  refused_user_message_uuid: optionalNullableString,
  content: Schema.String,
  ...envelope
}) {}

/**
 * Output of a local slash command.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemLocalCommandOutput extends Schema.Class<SystemLocalCommandOutput>("effect-claude-code/SystemLocalCommandOutput")({
  _tag: Schema.tagDefaultOmit("SystemLocalCommandOutput"),
  type: Schema.tag("system"),
  subtype: Schema.tag("local_command_output"),
  content: Schema.String,
  ...envelope
}) {}

/**
 * A hook began running.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemHookStarted extends Schema.Class<SystemHookStarted>("effect-claude-code/SystemHookStarted")({
  _tag: Schema.tagDefaultOmit("SystemHookStarted"),
  type: Schema.tag("system"),
  subtype: Schema.tag("hook_started"),
  hook_id: Schema.String,
  hook_name: Schema.String,
  hook_event: Schema.String,
  ...envelope
}) {}

/**
 * Output so far of a running hook.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemHookProgress extends Schema.Class<SystemHookProgress>("effect-claude-code/SystemHookProgress")({
  _tag: Schema.tagDefaultOmit("SystemHookProgress"),
  type: Schema.tag("system"),
  subtype: Schema.tag("hook_progress"),
  hook_id: Schema.String,
  hook_name: Schema.String,
  hook_event: Schema.String,
  stdout: Schema.String,
  stderr: Schema.String,
  output: Schema.String,
  ...envelope
}) {}

/**
 * A hook finished (older CLIs omit `hook_id`, `output`, `outcome`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemHookResponse extends Schema.Class<SystemHookResponse>("effect-claude-code/SystemHookResponse")({
  _tag: Schema.tagDefaultOmit("SystemHookResponse"),
  type: Schema.tag("system"),
  subtype: Schema.tag("hook_response"),
  hook_id: optionalString,
  hook_name: Schema.String,
  hook_event: Schema.String,
  output: optionalString,
  stdout: Schema.String,
  stderr: Schema.String,
  exit_code: optionalNumber,
  outcome: optionalString,
  ...envelope
}) {}

/**
 * Plugin installation progress.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemPluginInstall extends Schema.Class<SystemPluginInstall>("effect-claude-code/SystemPluginInstall")({
  _tag: Schema.tagDefaultOmit("SystemPluginInstall"),
  type: Schema.tag("system"),
  subtype: Schema.tag("plugin_install"),
  status: Schema.String,
  name: optionalString,
  error: optionalString,
  ...envelope
}) {}

/**
 * A background task finished, failed or stopped.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemTaskNotification extends Schema.Class<SystemTaskNotification>("effect-claude-code/SystemTaskNotification")({
  _tag: Schema.tagDefaultOmit("SystemTaskNotification"),
  type: Schema.tag("system"),
  subtype: Schema.tag("task_notification"),
  task_id: Schema.String,
  run_id: optionalString,
  tool_use_id: optionalString,
  status: Schema.String,
  reason: optionalString,
  output_file: Schema.String,
  summary: Schema.String,
  summary_is_report: optionalBoolean,
  usage: Schema.optionalKey(TaskUsage),
  resource_links: Schema.optionalKey(Schema.Array(JsonObject)),
  skip_transcript: optionalBoolean,
  ambient: optionalBoolean,
  ...envelope
}) {}

/**
 * A background task (subagent, workflow) started.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemTaskStarted extends Schema.Class<SystemTaskStarted>("effect-claude-code/SystemTaskStarted")({
  _tag: Schema.tagDefaultOmit("SystemTaskStarted"),
  type: Schema.tag("system"),
  subtype: Schema.tag("task_started"),
  task_id: Schema.String,
  run_id: optionalString,
  tool_use_id: optionalString,
  description: Schema.String,
  subagent_type: optionalString,
  is_backgrounded: optionalBoolean,
  spawn_depth: optionalNumber,
  parent_task_id: optionalString,
  task_type: optionalString,
  workflow_name: optionalString,
  prompt: optionalString,
  skip_transcript: optionalBoolean,
  ambient: optionalBoolean,
  ...envelope
}) {}

/**
 * A background task changed state.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemTaskUpdated extends Schema.Class<SystemTaskUpdated>("effect-claude-code/SystemTaskUpdated")({
  _tag: Schema.tagDefaultOmit("SystemTaskUpdated"),
  type: Schema.tag("system"),
  subtype: Schema.tag("task_updated"),
  task_id: Schema.String,
  run_id: optionalString,
  patch: Schema.Struct({
    status: optionalString,
    description: optionalString,
    end_time: optionalNumber,
    total_paused_ms: optionalNumber,
    error: optionalString,
    is_backgrounded: optionalBoolean
  }),
  ...envelope
}) {}

/**
 * Progress of a background task.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemTaskProgress extends Schema.Class<SystemTaskProgress>("effect-claude-code/SystemTaskProgress")({
  _tag: Schema.tagDefaultOmit("SystemTaskProgress"),
  type: Schema.tag("system"),
  subtype: Schema.tag("task_progress"),
  task_id: Schema.String,
  run_id: optionalString,
  tool_use_id: optionalString,
  description: Schema.String,
  subagent_type: optionalString,
  usage: TaskUsage,
  last_tool_name: optionalString,
  summary: optionalString,
  ...envelope
}) {}

/**
 * The set of background tasks changed.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemBackgroundTasksChanged extends Schema.Class<SystemBackgroundTasksChanged>("effect-claude-code/SystemBackgroundTasksChanged")({
  _tag: Schema.tagDefaultOmit("SystemBackgroundTasksChanged"),
  type: Schema.tag("system"),
  subtype: Schema.tag("background_tasks_changed"),
  tasks: Schema.Array(Schema.Struct({
    task_id: Schema.String,
    run_id: optionalString,
    task_type: Schema.String,
    subagent_type: optionalString,
    description: Schema.String,
    parent_task_id: optionalString,
    ambient: optionalBoolean
  })),
  ...envelope
}) {}

/**
 * Estimated thinking tokens so far.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemThinkingTokens extends Schema.Class<SystemThinkingTokens>("effect-claude-code/SystemThinkingTokens")({
  _tag: Schema.tagDefaultOmit("SystemThinkingTokens"),
  type: Schema.tag("system"),
  subtype: Schema.tag("thinking_tokens"),
  estimated_tokens: Num,
  estimated_tokens_delta: Num,
  user_message_uuid: optionalString,
  ...envelope
}) {}

/**
 * The session became idle, running or blocked on input.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemSessionStateChanged extends Schema.Class<SystemSessionStateChanged>("effect-claude-code/SystemSessionStateChanged")({
  _tag: Schema.tagDefaultOmit("SystemSessionStateChanged"),
  type: Schema.tag("system"),
  subtype: Schema.tag("session_state_changed"),
  state: Schema.String,
  ...envelope
}) {}

/**
 * The CLI worker is shutting down.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemWorkerShuttingDown extends Schema.Class<SystemWorkerShuttingDown>("effect-claude-code/SystemWorkerShuttingDown")({
  _tag: Schema.tagDefaultOmit("SystemWorkerShuttingDown"),
  type: Schema.tag("system"),
  subtype: Schema.tag("worker_shutting_down"),
  reason: Schema.String,
  ...envelope
}) {}

/**
 * The available slash commands changed.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemCommandsChanged extends Schema.Class<SystemCommandsChanged>("effect-claude-code/SystemCommandsChanged")({
  _tag: Schema.tagDefaultOmit("SystemCommandsChanged"),
  type: Schema.tag("system"),
  subtype: Schema.tag("commands_changed"),
  commands: Schema.Array(ControlAnswer.SlashCommand),
  ...envelope
}) {}

/**
 * A notification meant for the user.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemNotification extends Schema.Class<SystemNotification>("effect-claude-code/SystemNotification")({
  _tag: Schema.tagDefaultOmit("SystemNotification"),
  type: Schema.tag("system"),
  subtype: Schema.tag("notification"),
  key: Schema.String,
  text: Schema.String,
  priority: Schema.String,
  color: optionalString,
  timeout_ms: optionalNumber,
  ...envelope
}) {}

/**
 * Files uploaded at the end of a turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemFilesPersisted extends Schema.Class<SystemFilesPersisted>("effect-claude-code/SystemFilesPersisted")({
  _tag: Schema.tagDefaultOmit("SystemFilesPersisted"),
  type: Schema.tag("system"),
  subtype: Schema.tag("files_persisted"),
  files: Schema.Array(Schema.Struct({ filename: Schema.String, file_id: Schema.String })),
  failed: Schema.Array(Schema.Struct({ filename: Schema.String, error: Schema.String })),
  processed_at: Schema.String,
  ...envelope
}) {}

/**
 * Memories recalled for the turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemMemoryRecall extends Schema.Class<SystemMemoryRecall>("effect-claude-code/SystemMemoryRecall")({
  _tag: Schema.tagDefaultOmit("SystemMemoryRecall"),
  type: Schema.tag("system"),
  subtype: Schema.tag("memory_recall"),
  mode: Schema.String,
  memories: Schema.Array(Schema.Struct({ path: Schema.String, scope: Schema.String, content: optionalString })),
  ...envelope
}) {}

/**
 * An MCP elicitation completed.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemElicitationComplete extends Schema.Class<SystemElicitationComplete>("effect-claude-code/SystemElicitationComplete")({
  _tag: Schema.tagDefaultOmit("SystemElicitationComplete"),
  type: Schema.tag("system"),
  subtype: Schema.tag("elicitation_complete"),
  mcp_server_name: Schema.String,
  elicitation_id: Schema.String,
  ...envelope
}) {}

/**
 * A tool call was denied by the permission system.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemPermissionDenied extends Schema.Class<SystemPermissionDenied>("effect-claude-code/SystemPermissionDenied")({
  _tag: Schema.tagDefaultOmit("SystemPermissionDenied"),
  type: Schema.tag("system"),
  subtype: Schema.tag("permission_denied"),
  tool_name: Schema.String,
  tool_use_id: Schema.String,
  agent_id: optionalString,
  decision_reason_type: optionalString,
  decision_reason: optionalString,
  message: Schema.String,
  ...envelope
}) {}

/**
 * Mirroring the session transcript failed.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemMirrorError extends Schema.Class<SystemMirrorError>("effect-claude-code/SystemMirrorError")({
  _tag: Schema.tagDefaultOmit("SystemMirrorError"),
  type: Schema.tag("system"),
  subtype: Schema.tag("mirror_error"),
  error: Schema.String,
  key: Schema.Struct({ projectKey: Schema.String, sessionId: Schema.String, subpath: optionalString }),
  ...envelope
}) {}

/**
 * An informational notice for the user.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemInformational extends Schema.Class<SystemInformational>("effect-claude-code/SystemInformational")({
  _tag: Schema.tagDefaultOmit("SystemInformational"),
  type: Schema.tag("system"),
  subtype: Schema.tag("informational"),
  content: Schema.String,
  level: Schema.String,
  tool_use_id: optionalString,
  prevent_continuation: optionalBoolean,
  tag: optionalString,
  ...envelope
}) {}

/**
 * Session writes were lost (disk full, quota).
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemSessionWritesLost extends Schema.Class<SystemSessionWritesLost>("effect-claude-code/SystemSessionWritesLost")({
  _tag: Schema.tagDefaultOmit("SystemSessionWritesLost"),
  type: Schema.tag("system"),
  subtype: Schema.tag("session_writes_lost"),
  error_code: Schema.String,
  lost: Schema.Array(Schema.String),
  transcript_session_ids: optionalStrings,
  ...envelope
}) {}

/**
 * A one-line summary of the turn that just ended, written after its result (not in the SDK's types;
 * seen in CLI 2.1.154 captures).
 *
 * @since 0.1.0
 * @category schemas
 */
export class SystemPostTurnSummary extends Schema.Class<SystemPostTurnSummary>("effect-claude-code/SystemPostTurnSummary")({
  _tag: Schema.tagDefaultOmit("SystemPostTurnSummary"),
  type: Schema.tag("system"),
  subtype: Schema.tag("post_turn_summary"),
  summarizes_uuid: Schema.String,
  status_category: Schema.String,
  status_detail: optionalString,
  needs_action: optionalString,
  ...envelope
}) {}

/**
 * Every known system message class.
 *
 * @since 0.1.0
 * @category schemas
 */
export const variants = [
  SystemInit,
  SystemStatus,
  SystemCompactBoundary,
  SystemApiRetry,
  SystemControlRequestProgress,
  SystemModelRefusalFallback,
  SystemModelRefusalNoFallback,
  SystemLocalCommandOutput,
  SystemHookStarted,
  SystemHookProgress,
  SystemHookResponse,
  SystemPluginInstall,
  SystemTaskNotification,
  SystemTaskStarted,
  SystemTaskUpdated,
  SystemTaskProgress,
  SystemBackgroundTasksChanged,
  SystemThinkingTokens,
  SystemSessionStateChanged,
  SystemWorkerShuttingDown,
  SystemCommandsChanged,
  SystemNotification,
  SystemFilesPersisted,
  SystemMemoryRecall,
  SystemElicitationComplete,
  SystemPermissionDenied,
  SystemMirrorError,
  SystemInformational,
  SystemSessionWritesLost,
  SystemPostTurnSummary,
] as const

/**
 * Any known `system` line.
 *
 * @since 0.1.0
 * @category models
 */
export type SystemMessage = InstanceType<typeof variants[number]>
