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
import {
  JsonObject,
  open,
  optionalBoolean,
  optionalNullableString,
  optionalNumber,
  optionalString,
  optionalStrings,
  optionalTrue
} from "../schema/internal/fields.ts"
import * as Initialization from "./Initialization.ts"
import * as Answer from "./internal/answer.ts"
import type * as Protocol from "./Protocol.ts"
import type * as SessionError from "./SessionError.ts"

const list = <S extends Schema.Top>(item: S) => Schema.Array(item)
const optionalObject = Schema.optionalKey(JsonObject)
const optionalObjects = Schema.optionalKey(list(JsonObject))
const optionalNullableObject = Schema.optionalKey(Schema.NullOr(JsonObject))

// An answer with nothing in it beyond success (the CLI writes `{}`).
const Empty = JsonObject

/**
 * An MCP server as the CLI sees it: its status (`connected`, `failed`, `needs-auth`, `pending`, `disabled`),
 * the error that stopped it, its tools.
 *
 * @since 0.1.0
 * @category schemas
 */
export const McpServerStatus = open({
  name: Schema.String,
  status: Schema.String,
  serverInfo: Schema.optionalKey(open({ name: Schema.String, version: optionalString })),
  error: optionalString,
  scope: optionalString,
  source: optionalString,
  config: optionalObject,
  tools: Schema.optionalKey(list(open({ name: Schema.String, description: optionalString })))
})

/**
 * @since 0.1.0
 * @category models
 */
export type McpServerStatus = typeof McpServerStatus.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const McpStatusResponse = open({ mcpServers: list(McpServerStatus) })

/**
 * What `setMcpServers` changed: servers added and removed, errors by server.
 *
 * @since 0.1.0
 * @category schemas
 */
export const McpSetServersResult = open({
  added: list(Schema.String),
  removed: list(Schema.String),
  errors: Schema.Record(Schema.String, Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type McpSetServersResult = typeof McpSetServersResult.Type

/**
 * A resource an MCP server read.
 *
 * @since 0.1.0
 * @category schemas
 */
export const McpResourceContents = open({
  contents: list(open({ uri: Schema.String, mimeType: optionalString, text: optionalString, blob: optionalString }))
})

/**
 * Whether the files could be rewound, and what changed (or would, in a dry run).
 *
 * @since 0.1.0
 * @category schemas
 */
export const RewindFilesResult = open({
  canRewind: Schema.Boolean,
  error: optionalString,
  filesChanged: optionalStrings,
  insertions: optionalNumber,
  deletions: optionalNumber,
  /** Files not restored because a link or another non-regular file stands at their path. */
  skippedLinks: optionalNumber
})

/**
 * @since 0.1.0
 * @category models
 */
export type RewindFilesResult = typeof RewindFilesResult.Type

/**
 * How the context window is used, by category (system prompt, tools, messages, free space, ...).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContextUsage = open({
  categories: list(open({ id: optionalString, name: Schema.String, tokens: Schema.Number, kind: optionalString })),
  totalTokens: Schema.Number,
  maxTokens: Schema.Number,
  percentage: Schema.Number,
  model: Schema.String,
  // The details, optional here so that an answer without one still decodes.
  rawMaxTokens: optionalNumber,
  gridRows: Schema.optionalKey(list(list(JsonObject))),
  memoryFiles: optionalObjects,
  mcpTools: optionalObjects,
  mcpInstructions: optionalObjects,
  deferredBuiltinTools: optionalObjects,
  systemTools: optionalObjects,
  systemPromptSections: optionalObjects,
  agents: optionalObjects,
  slashCommands: optionalObject,
  skills: optionalObject,
  autoCompactThreshold: optionalNumber,
  isAutoCompactEnabled: optionalBoolean,
  messageBreakdown: optionalObject,
  apiUsage: optionalObject
})

/**
 * @since 0.1.0
 * @category models
 */
export type ContextUsage = typeof ContextUsage.Type

/**
 * The session's usage: cost, durations, lines changed and tokens by model; rate limits when known.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Usage = open({
  session: Schema.optionalKey(open({
    total_cost_usd: Schema.Number,
    total_api_duration_ms: optionalNumber,
    total_duration_ms: optionalNumber,
    model_usage: Schema.optionalKey(Schema.Record(Schema.String, JsonObject))
  })),
  rate_limits_available: optionalBoolean,
  subscription_type: optionalNullableString,
  // Claude Code 2.1.332 answers null where the SDK types an object (no rate limits known, no behaviors).
  rate_limits: optionalNullableObject,
  behaviors: optionalNullableObject
})

/**
 * The session's cost as the `/cost` command shows it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionCost = open({ text: Schema.String })

/**
 * What `reloadPlugins` loaded: commands, agents, plugins and MCP servers after the reload.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReloadPluginsResult = open({
  commands: list(Initialization.SlashCommand),
  agents: list(Initialization.Agent),
  plugins: list(open({ name: Schema.String, path: Schema.String, source: optionalString, version: optionalString })),
  mcpServers: list(McpServerStatus),
  error_count: Schema.Number,
  held: optionalBoolean,
  cache_impact: optionalObject
})

/**
 * @since 0.1.0
 * @category models
 */
export type ReloadPluginsResult = typeof ReloadPluginsResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ReloadSkillsResult = open({ skills: list(Initialization.SlashCommand) })

/**
 * @since 0.1.0
 * @category schemas
 */
export const ReloadOutputStylesResult = open({ available_output_styles: list(Schema.String) })

/**
 * The settings in effect, where they came from, and what the session applied (model, effort, ...).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Settings = open({
  effective: JsonObject,
  sources: list(JsonObject),
  applied: Schema.optionalKey(JsonObject)
})

/**
 * The output of a background shell or monitor task: its text, its whole size, and whether the text is cut.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskOutput = open({ output: optionalString, total_bytes: optionalNumber, truncated: optionalBoolean })

/**
 * The CLI's own version and build.
 *
 * @since 0.1.0
 * @category schemas
 */
export const BinaryVersion = open({ version: Schema.String, buildTime: optionalString })

/**
 * @since 0.1.0
 * @category schemas
 */
export const Models = open({ models: list(Initialization.Model) })

/**
 * The hooks registered, by event, and the catalogue of events.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HooksListing = open({
  events: list(Schema.Unknown),
  hooks: list(Schema.Unknown),
  eventCatalog: optionalObjects,
  policy: optionalObject,
  safeMode: optionalObject,
  bareMode: optionalObject,
  errors: optionalObjects
})

/**
 * The permission rules in effect.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionRules = open({ state: open({ rules: list(Schema.Unknown) }) })

/**
 * A file the CLI read for the host.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FileContents = open({
  contents: Schema.String,
  absPath: Schema.String,
  truncated: optionalBoolean,
  encoding: optionalString,
  /** The text is not the file's bytes exactly (it was not valid UTF-8). */
  lossy: optionalBoolean
})

/**
 * Paths matching a partial `@` mention.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FileSuggestions = open({ suggestions: list(Schema.Unknown), cwd: optionalString })

/**
 * Whether a queued message was withdrawn before the model saw it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CancelAsyncMessageResult = open({ cancelled: Schema.Boolean })

/**
 * What an interrupt answers (CLIs with `interrupt_receipt_v1`): the uuids of the queued prompts that survive
 * it and will run, and, when it withdrew them (`cancel_queued`), those it withdrew. Uuids the host never sent
 * (a cron trigger, say) may be listed too.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InterruptReceipt = open({ still_queued: list(Schema.String), cancelled: optionalStrings })

/**
 * @since 0.1.0
 * @category models
 */
export type InterruptReceipt = typeof InterruptReceipt.Type

/**
 * What `callMcpTool` answers: the tool's content blocks, its `structuredContent` and `_meta`; `isError` when
 * the call asked for the tool's own error result (`softErrorResult`) and got one; `staging` for a call with a
 * timeout, which goes through the CLI's staging engine.
 *
 * @since 0.1.0
 * @category schemas
 */
export const McpCallResult = open({
  content: Schema.Unknown,
  isError: optionalBoolean,
  structuredContent: Schema.optionalKey(JsonObject),
  _meta: Schema.optionalKey(JsonObject),
  staging: Schema.optionalKey(Schema.Union([
    open({
      ok: Schema.Literal(true),
      outputs: list(open({ lane_path: Schema.String, etag: Schema.String, bytes: Schema.Number })),
      inputs_used: list(open({ lane_path: Schema.String, etag: Schema.String }))
    }),
    open({
      ok: Schema.Literal(false),
      error_code: Schema.String,
      detail: Schema.String,
      retryable: optionalBoolean,
      refusal_limit: optionalTrue
    })
  ]))
})

/**
 * @since 0.1.0
 * @category models
 */
export type McpCallResult = typeof McpCallResult.Type

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
  readonly mcpServerStatus: Effect.Effect<ReadonlyArray<McpServerStatus>, SessionError.SessionError>
  /** Replaces the MCP servers added at run time (stdio, http, sse); the others stay. */
  readonly setMcpServers: (
    servers: Readonly<Record<string, McpServerConfig>>
  ) => Effect.Effect<McpSetServersResult, SessionError.SessionError>
  readonly reconnectMcpServer: (serverName: string) => Effect.Effect<void, SessionError.SessionError>
  /** Disables (its tools leave the model's list) or enables an MCP server. */
  readonly toggleMcpServer: (serverName: string, enabled: boolean) => Effect.Effect<void, SessionError.SessionError>
  readonly readMcpResource: (
    serverName: string,
    uri: string
  ) => Effect.Effect<typeof McpResourceContents.Type, SessionError.SessionError>
  /**
   * Restores the files edited since the user message `userMessageId` (a uuid from the output) to their state
   * then; `dryRun` only says what would change. Needs `enableFileCheckpointing`.
   */
  readonly rewindFiles: (
    userMessageId: string,
    options?: { readonly dryRun?: boolean | undefined }
  ) => Effect.Effect<RewindFilesResult, SessionError.SessionError>
  readonly contextUsage: (
    options?: { readonly detail?: "summary" | "full" | undefined }
  ) => Effect.Effect<ContextUsage, SessionError.SessionError>
  readonly usage: (
    options?: { readonly skipBehaviors?: boolean | undefined }
  ) => Effect.Effect<typeof Usage.Type, SessionError.SessionError>
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
  readonly taskOutput: (taskId: string) => Effect.Effect<typeof TaskOutput.Type, SessionError.SessionError>
  /** The thinking budget from the next model request on (`null`: the session's default). */
  readonly setMaxThinkingTokens: (
    maxThinkingTokens: number | null,
    display?: "summarized" | "omitted" | "highlights" | null
  ) => Effect.Effect<void, SessionError.SessionError>
  /** Merges settings into the flag layer (highest of the user-controlled ones); `null` removes a key. */
  readonly applyFlagSettings: (settings: Readonly<Record<string, unknown>>) => Effect.Effect<void, SessionError.SessionError>
  readonly settings: Effect.Effect<typeof Settings.Type, SessionError.SessionError>
  /** Writes settings to the local or user settings file. */
  readonly updateSettings: (
    source: "localSettings" | "userSettings",
    settings: Readonly<Record<string, unknown>>
  ) => Effect.Effect<void, SessionError.SessionError>
  readonly reloadPlugins: (options?: {
    readonly addPlugins?: ReadonlyArray<QueryOptions.Plugin> | undefined
    readonly refuseIfBusy?: boolean | undefined
    readonly holdOnCacheImpact?: boolean | undefined
  }) => Effect.Effect<ReloadPluginsResult, SessionError.SessionError>
  readonly reloadSkills: Effect.Effect<typeof ReloadSkillsResult.Type, SessionError.SessionError>
  readonly reloadOutputStyles: Effect.Effect<ReadonlyArray<string>, SessionError.SessionError>
  /** Renames the session (its title in `/resume` and the transcript). */
  readonly rename: (title: string) => Effect.Effect<void, SessionError.SessionError>
  readonly supportedModels: Effect.Effect<ReadonlyArray<Initialization.Model>, SessionError.SessionError>
  readonly binaryVersion: Effect.Effect<typeof BinaryVersion.Type, SessionError.SessionError>
  readonly hooksListing: Effect.Effect<typeof HooksListing.Type, SessionError.SessionError>
  readonly permissionRules: Effect.Effect<typeof PermissionRules.Type, SessionError.SessionError>
  /** Reads a file the session's permissions let it read. */
  readonly readFile: (
    path: string,
    options?: { readonly maxBytes?: number | undefined; readonly encoding?: "utf-8" | "base64" | undefined }
  ) => Effect.Effect<typeof FileContents.Type, SessionError.SessionError>
  /** Tells the CLI a file was read at `mtime` (ms), so that edits to it need no read first. */
  readonly seedReadState: (path: string, mtime: number) => Effect.Effect<void, SessionError.SessionError>
  readonly fileSuggestions: (query: string) => Effect.Effect<typeof FileSuggestions.Type, SessionError.SessionError>
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
  ) => Effect.Effect<McpCallResult, SessionError.SessionError>
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

const BackgroundTasksAnswer = open({ backgrounded: optionalBoolean })
const SetPermissionModeAnswer = open({ mode: optionalString })
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
    mcpServerStatus: Effect.map(call(McpStatusResponse, "mcp_status"), (r) => r.mcpServers),
    setMcpServers: (servers) => call(McpSetServersResult, "mcp_set_servers", { servers }),
    reconnectMcpServer: (serverName) => done("mcp_reconnect", { serverName }),
    toggleMcpServer: (serverName, enabled) => done("mcp_toggle", { serverName, enabled }),
    readMcpResource: (serverName, uri) => call(McpResourceContents, "mcp_read_resource", { serverName, uri }),
    rewindFiles: (userMessageId, options) =>
      call(RewindFilesResult, "rewind_files", { user_message_id: userMessageId, dry_run: options?.dryRun }),
    contextUsage: (options) => call(ContextUsage, "get_context_usage", { detail: options?.detail }),
    usage: (options) => call(Usage, "get_usage", { skip_behaviors: options?.skipBehaviors }),
    sessionCost: Effect.map(call(SessionCost, "get_session_cost"), (r) => r.text),
    stopTask: (taskId) => done("stop_task", { task_id: taskId }),
    // A CLI that answers `{}` backgrounded them all, as the SDK reads it.
    backgroundTasks: (toolUseId) =>
      Effect.map(
        call(BackgroundTasksAnswer, "background_tasks", { tool_use_id: toolUseId }),
        (r) => r.backgrounded ?? true
      ),
    setPermissionMode: (mode) =>
      Effect.map(
        call(SetPermissionModeAnswer, "set_permission_mode", { mode }),
        (r) => isPermissionMode(r.mode) ? r.mode : undefined
      ),
    taskOutput: (taskId) => call(TaskOutput, "get_task_output", { task_id: taskId }),
    setMaxThinkingTokens: (maxThinkingTokens, display) =>
      done("set_max_thinking_tokens", { max_thinking_tokens: maxThinkingTokens, thinking_display: display }),
    applyFlagSettings: (settings) => done("apply_flag_settings", { settings }),
    settings: call(Settings, "get_settings"),
    updateSettings: (source, settings) => done("update_settings", { source, settings }),
    reloadPlugins: (options) =>
      call(ReloadPluginsResult, "reload_plugins", {
        add_plugins: options?.addPlugins,
        refuse_if_busy: options?.refuseIfBusy,
        hold_on_cache_impact: options?.holdOnCacheImpact
      }),
    reloadSkills: call(ReloadSkillsResult, "reload_skills"),
    reloadOutputStyles: Effect.map(call(ReloadOutputStylesResult, "reload_output_styles"), (r) => r.available_output_styles),
    rename: (title) => done("rename_session", { title, source: "host" }),
    supportedModels: Effect.map(call(Models, "list_models"), (r) => r.models),
    binaryVersion: call(BinaryVersion, "get_binary_version"),
    hooksListing: call(HooksListing, "get_hooks_listing"),
    permissionRules: call(PermissionRules, "list_permission_rules"),
    readFile: (path, options) =>
      call(FileContents, "read_file", { path, max_bytes: options?.maxBytes, encoding: options?.encoding }),
    seedReadState: (path, mtime) => done("seed_read_state", { path, mtime }),
    fileSuggestions: (query) => call(FileSuggestions, "file_suggestions", { query }),
    cancelAsyncMessage: (messageUuid) =>
      Effect.map(call(CancelAsyncMessageResult, "cancel_async_message", { message_uuid: messageUuid }), (r) => r.cancelled),
    setHasSubscribers: (hasSubscribers) => done("set_has_subscribers", { has_subscribers: hasSubscribers }),
    setMcpPermissionModeOverride: (serverName, mode) =>
      call(open({ warning: optionalString }), "set_mcp_permission_mode_override", { serverName, mode }),
    callMcpTool: (tool, args, options) => {
      const timeout = options?.timeout === undefined ? undefined : Duration.fromInputUnsafe(options.timeout)
      return call(
        McpCallResult,
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
