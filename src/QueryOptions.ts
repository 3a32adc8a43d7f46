/**
 * Options of one `claude -p` run, and the pure mapping from options to the CLI's arguments.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"
import type * as PermissionModes from "./internal/permissionMode.ts"
import * as Redaction from "./internal/redaction.ts"
import type * as SessionStore from "./store/SessionStore.ts"
import { open, optionalBoolean, optionalNumber, optionalString, optionalStrings } from "./schema/internal/fields.ts"

/**
 * The CLI's permission modes. `default` (the name the SDK and the `init` line use) and `manual` ask as the
 * settings say, so with `-p` a call that would need asking is denied; `bypassPermissions` is only ever used
 * when named here.
 *
 * @since 0.1.0
 * @category models
 */
export type PermissionMode = typeof PermissionModes.PermissionMode.Type

/**
 * Where settings are loaded from (`--setting-sources`).
 *
 * @since 0.1.0
 * @category models
 */
export type SettingSource = "user" | "project" | "local"

/**
 * A custom agent definition for `--agents`: what the model can start with the Agent tool (or run as the main
 * thread with `agent`). Keys this schema does not name are kept and passed on.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AgentDefinition = open({
  description: Schema.String,
  prompt: Schema.String,
  tools: optionalStrings,
  disallowedTools: optionalStrings,
  model: optionalString,
  /** MCP servers by name, or inline configurations keyed by name. */
  mcpServers: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  skills: optionalStrings,
  initialPrompt: optionalString,
  maxTurns: optionalNumber,
  background: optionalBoolean,
  omitClaudeMd: optionalBoolean,
  memory: Schema.optionalKey(Schema.Literals(["user", "project", "local"])),
  effort: Schema.optionalKey(Schema.Union([Schema.Literals(["low", "medium", "high", "xhigh", "max"]), Schema.Number])),
  permissionMode: optionalString
})

/**
 * @since 0.1.0
 * @category models
 */
export type AgentDefinition = typeof AgentDefinition.Type

/**
 * How hard the model works on a turn (`--effort`).
 *
 * @since 0.1.0
 * @category models
 */
export type Effort = "low" | "medium" | "high" | "xhigh" | "max"

/**
 * Extended thinking: `adaptive` (the model decides), `enabled` with an optional token budget, or
 * `disabled`. `display` says how thinking shows in the output.
 *
 * @since 0.1.0
 * @category models
 */
export type Thinking =
  | { readonly type: "adaptive"; readonly display?: "summarized" | "omitted" | undefined }
  | {
    readonly type: "enabled"
    readonly budgetTokens?: number | undefined
    readonly display?: "summarized" | "omitted" | undefined
  }
  | { readonly type: "disabled" }

/**
 * The system prompt: a custom one (a string, blocks joined by blank lines, or `custom` with `snapshot`), or
 * Claude Code's own (`preset`) with text appended, the per-machine sections moved into the first user
 * message (`excludeDynamicSections`), and whether it is recorded once per conversation (`snapshot`).
 *
 * @since 0.1.0
 * @category models
 */
export type SystemPrompt =
  | string
  | ReadonlyArray<string>
  | {
    readonly type: "custom"
    readonly prompt: string | ReadonlyArray<string>
    readonly snapshot?: boolean | undefined
  }
  | {
    readonly type: "preset"
    readonly preset: "claude_code"
    readonly append?: string | undefined
    readonly excludeDynamicSections?: boolean | undefined
    readonly snapshot?: boolean | undefined
  }

/**
 * A plugin loaded from a local directory (`--plugin-dir`); `skipMcpDiscovery` leaves out its MCP servers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Plugin {
  readonly type: "local"
  readonly path: string
  readonly skipMcpDiscovery?: boolean | undefined
}

/**
 * Sandboxing of the CLI's commands (the `sandbox` block of the settings): `enabled`, `failIfUnavailable`,
 * `autoAllowBashIfSandboxed`, `filesystem`, `network`, `credentials`, ... as the settings document them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sandbox {
  readonly enabled?: boolean | undefined
  readonly failIfUnavailable?: boolean | undefined
  readonly autoAllowBashIfSandboxed?: boolean | undefined
  readonly [key: string]: unknown
}

/**
 * The marker in a `systemPrompt` list between the blocks every session shares and the session's own,
 * as the SDK exports it; in a query's prompt it only separates blocks.
 *
 * @since 0.1.0
 * @category constants
 */
export const systemPromptDynamicBoundary = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__"

/**
 * Options for one query. Everything is optional; nothing has a default that changes the CLI's own behaviour
 * (in particular no `maxTurns`: the CLI finishes naturally).
 *
 * @since 0.1.0
 * @category models
 */
export interface QueryOptions {
  readonly model?: string | undefined
  /** Models to fall back to, in order. */
  readonly fallbackModel?: string | ReadonlyArray<string> | undefined
  /** Working directory of the CLI process. */
  readonly cwd?: string | undefined
  /** A custom system prompt, or Claude Code's own with additions (see {@link SystemPrompt}). */
  readonly systemPrompt?: SystemPrompt | undefined
  readonly appendSystemPrompt?: string | undefined
  readonly allowedTools?: ReadonlyArray<string> | undefined
  readonly disallowedTools?: ReadonlyArray<string> | undefined
  /** Built-in tools to make available (`[]` for none, the preset for all of Claude Code's). */
  readonly tools?: ReadonlyArray<string> | { readonly type: "preset"; readonly preset: "claude_code" } | undefined
  readonly permissionMode?: PermissionMode | undefined
  readonly maxTurns?: number | undefined
  readonly maxBudgetUsd?: number | undefined
  readonly includePartialMessages?: boolean | undefined
  /** A settings file path, or a settings object (passed as JSON). */
  readonly settings?: string | Readonly<Record<string, unknown>> | undefined
  readonly settingSources?: ReadonlyArray<SettingSource> | undefined
  /** MCP config files or JSON strings / objects. */
  readonly mcpConfig?: ReadonlyArray<string | Readonly<Record<string, unknown>>> | undefined
  readonly strictMcpConfig?: boolean | undefined
  readonly addDirs?: ReadonlyArray<string> | undefined
  readonly agents?: Readonly<Record<string, AgentDefinition>> | undefined
  /** Runs the main thread as this agent (of `agents` or the settings): its prompt, tools and model. */
  readonly agent?: string | undefined
  /** The trusted checkout `cwd` is a worktree of: project settings and `.claude` come from there. */
  readonly projectConfigRoot?: string | undefined
  /** API beta headers (API key users only). */
  readonly betas?: ReadonlyArray<string> | undefined
  readonly effort?: Effort | undefined
  readonly thinking?: Thinking | undefined
  /** A thinking budget; `0` turns thinking off. The older form of `thinking`, which it excludes. */
  readonly maxThinkingTokens?: number | undefined
  /** A token budget for the whole task, which the model is told about. */
  readonly taskBudget?: { readonly total: number } | undefined
  /** An MCP tool that answers permission prompts (`--permission-prompt-tool`). */
  readonly permissionPromptTool?: string | undefined
  /** Who answers permission prompts: the `host` (over the control protocol) or `none` (denied). */
  readonly permissionPrompts?: "host" | "none" | undefined
  /** Makes `bypassPermissions` available to switch to, without starting in it. */
  readonly allowDangerouslySkipPermissions?: boolean | undefined
  /** Hook lifecycle messages (`hook_started`, `hook_progress`, `hook_response`) in the output. */
  readonly includeHookEvents?: boolean | undefined
  /** Subagents' text and thinking as messages with `parent_tool_use_id`, not only their tool calls. */
  readonly forwardSubagentText?: boolean | undefined
  /** Suggested next prompts after each turn. */
  readonly promptSuggestions?: boolean | undefined
  /** The session's display title instead of one made from the first prompt. */
  readonly title?: string | undefined
  /** `false`: the session is not saved to disk and cannot be resumed. */
  readonly persistSession?: boolean | undefined
  /** With `resume`: resume at this message (uuid), dropping what came after. */
  readonly resumeSessionAt?: string | undefined
  /** With `resume`: drop the turn this message (uuid) started, for a retry. */
  readonly resumeDropsTurn?: string | undefined
  /** Policy-tier settings from the parent process (`--managed-settings`). */
  readonly managedSettings?: Readonly<Record<string, unknown>> | undefined
  /** Merged into `settings` as its `sandbox` block; excludes a settings file path. */
  readonly sandbox?: Sandbox | undefined
  /** Skills to enable: `"all"`, or these names (added to `allowedTools` as `Skill(name)`). */
  readonly skills?: ReadonlyArray<string> | "all" | undefined
  readonly plugins?: ReadonlyArray<Plugin> | undefined
  /** Debug logging: `true`, or a category filter (`"hooks,mcp"`). */
  readonly debug?: boolean | string | undefined
  /** Writes debug logs to this file (debug implied). */
  readonly debugFile?: string | undefined
  /** Called with the CLI's stderr as it is written (secrets redacted), besides the tail errors keep. */
  readonly stderr?: ((text: string) => void) | undefined
  /** Backs files up before each edit, so that a session can `rewindFiles` to any user message. */
  readonly enableFileCheckpointing?: boolean | undefined
  /** Per-tool configuration of built-in tools. */
  readonly toolConfig?: {
    readonly askUserQuestion?: { readonly previewFormat?: "markdown" | "html" | undefined } | undefined
  } | undefined
  /** Resume the session with this id (or name). */
  readonly resume?: string | undefined
  /**
   * Mirror the session's transcript into a store besides the config directory, and with `resume` resume
   * from the store (see `effect-claude-code/store`: `SessionStore`, `SessionMirror`). Failed appends are
   * `mirror_error` messages; the run goes on.
   */
  readonly sessionStore?: SessionStore.Shape | SessionStore.StoreOptions | undefined
  /** With `sessionStore`: `"batched"` (default) or `"eager"` appends (see `SessionMirror.Flush`). */
  readonly sessionStoreFlush?: "batched" | "eager" | undefined
  /** With `sessionStore` and `resume`: how long each store read of the resume may take (default 60 seconds). */
  readonly loadTimeout?: Duration.Input | undefined
  /**
   * `true`: a run whose CLI writes an error result (max turns, an API error, the budget) and then exits with a
   * non-zero code fails, after that result, with `ClaudeCliError` reason `ErrorResultExit` (the result, the
   * exit code, the stderr tail). Default `false`: such a run ends normally, the result saying what went wrong.
   * For queries: a session's CLI does not exit after a turn's error result, so its turns end as they do.
   */
  readonly failOnErrorResult?: boolean | undefined
  /** Continue the most recent conversation in `cwd`. */
  readonly continue?: boolean | undefined
  /** With `resume` / `continue`: start a new session id instead of reusing the original. */
  readonly forkSession?: boolean | undefined
  /** Use this session id (a UUID) for a new conversation. */
  readonly sessionId?: string | undefined
  /** JSON Schema for structured output. */
  readonly jsonSchema?: Readonly<Record<string, unknown>> | undefined
  /** Variables for the CLI. `Redacted` values never appear in recordings or errors. */
  readonly env?: Redaction.Environment | undefined
  /** `"merge"` (default): added to the parent's environment; `"replace"`: the only variables. */
  readonly envMode?: "merge" | "replace" | undefined
  /**
   * Arguments appended as given, before the stream-json flags. A permission bypass written here
   * (`--dangerously-skip-permissions`) is passed as written: it is asked for by name. No other option
   * produces it, and nothing grants all permissions by default.
   */
  readonly extraArgs?: ReadonlyArray<string> | undefined
}

const json = (value: unknown): string => JSON.stringify(value)

const flag = (name: string, value: string | number | undefined): ReadonlyArray<string> =>
  value === undefined ? [] : [name, String(value)]

const list = (name: string, values: ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  values === undefined ? [] : [name, values.join(",")]

const switchFlag = (name: string, on: boolean | undefined): ReadonlyArray<string> => on === true ? [name] : []

const onOff = (value: boolean | undefined) => value === undefined ? undefined : value ? "on" : "off"

const blocks = (prompt: string | ReadonlyArray<string>): string =>
  typeof prompt === "string" ? prompt : prompt.filter((b) => b !== systemPromptDynamicBoundary).join("\n\n")

const systemPromptArgs = (prompt: SystemPrompt | undefined): ReadonlyArray<string> => {
  if (prompt === undefined) return []
  if (typeof prompt === "string" || Array.isArray(prompt)) return ["--system-prompt", blocks(prompt as string)]
  const p = prompt as Exclude<SystemPrompt, string | ReadonlyArray<string>>
  return p.type === "custom"
    ? [...flag("--system-prompt", blocks(p.prompt)), ...flag("--system-prompt-snapshot", onOff(p.snapshot))]
    : [
      ...flag("--append-system-prompt", p.append),
      ...switchFlag("--exclude-dynamic-system-prompt-sections", p.excludeDynamicSections),
      ...flag("--system-prompt-snapshot", onOff(p.snapshot))
    ]
}

// `maxThinkingTokens` is the older spelling of `thinking`: 0 is off, anything else a budget.
const thinkingOf = (options: QueryOptions): Thinking | undefined =>
  options.thinking ?? (options.maxThinkingTokens === undefined
    ? undefined
    : options.maxThinkingTokens === 0
    ? { type: "disabled" }
    : { type: "enabled", budgetTokens: options.maxThinkingTokens })

const thinkingArgs = (thinking: Thinking | undefined): ReadonlyArray<string> => {
  if (thinking === undefined) return []
  const mode = thinking.type === "disabled"
    ? ["--thinking", "disabled"]
    : thinking.type === "enabled" && thinking.budgetTokens !== undefined
    ? ["--max-thinking-tokens", String(thinking.budgetTokens)]
    : ["--thinking", "adaptive"]
  return [...mode, ...(thinking.type === "disabled" ? [] : flag("--thinking-display", thinking.display))]
}

/** `allowedTools` with the `Skill` rules that `skills` stands for. */
const allowedToolsOf = (options: QueryOptions): ReadonlyArray<string> | undefined => {
  const { skills } = options
  if (skills === undefined) return options.allowedTools
  const rules = skills === "all" ? ["Skill"] : skills.map((name) => `Skill(${name})`)
  const given = options.allowedTools ?? []
  return [...given, ...rules.filter((rule) => !given.includes(rule))]
}

/** `settings` with `sandbox` merged into its `sandbox` block (a settings file cannot take it). */
const settingsOf = (options: QueryOptions): string | undefined => {
  const { sandbox, settings } = options
  if (sandbox === undefined) return typeof settings === "object" ? json(settings) : settings
  const base: Record<string, unknown> = typeof settings === "string" ? JSON.parse(settings) : { ...settings }
  return json({ ...base, sandbox: { ...(base.sandbox as object | undefined), ...sandbox } })
}

/**
 * The CLI arguments for a query, without the executable and without the prompt: the prompt goes to the CLI's
 * stdin, so no prompt text (one starting with "-" included) can ever be read as a flag or hit the argv size limit.
 *
 * @since 0.1.0
 * @category conversions
 * @example
 * ```ts
 * import { QueryOptions } from "effect-claude-code"
 * QueryOptions.toArgs({ model: "sonnet", maxTurns: 3 })
 * // ["-p", "--output-format", "stream-json", "--verbose", "--input-format", "text", "--model", "sonnet", "--max-turns", "3"]
 * ```
 */
export const toArgs = (options: QueryOptions = {}): ReadonlyArray<string> => [
  "-p",
  "--output-format",
  "stream-json",
  "--verbose",
  "--input-format",
  "text",
  ...flag("--model", options.model),
  ...flag(
    "--fallback-model",
    typeof options.fallbackModel === "string" ? options.fallbackModel : options.fallbackModel?.join(",")
  ),
  ...systemPromptArgs(options.systemPrompt),
  ...flag("--append-system-prompt", options.appendSystemPrompt),
  ...list("--allowedTools", allowedToolsOf(options)),
  ...list("--disallowedTools", options.disallowedTools),
  // `--tools ""` means none, so an empty list must still be passed.
  ...(options.tools === undefined
    ? []
    : ["--tools", Array.isArray(options.tools) ? (options.tools as ReadonlyArray<string>).join(",") : "default"]),
  ...flag("--permission-mode", options.permissionMode),
  ...switchFlag("--allow-dangerously-skip-permissions", options.allowDangerouslySkipPermissions),
  ...flag("--permission-prompt-tool", options.permissionPromptTool),
  ...flag("--permission-prompts", options.permissionPrompts),
  ...flag("--max-turns", options.maxTurns),
  ...flag("--max-budget-usd", options.maxBudgetUsd),
  ...flag("--task-budget", options.taskBudget?.total),
  ...flag("--effort", options.effort),
  ...thinkingArgs(thinkingOf(options)),
  ...list("--betas", options.betas === undefined || options.betas.length === 0 ? undefined : options.betas),
  ...flag("--agent", options.agent),
  ...switchFlag("--include-partial-messages", options.includePartialMessages),
  ...switchFlag("--include-hook-events", options.includeHookEvents),
  ...switchFlag("--forward-subagent-text", options.forwardSubagentText),
  ...switchFlag("--prompt-suggestions", options.promptSuggestions),
  ...flag("--settings", settingsOf(options)),
  ...flag("--managed-settings", options.managedSettings === undefined ? undefined : json(options.managedSettings)),
  ...(options.settingSources === undefined ? [] : ["--setting-sources", options.settingSources.join(",")]),
  ...(options.mcpConfig ?? []).flatMap((c) => ["--mcp-config", typeof c === "string" ? c : json(c)]),
  ...switchFlag("--strict-mcp-config", options.strictMcpConfig),
  ...flag("--project-config-root", options.projectConfigRoot),
  ...(options.addDirs ?? []).flatMap((dir) => ["--add-dir", dir]),
  ...(options.plugins ?? []).flatMap((p) => [p.skipMcpDiscovery === true ? "--plugin-dir-no-mcp" : "--plugin-dir", p.path]),
  ...flag("--agents", options.agents === undefined ? undefined : json(options.agents)),
  ...flag("--resume", options.resume),
  ...switchFlag("--continue", options.continue),
  ...switchFlag("--fork-session", options.forkSession),
  ...flag("--resume-session-at", options.resumeSessionAt),
  ...flag("--resume-drops-turn", options.resumeDropsTurn),
  ...flag("--session-id", options.sessionId),
  ...flag("--name", options.title),
  ...switchFlag("--no-session-persistence", options.persistSession === false),
  ...switchFlag("--session-mirror", options.sessionStore !== undefined),
  ...flag("--json-schema", options.jsonSchema === undefined ? undefined : json(options.jsonSchema)),
  ...(options.debugFile !== undefined
    ? ["--debug-file", options.debugFile]
    : options.debug === true
    ? ["--debug"]
    : typeof options.debug === "string"
    ? [`--debug=${options.debug}`]
    : []),
  ...(options.extraArgs ?? [])
]
