/**
 * Refusals by the CLI's own Bash safety checks, from a CLI that writes no `tool_result_meta` and no
 * `permission_denied` line: `view` shows them as denied and `stats` counts them, the run's result
 * (`permission_denials`) having the last word.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Permission from "../../src/schema/Permission.ts"
import * as Run from "./support/Run.ts"

const capture = path.join(Run.root, "fixtures", "captures", "bash_safety_without_meta.jsonl")

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ecc-denials-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

// The capture with its lines changed by `edit`, in a temp file.
const edited = (edit: (line: string) => string): string => {
  const file = path.join(dir, `edited-${fs.readdirSync(dir).length}.jsonl`)
  fs.writeFileSync(file, fs.readFileSync(capture, "utf8").split("\n").map(edit).join("\n"))
  return file
}

const deniedOf = (file: string) => JSON.parse(Run.cli(["stats", "--format", "json", file]).stdout).files[0].tools.Bash.denied

describe("Bash safety refusals without tool_result_meta", () => {
  it("the CLI's wordings are refusals", () => {
    for (
      const text of [
        "This Bash command contains multiple operations. The following part requires approval: git push origin main",
        "This Bash command contains multiple operations. The following parts require approval: cd /tmp, echo hi",
        "Command contains output redirection (>) which could write to arbitrary files",
        "Commands that change directories and write via output redirection require explicit approval to ensure paths are evaluated correctly.",
        "Output redirection to '/w/files.txt' needs approval. The path is inside the working directories for this session ('/w')"
      ]
    ) expect(Permission.isRefusalText(text), text).toBe(true)
    expect(Permission.isRefusalText("Exit code 1\nls: cannot access 'x': No such file or directory")).toBe(false)
  })

  it("view shows them as denied", () => {
    const out = Run.cli(["view", capture]).stdout
    expect(out.match(/⎿ {2}Denied: /g)?.length).toBe(3)
    expect(out).not.toMatch(/⎿ {2}Error: /)
  })

  it("stats counts them", () => {
    expect(deniedOf(capture)).toBe(3)
    expect(Run.cli(["stats", capture]).stdout).toContain("3 tool results with is_error (3 denied)")
  })

  it("stats counts an unknown refusal wording the result lists", () => {
    const file = edited((line) => line.replace("needs approval", "is not allowed"))
    expect(deniedOf(file)).toBe(3)
  })

  it("view tells an unknown refusal wording the result lists", () => {
    const file = edited((line) => line.replace("needs approval", "is not allowed"))
    const out = Run.cli(["view", file]).stdout
    expect(out).toContain("⎿  Error: Output redirection to 'files.txt' is not allowed.")
    const note = out.split("\n").filter((l) => l.includes("the run's result says"))
    expect(note).toEqual(["Denied, the run's result says: Bash(ls > files.txt), Bash(ls && rm a.txt)"])
    expect(out.indexOf(note[0]!)).toBeLessThan(out.indexOf("Session complete"))
  })

  it("an error result the result does not list is not a refusal", () => {
    const file = edited((line) => line.replace(/"permission_denials":\[.*?\}\}\]/, "\"permission_denials\":[]"))
    expect(fs.readFileSync(file, "utf8")).toContain("\"permission_denials\":[]")
    expect(deniedOf(file)).toBe(0)
  })
})
