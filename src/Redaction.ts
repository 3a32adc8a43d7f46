/**
 * Redaction of secrets: the values a CLI process must never show in errors, logs, spans or recordings.
 * Every `Redacted` value is a secret, and so is the value of a variable whose name holds a secret word
 * (`DB_PASSWORD`, `x-api-key`, `apiKeyHelper`) and anything shaped like a provider's token (Anthropic, OpenAI,
 * GitHub, AWS, Google, Slack, Hugging Face, JWTs) or a URL's password; the README's Reliability section lists
 * the rules.
 *
 * @example
 * ```ts
 * import { Redaction } from "effect-claude-code"
 *
 * const redact = Redaction.redactor(["hunter2-secret"])
 * redact("password=hunter2-secret") // "password=<redacted>"
 * ```
 *
 * @since 0.1.0
 */
export {
  /** @since 0.1.0 */
  type Edges,
  /** @since 0.1.0 */
  type Environment,
  /** @since 0.1.0 */
  marker,
  /** @since 0.1.0 */
  type Redact,
  /** @since 0.1.0 */
  redactJson,
  /** @since 0.1.0 */
  redactor,
  /** @since 0.1.0 */
  redactText
} from "./internal/redaction.ts"
