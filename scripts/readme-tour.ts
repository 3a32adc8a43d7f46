/**
 * Writes the README's tour (between `<!-- tour:start -->` and `<!-- tour:end -->`) from the programs in
 * `examples/`, which are type-checked and tested like the rest of the code. Imports of the library's sources
 * are shown as the package's own entry points (`../src/layers/index.ts` reads `effect-claude-code/layers`).
 *
 *   node scripts/readme-tour.ts
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Readme from "./readme.ts"

/** The tour's steps, in order: a title, the example file shown under it, and a text file it reads (`also`). */
export const steps: ReadonlyArray<{ readonly title: string; readonly file: string; readonly also?: string }> = [
  { title: "Run Claude Code, keep the tool activity", file: "examples/tool-activity.ts" },
  { title: "Test it offline: the real CLI against a scripted model, and a recording", file: "examples/tool-activity.test.ts" },
  { title: "Sessions: several turns, a permission callback, a tool of your own", file: "examples/session.ts" },
  { title: "Permission policies in the filter language", file: "examples/policy.ts" },
  { title: "Governance for a fleet: agent sessions under a policy file, a budget per tenant, a cap on live CLIs", file: "examples/fleet.ts", also: "examples/fleet-policy.txt" },
  { title: "Effect AI: Claude Code as a LanguageModel, your toolkits as its tools", file: "examples/language-model.ts" },
  { title: "Durable sessions: go on anywhere from a store, read what the CLI kept", file: "examples/durable-sessions.ts" },
  { title: "Agent services across machines: a runner", file: "examples/cluster-runner.ts" },
  { title: "Agent services across machines: a runner killed mid-turn (npm run demo:cluster)", file: "examples/cluster.ts" }
]

const commandLine = [
  "### From the command line",
  "",
  "The package's `effect-claude-code` executable shows sessions as a person reads them, and picks items with the",
  "filter syntax (`tool:Bash | error`, `result:Read & not error`, `text & main`, ...):",
  "",
  "```sh",
  "npx effect-claude-code run --allowed-tools Bash --filter 'tool:Bash | error' \"Why does npm test fail?\"",
  "claude -p \"...\" --output-format stream-json --verbose | npx effect-claude-code view -",
  "npx effect-claude-code view --format jsonl --filter 'result:Bash & error' recording.jsonl",
  "npx effect-claude-code view --filter 'tool:Bash & error' ~/.claude/projects/KEY/SESSION.jsonl",
  "npx effect-claude-code stats --format json recordings/*.jsonl",
  "npx effect-claude-code run --policy policy.txt \"Tidy up the repository\"",
  "npx effect-claude-code view --store sqlite:sessions.db --filter 'tool:Bash & error'",
  "```",
  "",
  "`--format jsonl` prints the CLI's lines as written (stream-json: pipe them into `view` or `stats`); with",
  "`--filter`, it prints one JSON object per selected item instead, `{\"kind\", \"session_id\",",
  "\"parent_tool_use_id\", \"message_index\", \"block_index\", \"value\"}`, the value being the block or message as",
  "the CLI wrote it. A call is an `error` when its result is (and `denied` when its result was refused), so",
  "`tool:Bash & error` shows the Bash calls that failed, without their results: a call is held until its result",
  "arrives and printed then (one that gets no result, at the end), so it comes at its result's place, not its",
  "own; `(tool:Bash | result:Bash) & error` shows each failed call followed by its error text.",
  "`--format json` prints one summary object. Every command documents its flags and exit codes in `--help`.",
  "",
  "`run --policy FILE` decides the tool calls Claude Code asks about with a permission policy in the filter",
  "language (`allow tool:Read & path:src/**`, `deny tool:Bash & command:\"rm *\" \"no deleting\"`, `default ask`; see",
  "`Policy`): the first rule that selects the call decides, and `ask` has no one to answer in `run`, so it denies",
  "with a message saying so. The run then goes through a session (the control protocol), so `--format jsonl`",
  "prints its messages encoded again rather than the lines as written. A file that does not read is a usage error",
  "naming its line; a policy that allows everything, or a rule that can never decide, is said on standard error.",
  "",
  "`view` and `stats` take a file, a directory (every `.jsonl` under it, by path) or `-` for standard input, in",
  "either format: a transcript is told from stream-json by its first lines, on standard input too. In a",
  "directory each file is a session on its own: pretty output starts each with a `── FILE ──` line, `--format",
  "json` gives `{\"files\": [...], \"total\"}`, and `view -f` follows every file at once (and files that appear",
  "later). `stats` and `view --format json` count the tokens and cost of each assistant message once, by",
  "message id and request id as ccusage does, so the total is right. A forked or resumed session copies its",
  "history, and a copied message counts for the first file, by path, that holds it; per-file figures of forks",
  "are therefore their new messages only. Tool calls count in every file, as `view` shows them. `task:ID`",
  "selects a subagent's transcript by the `Task` call id in the `agent-*.meta.json` beside it. A bookkeeping line of",
  "a transcript (a title, a `last-prompt`, a request record: beside the conversation) whose fields do not fit its",
  "schema fails nothing: `stats --every-line` counts it by its type and lists it as `unfit`, `view` warns of it; a",
  "conversation line that does not fit fails them as any bad line does. By default `stats` tells the lines that count",
  "only their kind (bookkeeping, attachments) from their bytes without parsing them, so such a line broken inside",
  "counts as decoded there (prompts, messages and tool results are always checked).",
  "",
  "`view` and `stats` with `--store sqlite:FILE`, `--store postgres://USER@HOST:PORT/DB` or `--store DIR` (a",
  "directory store) and no FILE read the sessions of that store (of the project `--project=KEY`, else of every",
  "project), each as a file of a directory: pretty output heads each with `── PROJECT_KEY/SESSION_ID ──`, `stats`",
  "names each by it, and `--filter` works as on files. `view --filter` over a SQL store reads only the sessions its",
  "tool-call index finds calls of, when the filter selects tool calls only (`tool:Bash & error`, `path:src/**`); the",
  "output is the same. A store with no session there is an input error naming it.",
  "",
  "A directory is walked so that it ends: a link to a directory is followed once per real path (a link back up",
  "the tree, or to a directory already read, is skipped), and special files named `.jsonl` (a named pipe, a",
  "socket, a device) are skipped; each skipped path is named on standard error. Input with no JSON line in its",
  "first 256 KB is neither format, and `view` and `stats` stop reading it there. `stats` shows the first 20",
  "failed lines of a file with their reasons and counts the rest. What either prints of a bad line is redacted,",
  "as the errors of `run` are (see Reliability). On a Node.js older than 22.19 the executable says so in one",
  "line and exits 1."
]

const packageName = "effect-claude-code"

/** Source file (relative to the root) → the package entry point that exports it. */
const entryPoints = (): Map<string, string> => {
  const manifest = JSON.parse(fs.readFileSync(path.join(Readme.root, "package.json"), "utf8")) as {
    readonly exports: Record<string, string | { readonly default: string }>
  }
  const entries = new Map<string, string>()
  for (const [entry, target] of Object.entries(manifest.exports)) {
    if (typeof target === "string") continue
    const source = target.default.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")
    entries.set(source, path.posix.join(packageName, entry))
  }
  return entries
}

/** An example as a user writes it: its imports of the sources become imports of the package. */
export const asPublished = (file: string, source: string, entries = entryPoints()): string =>
  source.replace(/from "(\.{1,2}\/[^"]+)"/g, (whole, specifier: string) => {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier))
    if (!target.startsWith("src/")) return whole
    const entry = entries.get(target)
    if (entry === undefined) throw new Error(`${file} imports ${specifier}, which no entry point of the package exports`)
    return `from "${entry}"`
  })

const leadingComment = /^\/\*\*\n((?: \*.*\n)+) \*\/\n/

/** One step: its title, the example's leading comment as prose, and the rest as code. */
const step = (title: string, file: string, also?: string): Array<string> => {
  const source = fs.readFileSync(path.join(Readme.root, file), "utf8")
  const comment = leadingComment.exec(source)
  if (comment === null) throw new Error(`${file} does not start with a /** ... */ comment saying what it shows`)
  const prose = comment[1].split("\n").filter((line) => line !== "").map((line) => line.replace(/^ \* ?/, ""))
  const code = asPublished(file, source.slice(comment[0].length)).trim()
  const shownToo = also === undefined
    ? []
    : [`(\`${also}\`)`, "", "```text", fs.readFileSync(path.join(Readme.root, also), "utf8").trim(), "```", ""]
  return [`### ${title}`, "", ...prose, `(\`${file}\`)`, "", "```ts", code, "```", "", ...shownToo]
}

/** The whole tour section. */
export const section = (): string =>
  [
    "## A short tour",
    "",
    "The code below is the code of `examples/`, type-checked and run by `npm test` (the tests against the",
    "scripted model run the real `claude`), in the repository and, as written here, in an application that",
    "installed the packed package. Regenerate this section with `npm run readme:tour`.",
    "",
    ...steps.flatMap(({ also, file, title }) => step(title, file, also)),
    ...commandLine
  ].join("\n")

if (import.meta.main) {
  const readme = fs.readFileSync(Readme.readmePath, "utf8")
  fs.writeFileSync(Readme.readmePath, Readme.replaceSection(readme, "tour", section()))
  console.log(`README.md: tour of ${steps.length} examples written`)
}
