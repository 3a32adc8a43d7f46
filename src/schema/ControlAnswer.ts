/**
 * The CLI's answers to the control requests a session sends (`initialize`, `mcp_status`, `get_context_usage`,
 * `reload_plugins`, ...), as Claude Code 2.1.332 writes them. Every object keeps the keys its schema does not
 * name (newer CLIs add some); the lists of `initialize` default to empty when a CLI leaves them out.
 *
 * Published as types (`effect-claude-code/schema`: `ControlAnswer.Initialization`, `ControlAnswer.Model`,
 * ...): users read these answers from the session's methods and never decode them.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import {
  JsonObject,
  open,
  optionalBoolean,
  optionalNullableString,
  optionalNumber,
  optionalString,
  optionalStrings,
  optionalTrue
} from "./internal/fields.ts"

const list = <S extends Schema.Top>(item: S) => Schema.Array(item)
const optionalObject = Schema.optionalKey(JsonObject)
const optionalObjects = Schema.optionalKey(list(JsonObject))
const optionalNullableObject = Schema.optionalKey(Schema.NullOr(JsonObject))
const opt = Schema.optionalKey
const listOrEmpty = <S extends Schema.Top>(item: S) =>
  Schema.Array(item).pipe(Schema.withDecodingDefaultKey(Effect.succeed([])))

/**
 * A slash command the session accepts as a prompt (`/compact`, a skill, a project command), as `initialize`,
 * `reload_plugins`, `reload_skills` and the `commands_changed` system message list it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SlashCommand = open({
  name: Schema.String,
  description: optionalString,
  argumentHint: optionalString,
  aliases: optionalStrings,
  builtin: optionalBoolean
})

/**
 * @since 0.1.0
 * @category models
 */
export type SlashCommand = typeof SlashCommand.Type

/**
 * A subagent the model can start with the Task tool.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Agent = open({
  name: Schema.String,
  description: optionalString,
  model: optionalString
})

/**
 * @since 0.1.0
 * @category models
 */
export type Agent = typeof Agent.Type

/**
 * A model `setModel` accepts: `value` is what to pass, `resolvedModel` the model id it stands for.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Model = open({
  value: Schema.String,
  resolvedModel: optionalString,
  displayName: optionalString,
  description: optionalString,
  supportsEffort: optionalBoolean,
  supportedEffortLevels: optionalStrings,
  supportsAdaptiveThinking: optionalBoolean,
  supportsFastMode: optionalBoolean,
  supportsAutoMode: optionalBoolean,
  supportsThinkingOff: optionalBoolean
})

/**
 * @since 0.1.0
 * @category models
 */
export type Model = typeof Model.Type

/**
 * How the CLI is signed in (`apiKeySource: "ANTHROPIC_API_KEY"`, `apiProvider: "firstParty"`, an account's
 * email and organization for a subscription).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Account = open({
  email: optionalString,
  organization: optionalString,
  subscriptionType: optionalString,
  tokenSource: optionalString,
  apiKeySource: optionalString,
  apiProvider: optionalString
})

/**
 * @since 0.1.0
 * @category models
 */
export type Account = typeof Account.Type

/**
 * The whole `initialize` response: what `Session.initialization` holds.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Initialization = open({
  commands: listOrEmpty(SlashCommand),
  agents: listOrEmpty(Agent),
  models: listOrEmpty(Model),
  account: opt(Account),
  output_style: optionalString,
  available_output_styles: listOrEmpty(Schema.String),
  /** The CLI's own pid (the session's `pid` is the process the session started, which may be a wrapper). */
  pid: opt(Schema.Number),
  claude_code_version: optionalString,
  current_permission_mode: optionalString,
  capabilities: optionalStrings,
  // Whether the CLI applied what `initialize` sent (hooks, plugins, MCP servers) rather than ignoring it.
  hooks_applied: optionalBoolean,
  hook_on_failure_supported: optionalBoolean,
  plugins_applied: optionalBoolean,
  mcp_servers_applied: optionalBoolean,
  sdk_mcp_manifests_parked: opt(Schema.Record(Schema.String, Schema.String)),
  fast_mode_state: optionalString,
  fast_mode_disabled_reason: optionalString
})

/**
 * @since 0.1.0
 * @category models
 */
export type Initialization = typeof Initialization.Type

/**
 * A plugin as `init` and `reload_plugins` list it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PluginInfo = open({ name: Schema.String, path: Schema.String, source: optionalString, version: optionalString })

/**
 * @since 0.1.0
 * @category models
 */
export type PluginInfo = typeof PluginInfo.Type

/**
 * An MCP server as the CLI sees it (`mcp_status`; `init` lists the name, status and source): its status (`connected`, `failed`, `needs-auth`, `pending`, `disabled`),
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
export const ContextWindowUsage = open({
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
export type ContextWindowUsage = typeof ContextWindowUsage.Type

/**
 * The session's usage: cost, durations, lines changed and tokens by model; rate limits when known.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionUsage = open({
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
  commands: list(SlashCommand),
  agents: list(Agent),
  plugins: list(PluginInfo),
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
export const ReloadSkillsResult = open({ skills: list(SlashCommand) })

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
export const Models = open({ models: list(Model) })

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
 * Whether `background_tasks` sent a task to the background (the CLI may answer `{}`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const BackgroundTasksResult = open({ backgrounded: optionalBoolean })

/**
 * The permission mode `set_permission_mode` left in effect, where the CLI names one.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SetPermissionModeResult = open({ mode: optionalString })

/**
 * A warning `set_mcp_permission_mode_override` may answer with.
 *
 * @since 0.1.0
 * @category schemas
 */
export const McpPermissionModeOverrideResult = open({ warning: optionalString })
