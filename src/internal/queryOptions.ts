/**
 * What the library derives from query options before a CLI starts: conflicts, the environment some options
 * stand for, and a copy safe to store.
 */
import * as Redacted from "effect/Redacted"
import type { QueryOptions, SystemPrompt } from "../QueryOptions.ts"
import * as Redaction from "./redaction.ts"

const isJsonObjectText = (text: string) => /^\s*\{[\s\S]*\}\s*$/.test(text)

/**
 * Why these options cannot work together, or `undefined` when they can. Queries fail with
 * `InvalidOptions` and sessions with theirs before the CLI starts.
 */
export const invalid = (options: QueryOptions): string | undefined => {
  if (options.resume !== undefined && options.continue === true) return "resume and continue exclude each other"
  if (options.forkSession === true && options.resume === undefined && options.continue !== true) {
    return "forkSession needs resume or continue"
  }
  for (const key of ["resumeSessionAt", "resumeDropsTurn"] as const) {
    if (options[key] !== undefined && options.resume === undefined) return `${key} needs resume`
  }
  if (options.fallbackModel !== undefined && options.model !== undefined) {
    const fallbacks = typeof options.fallbackModel === "string" ? [options.fallbackModel] : options.fallbackModel
    if (fallbacks.includes(options.model)) return `fallbackModel cannot be the main model "${options.model}"`
  }
  // The CLI mirrors the lines it has saved: with nothing saved, nothing would reach the store.
  if (options.sessionStore !== undefined && options.persistSession === false) {
    return "sessionStore needs the session saved: it cannot be combined with persistSession: false"
  }
  if (options.thinking !== undefined && options.maxThinkingTokens !== undefined) {
    return "thinking and maxThinkingTokens exclude each other"
  }
  const prompt = options.systemPrompt
  if (typeof prompt === "object" && !Array.isArray(prompt)) {
    const p = prompt as Exclude<SystemPrompt, string | ReadonlyArray<string>>
    if (p.type === "preset" && p.append !== undefined && options.appendSystemPrompt !== undefined) {
      return "systemPrompt.append and appendSystemPrompt exclude each other"
    }
  }
  if (options.sandbox !== undefined && typeof options.settings === "string" && !isJsonObjectText(options.settings)) {
    return "sandbox cannot be combined with a settings file path: put the sandbox block in the file"
  }
  if (Array.isArray(options.skills)) {
    const bad = (options.skills as ReadonlyArray<string>).find((name) =>
      name.trim() === "" || name !== name.trim() || /[(),\u0000-\u001f*]/.test(name) || name.startsWith("/")
    )
    if (bad !== undefined) return `invalid skill name ${JSON.stringify(bad)} (use skills: "all" for every skill)`
  }
  if (options.debug !== undefined && options.debug !== false && options.debugFile !== undefined) {
    return "debug and debugFile exclude each other (debugFile implies debug)"
  }
  return undefined
}

/**
 * The variables some options stand for (file checkpointing, tool configuration), with the options' own
 * `env` winning.
 */
export const environment = (options: QueryOptions = {}): Redaction.Environment | undefined => {
  const derived: Record<string, string> = {}
  if (options.enableFileCheckpointing === true) derived.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING = "true"
  const preview = options.toolConfig?.askUserQuestion?.previewFormat
  if (preview !== undefined) derived.CLAUDE_CODE_QUESTION_PREVIEW_FORMAT = preview
  return Object.keys(derived).length === 0 ? options.env : { ...derived, ...options.env }
}

/**
 * The options as plain JSON, safe to store in a recording or a log: the values of secret environment
 * variables and of keys with secret names anywhere in the options (MCP headers such as `Authorization` or
 * `x-api-key`, `settings.env`, `--api-key` in `extraArgs`) are replaced by `"<redacted>"`, and so is any
 * other spelling of them, URL credentials and key-shaped values (see `Redaction`).
 */
export const redact = (options: QueryOptions = {}): Record<string, unknown> => {
  // A store is a live object, not data.
  const { env, stderr: _stderr, sessionStore: _sessionStore, ...rest } = options
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
