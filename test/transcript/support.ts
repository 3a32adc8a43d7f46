/**
 * Transcripts for the transcript suites: the shared corpus of real transcripts, and transcripts the real CLI
 * writes on the scripted model in the test.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Transcript from "../../src/transcript/Transcript.ts"
import * as Scenario from "../../src/testing/Scenario.ts"
import * as Script from "../../src/testing/Script.ts"
import * as Scenarios from "../../src/testing/internal/scenarios/index.ts"


/** The committed copy of the transcript corpus, and every file of it and of the shared one (see Corpus.ts). */
export { transcriptFiles as transcriptCorpusFiles, transcriptsDir as transcriptCorpusDir } from "../support/Corpus.ts"

/** Every `.jsonl` file under a directory, sorted. */
export const jsonlFiles = (dir: string): ReadonlyArray<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl")).sort()
      .map((name) => path.join(dir, name))
    : []

/** `f` with a directory of its own under the system's temporary one, removed after. */
export const withTempDir = (prefix: string, f: (dir: string) => void): void => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  try {
    f(dir)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The non-blank lines of a file parsed with `JSON.parse` alone: the independent count the tests compare with. */
export const rawEntries = (file: string): ReadonlyArray<Record<string, any>> =>
  fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line))

/** A `/compact` between two prompts: the CLI writes a compact boundary and a compact summary. */
export const compactScenario: Scenario.Scenario = {
  name: "compact",
  description: "",
  prompt: "",
  input: ["Hello", "/compact", "After compact"],
  script: () =>
    Script.make([Script.turn("Hi."), Script.turn("<summary>We said hello.</summary>"), Script.turn("Still here.")])
}

/** Two Bash calls in one message, the first failing; then the answer. */
export const parallelBashScenario: Scenario.Scenario = {
  name: "parallel_bash",
  description: "",
  prompt: "Show me missing.txt and present.txt",
  args: ["--allowedTools", "Bash"],
  files: { "present.txt": "here\n" },
  script: () =>
    Script.make([
      Script.turn([
        Script.toolUse("Bash", { command: "cat missing.txt", description: "Print missing.txt" }),
        Script.toolUse("Bash", { command: "cat present.txt", description: "Print present.txt" })
      ]),
      Script.turn("missing.txt does not exist; present.txt says here.")
    ])
}

/**
 * Plays scenarios with the real CLI and gives the config directory (`CLAUDE_CONFIG_DIR`) of each; they live
 * until the scope closes.
 */
export const realConfigDirs = (scenarios: ReadonlyArray<Scenario.Scenario>) =>
  Effect.forEach(scenarios, (scenario) =>
    Scenario.run(scenario).pipe(
      Effect.map((run) => {
        if (run.exitCode !== 0) throw new Error(`${scenario.name} exited ${run.exitCode}: ${run.stderr}`)
        return path.join(run.sandbox.home, ".claude")
      })
    )).pipe(Effect.provide(NodeServices.layer))

/**
 * The scenarios whose transcripts the suites read: a Task subagent, three prompts, a compaction, API retries,
 * parallel calls of which one fails.
 */
export const realScenarios = [
  Scenarios.subagent,
  Scenarios.streamJsonSession,
  compactScenario,
  Scenarios.errorCase,
  parallelBashScenario
]

/** Decodes `line` with a field added later, asserts it is a known entry of `tag`, and gives its fields. */
export const decodeKnown = (line: Record<string, unknown>, tag: string): Record<string, unknown> => {
  const result = Transcript.decodeEntry({ ...line, addedLater: 1 })
  assert.isTrue(Result.isSuccess(result), String(Result.isFailure(result) && result.failure.message))
  const entry = (result as Result.Success<Transcript.Entry, never>).success as unknown as Record<string, unknown>
  assert.strictEqual(entry._tag, tag)
  assert.isTrue(Transcript.isKnownType(line.type as string))
  return entry
}
