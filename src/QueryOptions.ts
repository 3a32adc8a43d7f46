/**
 * Options of one `claude -p` run, and the pure mapping from options to the CLI's arguments.
 *
 * @since 0.1.0
 */
import * as Redacted from "effect/Redacted"
import * as Redaction from "./internal/redaction.ts"

/**
 * The CLI's permission modes. `default` (the name the SDK and the `init` line use) and `manual` ask as the
 * settings say, so with `-p` a call that would need asking is denied; `bypassPermissions` is only ever used
 * when named here.
 *
 * @since 0.1.0
 * @category models
 */
export type PermissionMode = "default" | "acceptEdits" | "auto" | "bypassPermissions" | "manual" | "dontAsk" | "plan"

/**
 * Where settings are loaded from (`--setting-sources`).
 *
 * @since 0.1.0
 * @category models
 */
export type SettingSource = "user" | "project" | "local"

/**
 * A custom agent definition for `--agents`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentDefinition {
  readonly description: string
  readonly prompt: string
  readonly tools?: ReadonlyArray<string> | undefined
  readonly model?: string | undefined
  readonly [key: string]: unknown
}

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
  /** Replaces the default system prompt. */
  readonly systemPrompt?: string | undefined
  readonly appendSystemPrompt?: string | undefined
  readonly allowedTools?: ReadonlyArray<string> | undefined
  readonly disallowedTools?: ReadonlyArray<string> | undefined
  /** Built-in tools to make available (`[]` for none). */
  readonly tools?: ReadonlyArray<string> | undefined
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
  /** Resume the session with this id (or name). */
  readonly resume?: string | undefined
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
  ...flag("--system-prompt", options.systemPrompt),
  ...flag("--append-system-prompt", options.appendSystemPrompt),
  ...list("--allowedTools", options.allowedTools),
  ...list("--disallowedTools", options.disallowedTools),
  // `--tools ""` means none, so an empty list must still be passed.
  ...(options.tools === undefined ? [] : ["--tools", options.tools.join(",")]),
  ...flag("--permission-mode", options.permissionMode),
  ...flag("--max-turns", options.maxTurns),
  ...flag("--max-budget-usd", options.maxBudgetUsd),
  ...switchFlag("--include-partial-messages", options.includePartialMessages),
  ...flag("--settings", typeof options.settings === "object" ? json(options.settings) : options.settings),
  ...(options.settingSources === undefined ? [] : ["--setting-sources", options.settingSources.join(",")]),
  ...(options.mcpConfig ?? []).flatMap((c) => ["--mcp-config", typeof c === "string" ? c : json(c)]),
  ...switchFlag("--strict-mcp-config", options.strictMcpConfig),
  ...(options.addDirs ?? []).flatMap((dir) => ["--add-dir", dir]),
  ...flag("--agents", options.agents === undefined ? undefined : json(options.agents)),
  ...flag("--resume", options.resume),
  ...switchFlag("--continue", options.continue),
  ...switchFlag("--fork-session", options.forkSession),
  ...flag("--session-id", options.sessionId),
  ...flag("--json-schema", options.jsonSchema === undefined ? undefined : json(options.jsonSchema)),
  ...(options.extraArgs ?? [])
]

/**
 * The options as plain JSON, safe to store in a recording or a log: the values of secret environment
 * variables and of keys with secret names anywhere in the options (MCP headers such as `Authorization` or
 * `x-api-key`, `settings.env`, `--api-key` in `extraArgs`) are replaced by `"<redacted>"`, and so is any
 * other spelling of them, URL credentials and key-shaped values (see `Redaction`).
 *
 * @since 0.1.0
 * @category redaction
 */
export const redact = (options: QueryOptions = {}): Record<string, unknown> => {
  const { env, ...rest } = options
  const redactor = Redaction.redactor(Redaction.optionSecrets(options))
  const out: Record<string, unknown> = JSON.parse(Redaction.redactJson(JSON.stringify(rest), redactor))
  if (env !== undefined) {
    out.env = Object.fromEntries(
      Object.entries(env).flatMap(([name, value]) =>
        value === undefined
          ? []
          : [[
            name,
            Redacted.isRedacted(value) || Redaction.isSecretVariable(name, value) ? Redaction.marker : redactor(value)
          ]]
      )
    )
  }
  return out
}
