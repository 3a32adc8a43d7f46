/**
 * The `claude` options of `run`: one flag per useful `QueryOptions` field, named as the Claude Code CLI names
 * it, plus `--claude-arg` for anything else, and the mapping to `QueryOptions`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Predicate from "effect/Predicate"
import * as CliError from "effect/cli/CliError"
import * as Flag from "effect/cli/Flag"
import type * as QueryOptions from "../QueryOptions.ts"
import * as Input from "./Input.ts"

// A comma-separated list: its items trimmed, the empty ones dropped (`''` is the empty list).
const commaList = (value: string): Array<string> => value.split(",").map((s) => s.trim()).filter((s) => s !== "")

// A list flag: repeatable, each value comma-separated (`--allowed-tools Read,Write --allowed-tools Bash`).
const toolList = (name: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(`${description}; comma-separated or repeated, e.g. 'Read,Bash(git:*)'`),
    Flag.atLeast(0),
    Flag.map((values) => values.flatMap(commaList))
  )

const repeated = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(`${description} (repeatable)`), Flag.atLeast(0))

const optionalString = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.optional)

const switchFlag = (name: string, description: string) =>
  Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.withDefault(false))

const invalid = (option: string, value: string, expected: string) =>
  new CliError.InvalidValue({ option, value, expected, kind: "flag" })

// Inline JSON (it starts with `{`), or the path of a file that holds it.
const jsonObject = (option: string) => (value: string) =>
  Effect.gen(function*() {
    const inline = value.trimStart().startsWith("{")
    const text = inline ? value : yield* Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(value)).pipe(
      Effect.mapError((e) => invalid(option, value, `a JSON object, or a readable file holding one (${Input.why(e)})`))
    )
    const parsed = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (e) => invalid(option, value, `a JSON object${inline ? "" : " in the file"} (${String(e)})`)
    })
    return Predicate.isObject(parsed) && !Array.isArray(parsed)
      ? parsed as Record<string, unknown>
      : yield* invalid(option, value, "a JSON object, not an array or a single value")
  })

const sources: ReadonlyArray<QueryOptions.SettingSource> = ["user", "project", "local"]

const settingSources = (value: string) => {
  const list = commaList(value)
  const unknown = list.filter((s) => !sources.includes(s as QueryOptions.SettingSource))
  return unknown.length === 0
    ? Effect.succeed(list as ReadonlyArray<QueryOptions.SettingSource>)
    : Effect.fail(invalid("setting-sources", value, `a comma-separated list of ${sources.join(", ")}`))
}

/**
 * The permission modes `--permission-mode` accepts, as the Claude Code CLI names them.
 *
 * @since 0.1.0
 * @category constants
 */
export const permissionModes = [
  "default",
  "manual",
  "acceptEdits",
  "plan",
  "auto",
  "dontAsk",
  "bypassPermissions"
] as const satisfies ReadonlyArray<QueryOptions.PermissionMode>

/**
 * The flags, for `Command.make`.
 *
 * @since 0.1.0
 * @category flags
 */
export const flags = {
  model: optionalString("model", "model name or alias (sonnet, opus)"),
  fallbackModel: optionalString("fallback-model", "model to switch to when the main one is overloaded"),
  permissionMode: Flag.Literals("permission-mode", permissionModes).pipe(
    Flag.withDescription(
      "how tool calls are permitted (without it: the CLI's settings): default and manual ask as the settings say " +
        "(with -p a call that would need asking is denied), acceptEdits allows file edits, plan only plans, " +
        "auto lets a classifier decide, dontAsk denies without asking, bypassPermissions allows every call " +
        "(never a default, only when named here)"
    ),
    Flag.optional
  ),
  allowedTools: toolList("allowed-tools", "tools allowed without asking"),
  disallowedTools: toolList("disallowed-tools", "tools that are never allowed"),
  tools: optionalString("tools", "the built-in tools available at all, comma-separated ('' for none)"),
  systemPrompt: optionalString("system-prompt", "replace the default system prompt"),
  appendSystemPrompt: optionalString("append-system-prompt", "append to the default system prompt"),
  maxTurns: Flag.Int("max-turns").pipe(Flag.withDescription("stop after this many turns"), Flag.optional),
  maxBudgetUsd: Flag.Finite("max-budget-usd").pipe(
    Flag.withDescription("stop once the session has cost this many dollars"),
    Flag.optional
  ),
  partial: switchFlag("include-partial-messages", "stream text as it is generated"),
  resume: optionalString("resume", "resume the session with this id"),
  continue: switchFlag("continue", "continue the most recent conversation in the working directory"),
  forkSession: switchFlag("fork-session", "with --resume or --continue: give the session a new id"),
  sessionId: optionalString("session-id", "use this session id (a UUID) for a new conversation"),
  jsonSchema: Flag.String("json-schema").pipe(
    Flag.withDescription("JSON Schema for structured output: inline JSON or a file"),
    Flag.mapEffect(jsonObject("json-schema")),
    Flag.optional
  ),
  agents: Flag.String("agents").pipe(
    Flag.withDescription("custom agents ({\"name\": {\"description\", \"prompt\", ...}}): inline JSON or a file"),
    Flag.mapEffect(jsonObject("agents")),
    Flag.optional
  ),
  mcpConfig: repeated("mcp-config", "MCP server configuration: a file or inline JSON"),
  strictMcpConfig: switchFlag("strict-mcp-config", "use only the servers of --mcp-config"),
  addDir: repeated("add-dir", "another directory the tools may use"),
  settings: optionalString("settings", "settings: a file or inline JSON"),
  settingSources: Flag.String("setting-sources").pipe(
    Flag.withDescription(`where settings are loaded from, comma-separated: ${sources.join(", ")}`),
    Flag.mapEffect(settingSources),
    Flag.optional
  ),
  cwd: Flag.Directory("cwd", { mustExist: true }).pipe(Flag.withDescription("working directory for claude"), Flag.optional),
  claudeArg: repeated(
    "claude-arg",
    "one more argument for claude, passed as written after the others, e.g. --claude-arg=--betas --claude-arg=NAME " +
      "(with = when it starts with -)"
  )
}

/**
 * The `--claude` executable: a path with a directory in it is resolved against the current directory, as the
 * person typing it means (the CLI starts in `--cwd`, where it would be looked up otherwise); a bare name is
 * looked up on `PATH`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const executable = (flag: Option.Option<string>): Effect.Effect<string | undefined, never, Path.Path> =>
  Effect.map(Path.Path, (path) =>
    Option.match(flag, {
      onNone: () => undefined,
      onSome: (file) => path.basename(file) === file ? file : path.resolve(file)
    }))

/**
 * The parsed flags.
 *
 * @since 0.1.0
 * @category models
 */
export type Parsed = { readonly [K in keyof typeof flags]: typeof flags[K] extends Flag.Flag<infer A> ? A : never }

const some = <A>(values: ReadonlyArray<A>): ReadonlyArray<A> | undefined => values.length === 0 ? undefined : values

/**
 * The query the flags ask for. Flags not given leave the CLI's own defaults.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toQuery = (parsed: Parsed): QueryOptions.QueryOptions => {
  const get = Option.getOrUndefined
  return {
    model: get(parsed.model),
    fallbackModel: get(parsed.fallbackModel),
    permissionMode: get(parsed.permissionMode),
    allowedTools: some(parsed.allowedTools),
    disallowedTools: some(parsed.disallowedTools),
    tools: get(Option.map(parsed.tools, commaList)),
    systemPrompt: get(parsed.systemPrompt),
    appendSystemPrompt: get(parsed.appendSystemPrompt),
    maxTurns: get(parsed.maxTurns),
    maxBudgetUsd: get(parsed.maxBudgetUsd),
    includePartialMessages: parsed.partial,
    resume: get(parsed.resume),
    continue: parsed.continue,
    forkSession: parsed.forkSession,
    sessionId: get(parsed.sessionId),
    jsonSchema: get(parsed.jsonSchema),
    agents: get(parsed.agents) as QueryOptions.QueryOptions["agents"],
    mcpConfig: some(parsed.mcpConfig),
    strictMcpConfig: parsed.strictMcpConfig,
    addDirs: some(parsed.addDir),
    settings: get(parsed.settings),
    settingSources: get(parsed.settingSources),
    cwd: get(parsed.cwd),
    extraArgs: some(parsed.claudeArg)
  }
}
