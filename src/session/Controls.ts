/**
 * The control requests a session can send the CLI beyond turns, interrupts and modes, each a typed method:
 * its parameters in the SDK's terms, the request framed as the CLI reads it, and the answer decoded with a
 * Schema (objects keep the keys a schema does not name, since newer CLIs add some). An answer that does not
 * fit fails with `InvalidResponse`; a request the CLI refuses fails with `ControlRequestFailed` and its reason.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as PermissionModes from "../internal/permissionMode.ts"
import type * as QueryOptions from "../QueryOptions.ts"
import * as ControlAnswer from "../schema/ControlAnswer.ts"
import { JsonObject } from "../schema/internal/fields.ts"
import * as Answer from "./internal/answer.ts"
import type * as Protocol from "./Protocol.ts"
import type * as SessionError from "./SessionError.ts"

// An answer with nothing in it beyond success (the CLI writes `{}`).
const Empty = JsonObject

/**
 * How `callMcpTool` calls the tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpCallOptions {
  /**
   * How long the tool may run (clamped to 1 s .. 10 min; the CLI's default is 2 min); with `checkPermissions`
   * it also bounds the hooks and the wait for an answer.
   */
  readonly timeout?: Duration.Input | undefined
  /**
   * Decide the call as the model's own call to the tool is: permission rules and mode, `canUseTool`,
   * PreToolUse and PostToolUse hooks.
   */
  readonly checkPermissions?: boolean | undefined
  /** The result goes to a program, not to a model: `content` is the server's own blocks, not what a model would read. */
  readonly resultNotForModel?: boolean | undefined
  /** Answer the tool's own error result (`isError: true`, with its content) rather than failing with its text. */
  readonly softErrorResult?: boolean | undefined
}

/**
 * An MCP server configuration for `setMcpServers`: stdio, http or sse, as in `.mcp.json`.
 *
 * @since 0.1.0
 * @category models
 */
export type McpServerConfig = Readonly<Record<string, unknown>> & { readonly type?: string }

/**
 * The typed control requests of a session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Controls {
  /** The status of every MCP server (connected, failed, disabled, ...) with its tools. */
  readonly mcpServerStatus: Effect.Effect<ReadonlyArray<ControlAnswer.McpServerStatus>, SessionError.SessionError>
  /** Replaces the MCP servers added at run time (stdio, http, sse); the others stay. */
  readonly setMcpServers: (
    servers: Readonly<Record<string, McpServerConfig>>
  ) => Effect.Effect<ControlAnswer.McpSetServersResult, SessionError.SessionError>
  readonly reconnectMcpServer: (serverName: string) => Effect.Effect<void, SessionError.SessionError>
  /** Disables (its tools leave the model's list) or enables an MCP server. */
  readonly toggleMcpServer: (serverName: string, enabled: boolean) => Effect.Effect<void, SessionError.SessionError>
  readonly readMcpResource: (
    serverName: string,
    uri: string
  ) => Effect.Effect<typeof ControlAnswer.McpResourceContents.Type, SessionError.SessionError>
  /**
   * Restores the files edited since the user message `userMessageId` (a uuid from the output) to their state
   * then; `dryRun` only says what would change. Needs `enableFileCheckpointing`.
   */
  readonly rewindFiles: (
    userMessageId: string,
    options?: { readonly dryRun?: boolean | undefined }
  ) => Effect.Effect<ControlAnswer.RewindFilesResult, SessionError.SessionError>
  readonly contextUsage: (
    options?: { readonly detail?: "summary" | "full" | undefined }
  ) => Effect.Effect<ControlAnswer.ContextWindowUsage, SessionError.SessionError>
  readonly usage: (
    options?: { readonly skipBehaviors?: boolean | undefined }
  ) => Effect.Effect<typeof ControlAnswer.SessionUsage.Type, SessionError.SessionError>
  readonly sessionCost: Effect.Effect<string, SessionError.SessionError>
  /** Stops a background task (a subagent, a shell) by its task id. */
  readonly stopTask: (taskId: string) => Effect.Effect<void, SessionError.SessionError>
  /**
   * Sends running foreground tasks (or the one of `toolUseId`) to the background. Answers whether one was:
   * false only when `toolUseId` names no foreground task. Fails where background tasks are disabled.
   */
  readonly backgroundTasks: (toolUseId?: string) => Effect.Effect<boolean, SessionError.SessionError>
  /**
   * Changes the permission mode from the next tool use on (`"default"` asks again). Answers the mode now in
   * effect, which is not always the one asked for (`undefined` where the CLI names none, or one it does not
   * know).
   */
  readonly setPermissionMode: (
    mode: QueryOptions.PermissionMode
  ) => Effect.Effect<QueryOptions.PermissionMode | undefined, SessionError.SessionError>
  readonly taskOutput: (taskId: string) => Effect.Effect<typeof ControlAnswer.TaskOutput.Type, SessionError.SessionError>
  /** The thinking budget from the next model request on (`null`: the session's default). */
  readonly setMaxThinkingTokens: (
    maxThinkingTokens: number | null,
    display?: "summarized" | "omitted" | "highlights" | null
  ) => Effect.Effect<void, SessionError.SessionError>
  /** Merges settings into the flag layer (highest of the user-controlled ones); `null` removes a key. */
  readonly applyFlagSettings: (settings: Readonly<Record<string, unknown>>) => Effect.Effect<void, SessionError.SessionError>
  readonly settings: Effect.Effect<typeof ControlAnswer.Settings.Type, SessionError.SessionError>
  /** Writes settings to the local or user settings file. */
  readonly updateSettings: (
    source: "localSettings" | "userSettings",
    settings: Readonly<Record<string, unknown>>
  ) => Effect.Effect<void, SessionError.SessionError>
  readonly reloadPlugins: (options?: {
    readonly addPlugins?: ReadonlyArray<QueryOptions.Plugin> | undefined
    readonly refuseIfBusy?: boolean | undefined
    readonly holdOnCacheImpact?: boolean | undefined
  }) => Effect.Effect<ControlAnswer.ReloadPluginsResult, SessionError.SessionError>
  readonly reloadSkills: Effect.Effect<typeof ControlAnswer.ReloadSkillsResult.Type, SessionError.SessionError>
  readonly reloadOutputStyles: Effect.Effect<ReadonlyArray<string>, SessionError.SessionError>
  /** Renames the session (its title in `/resume` and the transcript). */
  readonly rename: (title: string) => Effect.Effect<void, SessionError.SessionError>
  readonly supportedModels: Effect.Effect<ReadonlyArray<ControlAnswer.Model>, SessionError.SessionError>
  readonly binaryVersion: Effect.Effect<typeof ControlAnswer.BinaryVersion.Type, SessionError.SessionError>
  readonly hooksListing: Effect.Effect<typeof ControlAnswer.HooksListing.Type, SessionError.SessionError>
  readonly permissionRules: Effect.Effect<typeof ControlAnswer.PermissionRules.Type, SessionError.SessionError>
  /** Reads a file the session's permissions let it read. */
  readonly readFile: (
    path: string,
    options?: { readonly maxBytes?: number | undefined; readonly encoding?: "utf-8" | "base64" | undefined }
  ) => Effect.Effect<typeof ControlAnswer.FileContents.Type, SessionError.SessionError>
  /** Tells the CLI a file was read at `mtime` (ms), so that edits to it need no read first. */
  readonly seedReadState: (path: string, mtime: number) => Effect.Effect<void, SessionError.SessionError>
  readonly fileSuggestions: (query: string) => Effect.Effect<typeof ControlAnswer.FileSuggestions.Type, SessionError.SessionError>
  /** Withdraws a queued user message (by its uuid) the model has not seen yet. */
  readonly cancelAsyncMessage: (messageUuid: string) => Effect.Effect<boolean, SessionError.SessionError>
  /** Whether someone watches the session (the CLI may hold notifications otherwise). */
  readonly setHasSubscribers: (hasSubscribers: boolean | null) => Effect.Effect<void, SessionError.SessionError>
  /**
   * Overrides how the tools of one MCP server are permitted (`auto`: without asking; `null` removes the
   * override); the answer may carry a `warning`.
   */
  readonly setMcpPermissionModeOverride: (
    serverName: string,
    mode: "default" | "auto" | null
  ) => Effect.Effect<{ readonly warning?: string | undefined }, SessionError.SessionError>
  /** Calls a tool of an MCP server (`mcp__<server>__<tool>`) directly, outside the model's turn. */
  readonly callMcpTool: (
    tool: string,
    args?: Readonly<Record<string, unknown>>,
    options?: McpCallOptions
  ) => Effect.Effect<ControlAnswer.McpCallResult, SessionError.SessionError>
  /** Adds a repository root (CLAUDE.md, plugins and skills from there, optionally reloaded). */
  readonly registerRepoRoot: (
    directory: string,
    options?: {
      readonly reloadClaudeMd?: boolean | undefined
      readonly reloadPlugins?: boolean | undefined
      readonly reloadSkills?: boolean | undefined
    }
  ) => Effect.Effect<Readonly<Record<string, unknown>>, SessionError.SessionError>
}

const isPermissionMode = Schema.is(PermissionModes.PermissionMode)
const callMargin = Duration.seconds(10)

// The body without the keys left undefined: the CLI validates what it is given.
const body = (subtype: string, fields: Record<string, unknown> = {}) => ({
  subtype,
  ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))
})

/**
 * The typed requests over a session's `request`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (request: Protocol.Protocol["request"]): Controls => {
  const call = <S extends Schema.Top & { readonly DecodingServices: never }>(
    schema: S,
    subtype: string,
    fields?: Record<string, unknown>,
    timeout?: Duration.Duration
  ): Effect.Effect<S["Type"], SessionError.SessionError> =>
    Effect.flatMap(request(body(subtype, fields), timeout && { timeout }), Answer.decode(schema, subtype))
  const done = (subtype: string, fields?: Record<string, unknown>) => Effect.asVoid(call(Empty, subtype, fields))
  return {
    mcpServerStatus: Effect.map(call(ControlAnswer.McpStatusResponse, "mcp_status"), (r) => r.mcpServers),
    setMcpServers: (servers) => call(ControlAnswer.McpSetServersResult, "mcp_set_servers", { servers }),
    reconnectMcpServer: (serverName) => done("mcp_reconnect", { serverName }),
    toggleMcpServer: (serverName, enabled) => done("mcp_toggle", { serverName, enabled }),
    readMcpResource: (serverName, uri) => call(ControlAnswer.McpResourceContents, "mcp_read_resource", { serverName, uri }),
    rewindFiles: (userMessageId, options) =>
      call(ControlAnswer.RewindFilesResult, "rewind_files", { user_message_id: userMessageId, dry_run: options?.dryRun }),
    contextUsage: (options) => call(ControlAnswer.ContextWindowUsage, "get_context_usage", { detail: options?.detail }),
    usage: (options) => call(ControlAnswer.SessionUsage, "get_usage", { skip_behaviors: options?.skipBehaviors }),
    sessionCost: Effect.map(call(ControlAnswer.SessionCost, "get_session_cost"), (r) => r.text),
    stopTask: (taskId) => done("stop_task", { task_id: taskId }),
    // A CLI that answers `{}` backgrounded them all, as the SDK reads it.
    backgroundTasks: (toolUseId) =>
      Effect.map(
        call(ControlAnswer.BackgroundTasksResult, "background_tasks", { tool_use_id: toolUseId }),
        (r) => r.backgrounded ?? true
      ),
    setPermissionMode: (mode) =>
      Effect.map(
        call(ControlAnswer.SetPermissionModeResult, "set_permission_mode", { mode }),
        (r) => isPermissionMode(r.mode) ? r.mode : undefined
      ),
    taskOutput: (taskId) => call(ControlAnswer.TaskOutput, "get_task_output", { task_id: taskId }),
    setMaxThinkingTokens: (maxThinkingTokens, display) =>
      done("set_max_thinking_tokens", { max_thinking_tokens: maxThinkingTokens, thinking_display: display }),
    applyFlagSettings: (settings) => done("apply_flag_settings", { settings }),
    settings: call(ControlAnswer.Settings, "get_settings"),
    updateSettings: (source, settings) => done("update_settings", { source, settings }),
    reloadPlugins: (options) =>
      call(ControlAnswer.ReloadPluginsResult, "reload_plugins", {
        add_plugins: options?.addPlugins,
        refuse_if_busy: options?.refuseIfBusy,
        hold_on_cache_impact: options?.holdOnCacheImpact
      }),
    reloadSkills: call(ControlAnswer.ReloadSkillsResult, "reload_skills"),
    reloadOutputStyles: Effect.map(call(ControlAnswer.ReloadOutputStylesResult, "reload_output_styles"), (r) => r.available_output_styles),
    rename: (title) => done("rename_session", { title, source: "host" }),
    supportedModels: Effect.map(call(ControlAnswer.Models, "list_models"), (r) => r.models),
    binaryVersion: call(ControlAnswer.BinaryVersion, "get_binary_version"),
    hooksListing: call(ControlAnswer.HooksListing, "get_hooks_listing"),
    permissionRules: call(ControlAnswer.PermissionRules, "list_permission_rules"),
    readFile: (path, options) =>
      call(ControlAnswer.FileContents, "read_file", { path, max_bytes: options?.maxBytes, encoding: options?.encoding }),
    seedReadState: (path, mtime) => done("seed_read_state", { path, mtime }),
    fileSuggestions: (query) => call(ControlAnswer.FileSuggestions, "file_suggestions", { query }),
    cancelAsyncMessage: (messageUuid) =>
      Effect.map(call(ControlAnswer.CancelAsyncMessageResult, "cancel_async_message", { message_uuid: messageUuid }), (r) => r.cancelled),
    setHasSubscribers: (hasSubscribers) => done("set_has_subscribers", { has_subscribers: hasSubscribers }),
    setMcpPermissionModeOverride: (serverName, mode) =>
      call(ControlAnswer.McpPermissionModeOverrideResult, "set_mcp_permission_mode_override", { serverName, mode }),
    callMcpTool: (tool, args, options) => {
      const timeout = options?.timeout === undefined ? undefined : Duration.fromInputUnsafe(options.timeout)
      return call(
        ControlAnswer.McpCallResult,
        "mcp_call",
        {
          tool,
          arguments: args,
          timeout_ms: timeout && Duration.toMillis(timeout),
          check_permissions: options?.checkPermissions,
          result_not_for_model: options?.resultNotForModel,
          soft_error_result: options?.softErrorResult
        },
        // The request outlives the tool's own deadline, so that the CLI's answer to it arrives.
        timeout && Duration.sum(timeout, callMargin)
      )
    },
    registerRepoRoot: (directory, options) =>
      call(JsonObject, "register_repo_root", {
        directory,
        reload_claude_md: options?.reloadClaudeMd,
        reload_plugins: options?.reloadPlugins,
        reload_skills: options?.reloadSkills
      })
  }
}
