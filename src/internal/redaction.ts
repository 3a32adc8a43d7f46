/**
 * Redaction of secrets: the values a CLI process must never show in errors, logs, spans or recordings, and
 * the text transformations that hide them (in cut texts, JSON escapes, and JSON lines that must stay JSON).
 *
 * @since 0.1.0
 */
import * as Redacted from "effect/Redacted"
import { isJson } from "../stream/internal/json.ts"

/**
 * Environment variables as the options give them: plain or `Redacted` values.
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = Readonly<Record<string, string | Redacted.Redacted<string> | undefined>>

// Which values are secrets:
// - every `Redacted` value;
// - the value of a variable (or of a JSON key, a `--flag`) whose name holds a secret word: the name is split
//   into words at `_`, `-`, `.` and case changes (`DB_PASSWORD`, `x-api-key`, `apiKeyHelper`), and a secret
//   word is KEY, APIKEY, TOKEN, SECRET, PASSWORD, PASSWD, PASS, PWD, PASSPHRASE, AUTH, OAUTH, AUTHORIZATION,
//   BEARER, CREDENTIAL(S), COOKIE, DSN, PRIVATE, SESSION, PAT, JWT, WEBHOOK, or a word ending in a long one (`DBPASSWORD`,
//   `AUTHTOKEN`, `CLIENTSECRET`). Whatever the value's shape: `SMTP_PASSWORD=20231987` is a secret;
// - unless the name also holds a word that makes it a setting (MAX, MIN, LIMIT, COUNT, SIZE, LENGTH,
//   TIMEOUT, TTL, DISABLE, ENABLE, USE, MODE, TYPE, the plural TOKENS, ...) and the value is shaped like a
//   setting (a number, or one word of letters): `MAX_THINKING_TOKENS=1024` and `DISABLE_AUTH=true` are not;
//   nor is a name of a location (FILE, PATH, DIR, SOCK, ADDRESS, URL, HOST, ...: `SSH_AUTH_SOCK`,
//   `PASSWORD_FILE`), whatever its value, unless it is a webhook's (`SLACK_WEBHOOK_URL`), nor `PWD` alone (the
//   shell's working directory);
// - within a secret value, each key-like part (letters and digits, 12 or more) on its own: the token of
//   `Authorization: Bearer <token>`, the key an `apiKeyHelper` command echoes;
// - the password (or, without one, a key-like user) of a URL in any value, and the values of its query
//   parameters with secret names (`DATABASE_URL=postgres://app:pw@db/x`, `SENTRY_DSN=https://key@host/1`);
// - the values of header lines with secret names in any value (`ANTHROPIC_CUSTOM_HEADERS=x-api-key: ...`);
// - anywhere in any text, values shaped like the tokens of the major providers and URL passwords
//   (`keyPattern`), whatever variable they came from, if any.
//
// A secret shorter than 6 characters (8 for variables inherited from the parent process) is never
// redacted: it would blank out unrelated text, and it cannot be told from it.

const secretWords = new Set([
  "key", "apikey", "accesskey", "secretkey", "privatekey", "token", "secret", "secrets", "password", "passwords",
  "passwd", "pass", "pwd", "passphrase", "auth", "oauth", "authorization", "bearer", "credential", "credentials",
  "cookie", "cookies", "dsn", "private", "session", "pat", "jwt", "webhook", "webhooks"
])
// Words written without separators end in one of these (DBPASSWORD, AUTHTOKEN); shorter ones (KEY, PASS)
// would match unrelated words (MONKEY, COMPASS).
const secretEndings = ["token", "secret", "password", "passwd", "passphrase", "credential", "credentials", "cookie"]
// Words that make a name a setting (a count, a limit, a switch) rather than a credential.
const settingWords = new Set([
  "max", "min", "limit", "limits", "count", "num", "size", "length", "len", "timeout", "ttl", "expiry", "interval",
  "retries", "ratio", "rate", "threshold", "budget", "disable", "disabled", "enable", "enabled", "use", "mode", "type", "tokens"
])
// Words that make a name a location (a file, a socket, an address) rather than a credential, whatever its value.
const locationWords = new Set([
  "file", "files", "path", "dir", "directory", "sock", "socket", "address", "addr", "manager", "url", "uri", "host", "port"
])
// A setting's value: a number, or one word of letters (`true`, `off`, `bearer`).
const settingShape = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|[a-z]{1,16})$/i

// `DB_PASSWORD`, `x-api-key`, `apiKeyHelper`, `APIKey` -> lower-case words.
const wordsOf = (name: string): ReadonlyArray<string> =>
  name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2").toLowerCase()
    .split(/[^a-z0-9]+/).filter((word) => word !== "")

const isSecretWord = (word: string): boolean =>
  secretWords.has(word) || secretEndings.some((ending) => word.length > ending.length && word.endsWith(ending))

// `PWD` alone is the shell's working directory; `MYSQL_PWD` is a password.
// A webhook's URL is its credential (`SLACK_WEBHOOK_URL`): not a location.
const isSecretWords = (words: ReadonlyArray<string>): boolean =>
  words.some(isSecretWord) &&
  (words.some((word) => word.startsWith("webhook")) || !words.some((word) => locationWords.has(word))) &&
  !(words.length === 1 && words[0] === "pwd")

/**
 * Whether a name (a variable, a JSON key, a flag) says its value is a credential: it holds a secret word and
 * no word of a location (see the rules above `secretWords`).
 *
 * @since 0.1.0
 * @category redaction
 */
const isSecretName = (name: string): boolean => isSecretWords(wordsOf(name))

// Shortest secret that is redacted; inherited variables need more, so that the parent's short settings do
// not blank out text.
const ownMinLength = 6
const inheritedMinLength = 8

const isSecret = (name: string, value: string, minLength: number): boolean => {
  if (value.length < minLength) return false
  const words = wordsOf(name)
  if (!isSecretWords(words)) return false
  return !(words.some((word) => settingWords.has(word)) && settingShape.test(value))
}

/**
 * Whether a plain variable (or JSON key) of the given name and value is a secret as a whole (see the module
 * documentation).
 *
 * @since 0.1.0
 * @category redaction
 */
export const isSecretVariable = (name: string, value: string): boolean => isSecret(name, value, ownMinLength)

const urlUserinfo = /\b[a-z][a-z0-9+.-]*:\/\/([^\s/?#@]+)@/gi
const urlParameter = /[?&]([^=&#\s]+)=([^&#\s]*)/g
// A user name alone is a credential when it looks like a key (a DSN's public key), not like a name.
const keyLikeUser = /^(?=.*\d)(?=.*[a-z])[\w.~%-]{16,}$/i

const decoded = (value: string): ReadonlyArray<string> => {
  try {
    const plain = decodeURIComponent(value)
    return plain === value ? [value] : [value, plain]
  } catch {
    return [value]
  }
}

// The credentials of the URLs in a value: userinfo passwords (or key-like users), secret query parameters.
const urlSecrets = (value: string): ReadonlyArray<string> => {
  if (!value.includes("://")) return []
  const out: Array<string> = []
  for (const [, userinfo] of value.matchAll(urlUserinfo)) {
    const colon = userinfo!.indexOf(":")
    if (colon !== -1) out.push(...decoded(userinfo!.slice(colon + 1)))
    else if (keyLikeUser.test(userinfo!)) out.push(...decoded(userinfo!))
  }
  for (const [, name, parameter] of value.matchAll(urlParameter)) {
    if (isSecret(name!, parameter!, 0)) out.push(...decoded(parameter!))
  }
  return out
}

// A part of a secret value that is a credential on its own: the token after `Bearer `, the key an
// `apiKeyHelper` command echoes. Only key-like parts (letters and digits, 12 or more), so that a passphrase's
// words do not become secrets that blank out ordinary text.
const keyLikePart = /^(?=.*\d)(?=.*[a-z])[\w.~+/=-]{12,}$/i
const keyLikeParts = (value: string): ReadonlyArray<string> =>
  /\s/.test(value) ? value.split(/\s+/).filter((part) => keyLikePart.test(part)) : []

const headerLine = /^[ \t]*([A-Za-z0-9-]+)[ \t]*:[ \t]*(.*?)[ \t]*$/gm

// Header lines in a value (`ANTHROPIC_CUSTOM_HEADERS=Authorization: Bearer ...`): the values of headers with
// secret names, and their key-like parts.
const headerSecrets = (value: string): ReadonlyArray<string> => {
  if (!value.includes(":")) return []
  const out: Array<string> = []
  for (const [, name, header] of value.matchAll(headerLine)) {
    if (header !== "" && isSecretName(name!)) out.push(header!, ...keyLikeParts(header!))
  }
  return out
}

// The credentials of one value: the whole of it when its name says so (with its key-like parts), and those
// of the URLs and header lines it holds, whatever its name.
const credentialsOf = (name: string | undefined, value: string, minLength: number): ReadonlyArray<string> =>
  [
    ...(name !== undefined && isSecret(name, value, minLength) ? [value, ...keyLikeParts(value)] : []),
    ...urlSecrets(value),
    ...headerSecrets(value)
  ].filter((s) => s.length >= minLength)

const secretsOf = (env: Environment | undefined, minLength: number): ReadonlyArray<string> =>
  Object.entries(env ?? {}).flatMap(([name, value]) => {
    if (value === undefined) return []
    if (!Redacted.isRedacted(value)) return credentialsOf(name, value, minLength)
    const secret = Redacted.value(value)
    return [...(secret === "" ? [] : [secret, ...keyLikeParts(secret)]), ...credentialsOf(undefined, secret, minLength)]
  })

/**
 * The values of `env` that must never be shown: every `Redacted` value, the value of every variable whose
 * name says it is a credential, and the credentials of URLs in any value (see the rules above `secretWords`).
 *
 * @since 0.1.0
 * @category redaction
 */
export const secretValues = (env: Environment | undefined): ReadonlyArray<string> => secretsOf(env, ownMinLength)

const flagValue = /^--?([^=]+)=(.*)$/s
// A flag that takes its value from the next argument.
const isFlag = (arg: unknown): boolean => typeof arg === "string" && /^--?\w[^=]*$/.test(arg)

/**
 * The secrets held by a JSON-like value (a settings object, an MCP configuration, a list of arguments):
 * strings under keys with secret names, at any depth (and in arrays under them), the value after a `--flag`
 * with a secret name in a list of strings, the credentials of URLs in any string, and the same inside
 * strings that are JSON objects.
 *
 * @since 0.1.0
 * @category redaction
 */
export const valueSecrets = (value: unknown): ReadonlyArray<string> => {
  const out: Array<string> = []
  const seen = new Set<unknown>()
  const walk = (value: unknown, name: string | undefined): void => {
    if (typeof value === "string") {
      out.push(...credentialsOf(name, value, ownMinLength))
      if (value.startsWith("{") && isJson(value)) walk(JSON.parse(value), undefined)
      return
    }
    if (typeof value !== "object" || value === null || seen.has(value)) return
    seen.add(value)
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        const flag = isFlag(value[i - 1]) && !isFlag(item) ? value[i - 1] as string : undefined
        const inline = typeof item === "string" ? flagValue.exec(item) : null
        if (inline !== null) walk(inline[2], inline[1])
        walk(item, flag ?? name)
      })
      return
    }
    for (const [key, item] of Object.entries(value)) walk(item, key)
  }
  walk(value, undefined)
  return out
}

/**
 * The secrets of a query's options: those of its `env` (see {@link secretValues}) and of its other values
 * (see {@link valueSecrets}: MCP headers, settings, arguments).
 *
 * @since 0.1.0
 * @category redaction
 */
export const optionSecrets = (options: { readonly env?: Environment | undefined } | undefined): ReadonlyArray<string> => {
  if (options === undefined) return []
  const { env, ...rest } = options
  return [...secretValues(env), ...valueSecrets(rest)]
}

/**
 * Values that look like credentials whatever variable (if any) they came from, by the token formats of the
 * major providers: Anthropic keys and OAuth tokens (`sk-ant-...`), OpenAI and other `sk-` keys, Stripe keys
 * (`sk_live_...`), AWS access key ids (`AKIA...`, `ASIA...`), GitHub tokens (`ghp_...`, `github_pat_...`),
 * Google API keys and OAuth tokens (`AIza...`, `ya29.`, `GOCSPX-`), Slack tokens and webhook URLs (`xoxb-...`,
 * `hooks.slack.com/services/...`), Hugging Face tokens (`hf_...`), JSON Web Tokens (`eyJ...`), and the password
 * of a URL (`https://user:password@host`).
 *
 * @since 0.1.0
 * @category redaction
 */
export const keyPattern = new RegExp(
  [
    /\bsk-ant-[A-Za-z0-9_-]{8,}/,
    /\bsk-[A-Za-z0-9_-]{32,}/,
    /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/,
    /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[0-9A-Z]{16}\b/,
    /\bgh[pousr]_[A-Za-z0-9]{30,}/,
    /\bgithub_pat_[A-Za-z0-9_]{22,}/,
    /\bAIza[0-9A-Za-z_-]{35}/,
    /\bya29\.[0-9A-Za-z_-]{20,}/,
    /\bGOCSPX-[0-9A-Za-z_-]{20,}/,
    /\bxox[abposre]-[A-Za-z0-9-]{10,}/,
    /\bxapp-\d-[A-Za-z0-9-]{10,}/,
    /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9\/_-]+/,
    /\bhf_[A-Za-z0-9]{30,}/,
    /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/,
    // A URL's password: between `scheme://user:` and `@`.
    /(?<=\b[a-z][a-z0-9+.-]*:\/\/[^\s\/?#@:"'<>]*:)[^\s\/?#@"'<>]+(?=@)/
  ].map((r) => r.source).join("|"),
  "g"
)

/**
 * What replaces a secret, or the part of one that was cut.
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
const keyHeadAtEnd =
  /(?:\bsk-|\b[rs]k_(?:live|test)_|\bA[KS]IA|\bgh[pousr]_|\bgithub_pat_|\bAIza|\bya29\.|\bGOCSPX-|\bxox[abposre]-|\bxapp-|\bhooks\.slack\.com\/|\bhf_|\beyJ)[A-Za-z0-9_.\/-]*$/
// Characters of keys and tokens (base64 included): a run of them at the start of a cut text may be the rest
// of a key, which nothing else identifies.
const tokenAtStart = /^[A-Za-z0-9_\-+/=]+/
// An escape cut at the end of a text, which the unescaped text still holds as written.
const escapeAtEnd = /\\(?:u[0-9A-Fa-f]{0,3})?$/
// What a cut leaves at the end of a text besides whole characters: the replacement characters of a
// character whose bytes were cut (decoded lossily), and an escape cut in JSON text.
const cutCharactersAtEnd = /\uFFFD+$/

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

type Span = [from: number, to: number]

// Where `text` shows a secret: each form, each key-shaped value and, at a cut edge, what may be part of one.
const spansIn = (text: string, forms: ReadonlyArray<string>, edges: Edges | undefined, escaped: boolean): Array<Span> => {
  const spans: Array<Span> = []
  for (const form of forms) {
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + form.length)) {
      spans.push([at, at + form.length])
    }
  }
  for (const match of text.matchAll(keyPattern)) spans.push([match.index, match.index + match[0].length])
  if (edges?.end === true) {
    const whole = (escaped ? text.replace(escapeAtEnd, "") : text).replace(cutCharactersAtEnd, "")
    const known = fragment(whole, forms, "end")
    const head = known > 0 ? undefined : keyHeadAtEnd.exec(whole)
    const from = known > 0 ? whole.length - known : head?.index
    if (from !== undefined) spans.push([from, text.length])
  }
  if (edges?.start === true) {
    const known = fragment(text, forms, "start") || (tokenAtStart.exec(text)?.[0].length ?? 0)
    // The marker takes at least its own length, so that a cut text (a tail within its limit) never grows.
    if (known > 0) spans.push([0, Math.max(known, Math.min(marker.length, text.length))])
  }
  return spans
}

// Replaces the spans (merged where they overlap) by the marker.
const splice = (text: string, spans: Array<Span>): string => {
  spans.sort((a, b) => a[0] - b[0])
  let out = ""
  let at = 0
  for (const [from, to] of spans) {
    if (to <= at) continue
    if (from >= at) out += text.slice(at, from) + marker
    at = to
  }
  return out + text.slice(at)
}

const jsonEscape = /\\(?:u[0-9A-Fa-f]{4}|["\\/bfnrt])/g
const escapes: Readonly<Record<string, string>> = { "\"": "\"", "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }
const hex4 = /^[0-9A-Fa-f]{4}$/

// Each JSON escape becomes its character; anything else (a lone or cut escape) stays as written. A loop
// rather than a replace with a callback: recorded lines nearly all hold escapes, and this is twice as fast.
const unescapeJson = (text: string): string => {
  let out = ""
  let from = 0
  for (let at = text.indexOf("\\"); at !== -1 && at + 1 < text.length; at = text.indexOf("\\", at)) {
    const code = text[at + 1] === "u" ? text.slice(at + 2, at + 6) : undefined
    const char = code === undefined ? escapes[text[at + 1]!] : hex4.test(code) ? String.fromCharCode(parseInt(code, 16)) : undefined
    if (char === undefined) {
      at += 1
      continue
    }
    out += text.slice(from, at) + char
    from = at = at + (code === undefined ? 2 : 6)
  }
  return from === 0 ? text : out + text.slice(from)
}

// The spans of the unescaped text, as spans of the text: each escape before a position shifts it by its length - 1.
const escapedSpans = (text: string, spans: Array<Span>): Array<Span> => {
  const points = [...new Set(spans.flat())].sort((a, b) => a - b)
  const at = new Map<number, number>()
  const escape = new RegExp(jsonEscape)
  let shift = 0
  let next = escape.exec(text)
  for (const point of points) {
    while (next !== null && next.index - shift < point) {
      shift += next[0].length - 1
      next = escape.exec(text)
    }
    at.set(point, point + shift)
  }
  return spans.map(([from, to]) => [at.get(from)!, at.get(to)!])
}

/**
 * A redactor for the given secrets: each is replaced by {@link marker} wherever the text shows it, as written
 * or with JSON escapes (`\/`, `\u0073`, an escaped quote), and so is every value matching {@link keyPattern}.
 * At a cut edge (see {@link Edges}), the part of a secret that straddles the cut is replaced as well: a
 * fragment of a known secret, a key's head at the end (an escape cut there included), and at the start the
 * leading run of key characters, which may be the rest of a key. At the start, the marker replaces at least
 * as many characters as it has, so that redacting a text cut to a size never makes it larger.
 *
 * @since 0.1.0
 * @category redaction
 * @example
 * ```ts
 * import { Redaction } from "effect-claude-code"
 *
 * const redact = Redaction.redactor(Redaction.secretValues({ DB_PASSWORD: "hunter2-hunter2" }))
 * redact("login with hunter2-hunter2") // "login with <redacted>"
 * redact("login with hunter2-hunter2".replaceAll("-", "\\u002d")) // "login with <redacted>"
 * redact("ter2-hunter2 failed", { start: true }) // "<redacted> failed"
 * ```
 */
export const redactor = (secrets: ReadonlyArray<string>): Redact => {
  const forms = [...new Set(secrets.flatMap((s) => s === "" ? [] : [JSON.stringify(s).slice(1, -1), s]))]
  return (text, edges) => {
    const spans = spansIn(text, forms, edges, false)
    // The same search in the text read unescaped; both find parts of one secret at a cut edge.
    const hidden = text.includes("\\") ? spansIn(unescapeJson(text), forms, edges, true) : []
    if (hidden.length > 0) spans.push(...escapedSpans(text, hidden))
    return spans.length === 0 ? text : splice(text, spans)
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
  // The redactor also reads the line unescaped, so a line it leaves alone holds no secret in any spelling.
  const asText = redact(text)
  if (asText === text) return text
  if (!isJson(text)) return asText
  return text.replace(stringLiteral, (literal) => {
    const value: string = literal.includes("\\") ? JSON.parse(literal) : literal.slice(1, -1)
    const redacted = redact(value)
    return redacted === value ? literal : JSON.stringify(redacted)
  })
}

/**
 * The secrets a CLI process sees: those of `env` and, when `envMode` is `"merge"` (the default), those of
 * the variables the process inherits from this one (`ANTHROPIC_API_KEY`, `AWS_SECRET_ACCESS_KEY`, ...).
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

/**
 * The redactor of what this process prints about text it did not write (a bad line of a file, an error): the
 * secrets of its own environment at the moment of the call (see {@link environmentSecrets}) and every
 * key-shaped value.
 *
 * @since 0.1.0
 * @category redaction
 */
export const processRedactor = (): Redact => redactor(environmentSecrets(undefined))

/**
 * A {@link processRedactor} made at its first use, then kept: for one command's many lines (finding the secrets
 * of the environment takes far longer than redacting a line).
 *
 * @since 0.1.0
 * @category redaction
 */
export const lazyProcessRedactor = (): Redact => {
  let redact: Redact | undefined
  return (text, edges) => (redact ??= processRedactor())(text, edges)
}

/**
 * Redacts a tail of a longer text (a stderr tail): when it starts with `…`, something was cut before it, so
 * its start is a cut edge (see {@link Edges}).
 *
 * @since 0.1.0
 * @category redaction
 */
export const redactTail = (tail: string, redact: Redact): string =>
  tail.startsWith("…") ? "…" + redact(tail.slice(1), { start: true }) : redact(tail)
