/**
 * Every hook event Claude Code declares, what it passes a hook (its input, by `hook_event_name`) and what a
 * hook may answer for it (`hookSpecificOutput`), as the SDK 0.3.332 types them. Inputs keep the keys these
 * types do not name: newer CLIs add some.
 *
 * @since 0.1.0
 */

/**
 * The hook events, in the SDK's order.
 *
 * @since 0.1.0
 * @category constants
 */
export const events = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "Notification",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "PreModelSwitch",
  "PostModelSwitch",
  "PermissionRequest",
  "PermissionDenied",
  "Setup",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "Elicitation",
  "ElicitationResult",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
  "InstructionsLoaded",
  "CwdChanged",
  "FileChanged",
  "DirectoryAdded",
  "MessageDisplay",
  "PreSkillShellCommand"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type HookEvent = (typeof events)[number]

/**
 * What every hook input carries.
 *
 * @since 0.1.0
 * @category models
 */
export interface BaseInput {
  readonly session_id: string
  readonly transcript_path: string
  readonly cwd: string
  readonly prompt_id?: string | undefined
  readonly permission_mode?: string | undefined
  readonly agent_id?: string | undefined
  readonly agent_type?: string | undefined
  readonly [key: string]: unknown
}

interface ToolCall {
  readonly tool_name: string
  readonly tool_input: unknown
  readonly tool_use_id: string
  readonly mcp_server?: unknown
}

interface ModelSwitch {
  readonly from_model: string
  readonly to_model: string
  readonly requested_model: string | null
  readonly source: string
  readonly context_tokens: number
}

interface Task {
  readonly task_id: string
  readonly task_subject: string
  readonly task_description?: string | undefined
  readonly teammate_name?: string | undefined
  readonly team_name?: string | undefined
}

/**
 * The fields of each event's input beside {@link BaseInput}.
 *
 * @since 0.1.0
 * @category models
 */
export interface InputFields {
  readonly PreToolUse: ToolCall
  readonly PostToolUse: ToolCall & { readonly tool_response: unknown; readonly duration_ms?: number | undefined }
  readonly PostToolUseFailure: ToolCall & {
    readonly error: string
    readonly is_interrupt?: boolean | undefined
    readonly duration_ms?: number | undefined
  }
  readonly PostToolBatch: { readonly tool_calls: ReadonlyArray<Readonly<Record<string, unknown>>> }
  readonly Notification: { readonly message: string; readonly title?: string | undefined; readonly notification_type: string }
  readonly UserPromptSubmit: { readonly prompt: string; readonly source?: string | undefined }
  readonly UserPromptExpansion: {
    readonly expansion_type: "slash_command" | "mcp_prompt"
    readonly command_name: string
    readonly command_args: string
    readonly prompt: string
  }
  readonly SessionStart: { readonly source: "startup" | "resume" | "clear" | "compact" | "fork"; readonly model?: string | undefined }
  readonly SessionEnd: { readonly reason: string }
  readonly Stop: { readonly stop_hook_active: boolean; readonly last_assistant_message?: string | undefined }
  readonly StopFailure: { readonly error: unknown; readonly error_details?: string | undefined }
  readonly SubagentStart: { readonly agent_id: string; readonly agent_type: string }
  readonly SubagentStop: {
    readonly stop_hook_active: boolean
    readonly agent_id: string
    readonly agent_transcript_path: string
    readonly agent_type: string
    readonly last_assistant_message?: string | undefined
  }
  readonly PreCompact: { readonly trigger: "manual" | "auto"; readonly custom_instructions: string | null }
  readonly PostCompact: { readonly trigger: "manual" | "auto"; readonly compact_summary: string }
  readonly PreModelSwitch: ModelSwitch
  readonly PostModelSwitch: ModelSwitch
  readonly PermissionRequest: {
    readonly tool_name: string
    readonly tool_input: unknown
    readonly permission_suggestions?: ReadonlyArray<unknown> | undefined
  }
  readonly PermissionDenied: ToolCall & { readonly reason: string }
  readonly Setup: { readonly trigger: "init" | "maintenance" }
  readonly TeammateIdle: { readonly teammate_name: string; readonly team_name: string }
  readonly TaskCreated: Task
  readonly TaskCompleted: Task
  readonly Elicitation: {
    readonly mcp_server_name: string
    readonly message: string
    readonly mode?: "form" | "url" | undefined
    readonly url?: string | undefined
    readonly elicitation_id?: string | undefined
    readonly requested_schema?: Readonly<Record<string, unknown>> | undefined
  }
  readonly ElicitationResult: {
    readonly mcp_server_name: string
    readonly elicitation_id?: string | undefined
    readonly action: "accept" | "decline" | "cancel"
    readonly content?: Readonly<Record<string, unknown>> | undefined
  }
  readonly ConfigChange: { readonly source: string; readonly file_path?: string | undefined }
  readonly WorktreeCreate: { readonly name: string }
  readonly WorktreeRemove: { readonly worktree_path: string }
  readonly InstructionsLoaded: {
    readonly file_path: string
    readonly memory_type: "User" | "Project" | "Local" | "Managed"
    readonly load_reason: string
  }
  readonly CwdChanged: { readonly old_cwd: string; readonly new_cwd: string }
  readonly FileChanged: { readonly file_path: string; readonly event: "change" | "add" | "unlink" }
  readonly DirectoryAdded: { readonly directory: string; readonly source: string }
  readonly MessageDisplay: {
    readonly turn_id: string
    readonly message_id: string
    readonly index: number
    readonly final: boolean
    readonly delta: string
  }
  /**
   * A shell command that a skill's or command's text holds, about to run as it loads (its `tool_use_id`
   * names no tool call).
   */
  readonly PreSkillShellCommand: {
    readonly tool_name: string
    readonly tool_input: { readonly command: string }
    readonly tool_use_id: string
    readonly command_name: string
    readonly command_source?: string | undefined
    readonly invoked_by: "user" | "claude" | "other"
  }
}

/**
 * The input of a hook for event `E`.
 *
 * @since 0.1.0
 * @category models
 */
export type Input<E extends HookEvent = HookEvent> = E extends HookEvent
  ? BaseInput & { readonly hook_event_name: E } & InputFields[E]
  : never

type Context = { readonly additionalContext?: string | undefined }

/**
 * What a hook for each event may answer in `hookSpecificOutput` (events without one take only the common
 * fields).
 *
 * @since 0.1.0
 * @category models
 */
export interface SpecificOutputFields {
  readonly PreToolUse: {
    /** `deny` blocks the tool with the reason shown to the model, `allow` skips the prompt, `ask` prompts. */
    readonly permissionDecision?: "allow" | "deny" | "ask" | "defer" | undefined
    readonly permissionDecisionReason?: string | undefined
    readonly updatedInput?: Readonly<Record<string, unknown>> | undefined
  } & Context
  readonly PostToolUse: { readonly updatedToolOutput?: unknown; readonly updatedMCPToolOutput?: unknown } & Context
  readonly PostToolUseFailure: Context
  readonly PostToolBatch: Context
  readonly Notification: Context
  readonly UserPromptSubmit: { readonly sessionTitle?: string | undefined; readonly suppressOriginalPrompt?: boolean | undefined } & Context
  readonly UserPromptExpansion: Context
  readonly SessionStart: { readonly initialUserMessage?: string | undefined; readonly sessionTitle?: string | undefined } & Context
  readonly Setup: Context
  readonly SubagentStart: Context
  readonly Stop: Context
  readonly SubagentStop: Context
  readonly PreModelSwitch: Readonly<Record<string, unknown>>
  readonly PostModelSwitch: Readonly<Record<string, unknown>>
  readonly PermissionDenied: { readonly retry?: boolean | undefined }
  readonly PermissionRequest: {
    readonly decision:
      | {
        readonly behavior: "allow"
        readonly updatedInput?: Readonly<Record<string, unknown>> | undefined
        readonly updatedPermissions?: ReadonlyArray<unknown> | undefined
      }
      | { readonly behavior: "deny"; readonly message?: string | undefined; readonly interrupt?: boolean | undefined }
  }
  readonly Elicitation: {
    readonly action?: "accept" | "decline" | "cancel" | undefined
    readonly content?: Readonly<Record<string, unknown>> | undefined
  }
  readonly ElicitationResult: {
    readonly action?: "accept" | "decline" | "cancel" | undefined
    readonly content?: Readonly<Record<string, unknown>> | undefined
  }
  readonly CwdChanged: { readonly watchPaths?: ReadonlyArray<string> | undefined }
  readonly FileChanged: { readonly watchPaths?: ReadonlyArray<string> | undefined }
  readonly WorktreeCreate: { readonly worktreePath?: string | undefined }
  readonly MessageDisplay: Readonly<Record<string, unknown>>
  readonly PreSkillShellCommand: {
    /** `allow` adds nothing; `deny`, `ask` and `defer` all keep the command from running. */
    readonly permissionDecision?: "allow" | "deny" | "ask" | "defer" | undefined
    readonly permissionDecisionReason?: string | undefined
    /** Never applied: any value keeps the command from running. */
    readonly updatedInput?: Readonly<Record<string, unknown>> | undefined
  }
}

/**
 * The `hookSpecificOutput` of a hook for event `E`.
 *
 * @since 0.1.0
 * @category models
 */
export type SpecificOutput<E extends HookEvent = HookEvent> = E extends keyof SpecificOutputFields
  ? { readonly hookEventName: E } & SpecificOutputFields[E]
  : never

/**
 * A hook's answer: `continue: false` (with a `stopReason`) ends the turn, `decision: "block"` with a `reason`
 * blocks the action, `systemMessage` is shown to the user, `hookSpecificOutput` says what the event allows.
 *
 * @since 0.1.0
 * @category models
 */
export interface Output<E extends HookEvent = HookEvent> {
  readonly continue?: boolean | undefined
  readonly suppressOutput?: boolean | undefined
  readonly stopReason?: string | undefined
  readonly decision?: "approve" | "block" | undefined
  readonly reason?: string | undefined
  readonly systemMessage?: string | undefined
  readonly hookSpecificOutput?: SpecificOutput<E> | undefined
}
