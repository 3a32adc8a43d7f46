/**
 * Redaction of secrets: the values a CLI process must never show in errors, logs, spans or recordings (its
 * environment's credentials, and anything shaped like a key), and the text transformations that hide them,
 * including where a text was cut out of a longer one and inside JSON lines that must stay JSON.
 *
 * @since 0.1.0
 */
import * as Redacted from "effect/Redacted"
import { isJson } from "./stream/Decode.ts"

/**
 * Environment variables as the options give them: plain or `Redacted` values.
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = Readonly<Record<string, string | Redacted.Redacted<string> | undefined>>

const secretName = /key|token|secret|password|passwd|auth|credential|cookie/i

// A number, a boolean or a short word is a setting (`MAX_THINKING_TOKENS=1024`, `DISABLE_AUTH=true`), never a
// credential: redacting it would blank out unrelated text and, in a recording, numbers of the JSON.
const notSecret = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|true|false|yes|no|on|off|null|none|undefined)$/i

// Shortest value of a secret-looking variable that counts as a secret; inherited variables need more,
// so that the parent's short settings do not blank out text.
const ownMinLength = 6
const inheritedMinLength = 8

const isSecret = (name: string, value: string, minLength: number): boolean =>
  secretName.test(name) && value.length >= minLength && !notSecret.test(value)

/**
 * Whether a plain variable of the given name and value is a secret (see {@link secretValues}).
 *
 * @since 0.1.0
 * @category redaction
 */
export const isSecretVariable = (name: string, value: string): boolean => isSecret(name, value, ownMinLength)

const secretsOf = (
  env: Environment | undefined,
  minLength: number
): ReadonlyArray<string> =>
  Object.entries(env ?? {}).flatMap(([name, value]) =>
    value === undefined
      ? []
      : Redacted.isRedacted(value)
      ? Redacted.value(value) === "" ? [] : [Redacted.value(value)]
      : isSecret(name, value, minLength)
      ? [value]
      : []
  )

/**
 * The values of `env` that must never be shown: every `Redacted` value and the value of every variable whose
 * name looks like a secret (API keys, tokens, passwords, ...), unless it cannot be one: a number, a boolean,
 * or fewer than 6 characters.
 *
 * @since 0.1.0
 * @category redaction
 */
export const secretValues = (env: Environment | undefined): ReadonlyArray<string> => secretsOf(env, ownMinLength)

/**
 * Values that look like credentials whatever variable (if any) they came from: Anthropic keys and OAuth
 * tokens (`sk-ant-...`), other `sk-` keys, AWS access key ids, GitHub tokens.
 *
 * @since 0.1.0
 * @category redaction
 */
export const keyPattern = /\bsk-ant-[A-Za-z0-9_-]{8,}|\bsk-[A-Za-z0-9_-]{32,}|\bA[KS]IA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}/g

/**
 * What replaces a secret.
 *
 * @since 0.1.0
 * @category redaction
 */
export const marker = "<redacted>"

/**
 * Where a text was cut out of a longer one (a tail, the head of a line, a line cut by a kill): a secret may
 * straddle the cut, so the part of it on this side is redacted too.
 *
 * @since 0.1.0
 * @category redaction
 */
export interface Edges {
  readonly start?: boolean | undefined
  readonly end?: boolean | undefined
}

/**
 * Redacts a text; `edges` says where it was cut (see {@link Edges}).
 *
 * @since 0.1.0
 * @category redaction
 */
export type Redact = (text: string, edges?: Edges) => string

// The start of a key-shaped value cut at the end of a text.
const keyHeadAtEnd = /(?:\bsk-|\bA[KS]IA|\bgh[pousr]_)[A-Za-z0-9_-]*$/
// Characters of keys and tokens (base64 included): a run of them at the start of a cut text may be the rest
// of a key, which nothing else identifies.
const tokenAtStart = /^[A-Za-z0-9_\-+/=]+/

// The longest proper prefix (`end`) or suffix (start) of a form that ends (starts) the text.
const fragment = (text: string, forms: ReadonlyArray<string>, at: "start" | "end"): number => {
  let longest = 0
  for (const form of forms) {
    for (let k = Math.min(form.length - 1, text.length); k > longest; k--) {
      if (at === "end" ? text.endsWith(form.slice(0, k)) : text.startsWith(form.slice(form.length - k))) {
        longest = k
        break
      }
    }
  }
  return longest
}

const redactEnd = (text: string, forms: ReadonlyArray<string>): string => {
  const known = fragment(text, forms, "end")
  if (known > 0) return text.slice(0, text.length - known) + marker
  return text.replace(keyHeadAtEnd, marker)
}

const redactStart = (text: string, forms: ReadonlyArray<string>): string => {
  const known = fragment(text, forms, "start")
  return known > 0 ? marker + text.slice(known) : text.replace(tokenAtStart, "")
}

/**
 * A redactor for the given secrets: each is replaced by {@link marker} as written and as written inside a
 * JSON string (a quote or backslash in it escaped), and so is every value matching {@link keyPattern}. At a cut
 * edge (see {@link Edges}), the part of a secret that straddles the cut is replaced as well: a fragment of a
 * known secret, a key's head at the end, and at the start the leading run of key characters, which may be
 * the rest of a key.
 *
 * @since 0.1.0
 * @category redaction
 */
export const redactor = (secrets: ReadonlyArray<string>): Redact => {
  // Longest first, so that a secret containing another is replaced whole.
  const forms = [...new Set(secrets.flatMap((s) => s === "" ? [] : [JSON.stringify(s).slice(1, -1), s]))]
    .sort((a, b) => b.length - a.length)
  return (text, edges) => {
    let out = text
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(marker)
    out = out.replace(keyPattern, marker)
    if (edges?.end === true) out = redactEnd(out, forms)
    if (edges?.start === true) out = redactStart(out, forms)
    return out
  }
}

/**
 * Replaces every occurrence of the given secrets, and every value matching {@link keyPattern}, in `text`
 * with {@link marker} (see {@link redactor}).
 *
 * @since 0.1.0
 * @category redaction
 */
export const redactText = (text: string, secrets: ReadonlyArray<string>, edges?: Edges): string =>
  redactor(secrets)(text, edges)

const stringLiteral = /"(?:[^"\\]|\\.)*"/g

/**
 * Redacts a line of JSON so that it stays the same JSON: only string values (and keys) can hold a secret, so
 * each is redacted as text and written back escaped, and everything else (numbers, booleans, layout, the
 * escapes of untouched strings) stays as written. Text that is not JSON is redacted as text.
 *
 * @since 0.1.0
 * @category redaction
 */
export const redactJson = (text: string, redact: Redact): string => {
  // Most lines hold no secret; a `\u` escape may spell one, so such lines take the full path.
  if (redact(text) === text && !text.includes("\\u")) return text
  if (!isJson(text)) return redact(text)
  return text.replace(stringLiteral, (literal) => {
    const value: string = literal.includes("\\") ? JSON.parse(literal) : literal.slice(1, -1)
    const redacted = redact(value)
    return redacted === value ? literal : JSON.stringify(redacted)
  })
}

/**
 * The secrets a CLI process sees: those of `env` and, when `envMode` is `"merge"` (the default), the
 * secret-looking variables the process inherits from this one (`ANTHROPIC_API_KEY`, `AWS_SECRET_ACCESS_KEY`, ...).
 *
 * @since 0.1.0
 * @category redaction
 */
export const environmentSecrets = (
  env: Environment | undefined,
  envMode: "merge" | "replace" = "merge"
): ReadonlyArray<string> => {
  const own = secretValues(env)
  if (envMode !== "merge") return own
  return [...new Set([...own, ...secretsOf(process.env, inheritedMinLength)])]
}
