/**
 * Secrets for the redaction tests and a fake CLI that leaks them: it reads its environment and writes the
 * values into a JSON message, a plain-text stdout line, stderr, and a last line cut by its exit.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Hostile from "./hostile.ts"

/** Known secret variables, with values shaped like the real ones (none is real). */
export const known = {
  ANTHROPIC_API_KEY: "sk-ant-api03-TESTKEYaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbAA",
  ANTHROPIC_AUTH_TOKEN: "auth-token-0123456789abcdef0123456789abcdef",
  CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-TESTOAUTHcccccccccccccccccccccccccccccccccc-ddddAA",
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYTESTKEYEXAMPLE",
  AWS_SESSION_TOKEN: "FwoGZXIvYXdzEXAMPLESESSIONTOKENeeeeeeeeeeeeeeeeeeeeee"
} as const

/** A key-shaped value under a name that does not look secret. */
export const shaped = { name: "MY_SETTING", value: "sk-ant-api03-SHAPEDffffffffffffffffffffffffffffffffffff-gggggAA" } as const

/**
 * Other credentials, known by their names only: numbers, a passphrase with spaces, names that are not
 * KEY or TOKEN, and URLs whose password (or key) is the secret.
 */
export const credentials = {
  DB_PASSWORD: "83746192017",
  SMTP_PASSWORD: "20231987",
  DB_PASS: "Hunter2Hunter2",
  GPG_PASSPHRASE: "correct horse battery staple",
  MYSQL_PWD: "s3cretPw0rd-x",
  DATABASE_URL: "postgres://app:Tr0ub4dor-and-3@db:5432/x",
  SENTRY_DSN: "https://abcdef0123456789abcdef0123456789@o1.ingest.sentry.io/1"
} as const

/** The secret in each of {@link credentials}: the value, or the URL's password or key. */
export const credentialSecrets: ReadonlyArray<string> = [
  ...Object.values(credentials).filter((v) => !v.includes("://")),
  "Tr0ub4dor-and-3",
  "abcdef0123456789abcdef0123456789"
]

/**
 * Tokens in the formats of the major providers (none is real), under names that say nothing of a secret, or
 * that name a location (`SLACK_WEBHOOK_URL`): known by their shape.
 */
export const providerTokens = {
  MY_ANTHROPIC: "sk-ant-api03-TESTshapeAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-bbbbAA",
  MY_OPENAI: "sk-proj-TESTabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
  MY_SERVICE_PAT: "github_pat_11AAAAAAA0TESTabcdefghij_klmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ01",
  GH_CLASSIC: "ghp_TESTabcdefghijklmnopqrstuvwxyz012345",
  AWS_ID: "AKIATESTQ7EXAMPLE234",
  GOOGLE_MAPS: "AIzaSyTESTabcdefghijklmnopqrstuvwxyz012",
  GOOGLE_BEARER_X: "ya29.TESTabcdefghijklmnopqrstuvwxyz0123",
  SLACK_BOT: "xoxb-123456789012-1234567890123-TESTabcdefghijklmnopqrstuv",
  SLACK_WEBHOOK_URL: "https://hooks.slack.com/services/T0TEST000/B0TEST000/TESTabcdefghijklmnopqrstuv",
  X_HF: "hf_TESTabcdefghijklmnopqrstuvwxyz012345",
  JWT: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ0ZXN0LXVzZXIiLCJpYXQiOjE3MDAwMDAwMDB9.TESTsignatureabcdefghijklmnopqrstuvwxyz012",
  GIT_REMOTE: "https://deploy:TESTpassw0rd-xyz@git.example.com/repo.git"
} as const

/** The head that tells the format of each of {@link providerTokens} whose whole value is the token. */
export const providerHeads: Partial<Record<keyof typeof providerTokens, number>> = {
  MY_ANTHROPIC: "sk-".length,
  MY_OPENAI: "sk-".length,
  MY_SERVICE_PAT: "github_pat_".length,
  GH_CLASSIC: "ghp_".length,
  AWS_ID: "AKIA".length,
  GOOGLE_MAPS: "AIza".length,
  GOOGLE_BEARER_X: "ya29.".length,
  SLACK_BOT: "xoxb-".length,
  X_HF: "hf_".length,
  JWT: "eyJ".length
}

/** The secret in each of {@link providerTokens}: the token, a webhook's path, a URL's password. */
export const providerSecrets: ReadonlyArray<string> = [
  ...Object.values(providerTokens).filter((v) => !v.includes("://")),
  "T0TEST000/B0TEST000/TESTabcdefghijklmnopqrstuv",
  "TESTpassw0rd-xyz"
]

/** Settings under names with secret words, which must stay as they are (not secrets). */
export const settings = { APP_MAX_TOKENS: "1024", APP_DISABLE_AUTH: "true" } as const

/** Every secret value the tests plant. */
export const all: ReadonlyArray<string> = [...Object.values(known), shaped.value, ...credentialSecrets, ...providerSecrets]

// The text with its JSON escapes read (`\/`, `\u0073`, `\"`), where a secret may hide.
const unescaped = (text: string): string =>
  text.replace(/\\(?:u([0-9A-Fa-f]{4})|(["\\/]))/g, (_, code, char) => code !== undefined ? String.fromCharCode(parseInt(code, 16)) : char)

/** The secrets found in `text`, as written or with JSON escapes, whole or in part (empty when it is clean). */
export const foundIn = (text: string): Array<string> => {
  const views = [text, unescaped(text)]
  return all.filter((secret) =>
    views.some((view) => view.includes(secret) || (secret.length > 16 && view.includes(secret.slice(8, 40))))
  )
}

export type Ending = "exit 3" | "exit 0"

const made: Array<string> = []

/** Removes every leaking CLI written so far. */
export const removeAll = (): void => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

// A CLI printing `values` (shell words) in its init message (unless `inInit` is false), a plain-text line
// and stderr, then a result and exit 0, or half a line and exit 3.
const writeCli = (ending: Ending, values: string, inInit: boolean): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leaky-cli-"))
  made.push(dir)
  const file = path.join(dir, "claude")
  const [before, after] = Hostile.helloLines.init.split(/"cwd":"[^"]*"/)
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`
  fs.writeFileSync(
    file,
    [
      "#!/bin/sh",
      "cat > /dev/null",
      // The init message with the values in a string: a valid message carrying secrets.
      inInit
        ? `printf '%s' ${quote(`${before}"cwd":"`)} "${values}" ${quote(`"${after}`)}; echo`
        : `printf '%s\\n' ${quote(Hostile.helloLines.init)}`,
      `echo "Warning: using credentials ${values}"`,
      `echo "Error: auth failed for ${values}" >&2`,
      ending === "exit 0"
        ? `printf '%s\\n' ${quote(Hostile.helloLines.result)}; exit 0`
        : `printf '%s' '{"type":"assistant","key":"' "${values}"; exit 3`
    ].join("\n") + "\n"
  )
  fs.chmodSync(file, 0o755)
  return file
}

/**
 * Writes a CLI leaking the values of `variables` to a temp directory and returns its path. It prints an init
 * message with the values inside, a plain-text line naming them, the same on stderr, then either a result
 * and `exit 0`, or half a line and `exit 3`.
 */
export const leakyCli = (ending: Ending, variables: ReadonlyArray<string>): string =>
  writeCli(ending, variables.map((name) => `$${name}`).join(" "), true)

/** The same CLI leaking its arguments instead (its init message is clean: arguments hold quotes). */
export const argsCli = (ending: Ending): string => writeCli(ending, "$*", false)
