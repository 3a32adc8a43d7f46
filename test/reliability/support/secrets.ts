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

/** Every secret value the tests plant. */
export const all: ReadonlyArray<string> = [...Object.values(known), shaped.value]

/** The names of the secrets found in `text` (empty when it is clean). */
export const foundIn = (text: string): Array<string> =>
  all.filter((secret) => text.includes(secret) || text.includes(secret.slice(8, 40)))

export type Ending = "exit 3" | "exit 0"

/**
 * Writes the leaking CLI to a temp directory and returns its path. It prints an init message with the
 * values inside, a plain-text line naming them, the same on stderr, then either a result and `exit 0`, or
 * half a line and `exit 3`.
 */
const made: Array<string> = []

/** Removes every leaking CLI written so far. */
export const removeAll = (): void => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

export const leakyCli = (ending: Ending, variables: ReadonlyArray<string>): string => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leaky-cli-"))
  made.push(dir)
  const file = path.join(dir, "claude")
  const values = variables.map((name) => `$${name}`).join(" ")
  const [before, after] = Hostile.helloLines.init.split(/"cwd":"[^"]*"/)
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`
  fs.writeFileSync(
    file,
    [
      "#!/bin/sh",
      "cat > /dev/null",
      // The init message with the values in a string: a valid message carrying secrets.
      `printf '%s' ${quote(`${before}"cwd":"`)} "${values}" ${quote(`"${after}`)}; echo`,
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
