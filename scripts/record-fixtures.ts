/**
 * Re-records every bundled scenario from the real `claude` binary through the scripted server:
 * `fixtures/recorded/<name>.jsonl` and `<name>.partial.jsonl` (with --include-partial-messages), plus
 * `fixtures/README.md`; and the session transcripts those runs leave in the sandbox's `~/.claude/projects`,
 * as `fixtures/transcripts-recorded/<name>[.partial].jsonl` (subagents' under `<name>[.partial]/`), plus
 * their README naming the CLI version and the entry types the CLI can append (`entry-types.json`); then the
 * hostile inputs cut from the recordings (`fixtures/bad-input/`, `scripts/bad-input.ts`). Moving the CLI pin is
 * then this one command, and `git diff` shows what the new version writes differently.
 *
 *   node scripts/record-fixtures.ts [name ...]
 *
 * The sandbox's temp directory is replaced by `/tmp/claude-sandbox` (and its slug form by
 * `-tmp-claude-sandbox`), in streamed fragments too (`sanitize-fixtures.ts`), so re-recordings differ only
 * in ids, timestamps and durations.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as nodeFs from "node:fs"
import * as ClaudeSandbox from "../src/testing/ClaudeSandbox.ts"
import * as Scenario from "../src/testing/Scenario.ts"
import * as Scenarios from "../src/testing/internal/scenarios/index.ts"
import * as Sanitize from "./sanitize-fixtures.ts"

const root = new URL("..", import.meta.url).pathname
const outDir = `${root}fixtures/recorded`
const transcriptsDir = `${root}fixtures/transcripts-recorded`

interface Recorded {
  readonly scenario: Scenario.Scenario
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly lines: number
  readonly exitCode: number
  readonly stderr: string
  readonly turnRequests: number
  readonly exhausted: number
  readonly transcripts: ReadonlyArray<string>
}

// The transcripts a run left, renamed after the fixture (`base`): the run's own session (the one its stream-json
// names) is `<base>.jsonl`, its subagents' under `<base>/`, another session (none so far) `<base>.<its id>.jsonl`.
const copyTranscripts = (run: Scenario.Run, base: string, normalize: (s: string) => string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const projects = `${run.sandbox.home}/.claude/projects`
    const own = run.messages.find((m) => typeof m.session_id === "string")?.session_id as string | undefined
    const found = (yield* fs.exists(projects)) ? yield* fs.readDirectory(projects, { recursive: true }) : []
    const written: Array<string> = []
    // Agent ids are random: numbered in the order of their files, so a re-recording keeps the names.
    const agents = new Map<string, string>()
    for (const relative of found.filter((f) => f.endsWith(".jsonl")).sort()) {
      // `<project key>/<session id>.jsonl` or `<project key>/<session id>/subagents/agent-<id>.jsonl`
      const [, session, ...rest] = relative.split("/")
      const id = session!.replace(/\.jsonl$/, "")
      const named = id === own ? base : `${base}.${id}`
      const inside = rest.join("/").replace(/agent-[0-9a-f]+/, (agent) => agents.get(agent) ?? agents.set(agent, `agent-${agents.size + 1}`).get(agent)!)
      const target = rest.length === 0 ? `${named}.jsonl` : `${named}/${inside}`
      yield* fs.makeDirectory(`${transcriptsDir}/${target.slice(0, target.lastIndexOf("/") + 1)}`, { recursive: true })
      yield* fs.writeFileString(`${transcriptsDir}/${target}`, normalize(yield* fs.readFileString(`${projects}/${relative}`)))
      written.push(target)
    }
    return written
  })

const record = (scenario: Scenario.Scenario, partial: boolean) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const run = yield* Scenario.run(scenario, { partial }).pipe(Effect.timeout("120 seconds"))
    const sandboxRoot = run.sandbox.cwd.slice(0, run.sandbox.cwd.lastIndexOf("/"))
    // The CLI also names per-project folders after the cwd with every non-alphanumeric turned into "-"; a
    // streamed tool input may split either across fragments.
    const normalize = (s: string) => Sanitize.sanitize(s, Sanitize.forRoot(sandboxRoot))
    const base = `${scenario.name}${partial ? ".partial" : ""}`
    const file = `${base}.jsonl`
    // A run that printed nothing (the CLI refused its flags) leaves no fixture; README.md says why.
    if (run.stdout !== "") {
      yield* fs.writeFileString(`${outDir}/${file}`, normalize(run.stdout))
    } else {
      yield* fs.remove(`${outDir}/${file}`, { force: true })
    }
    const turnRequests = run.requests.filter((r) => r.kind === "turn" || r.kind === "failure").length
    const exhausted = run.requests.filter((r) => r.kind === "exhausted").length
    const transcripts = yield* copyTranscripts(run, base, normalize)
    yield* Console.log(
      `${file}: exit ${run.exitCode}, ${run.messages.length} lines, ${turnRequests} model requests` +
        (exhausted > 0 ? `, ${exhausted} past the script` : "") +
        (run.stderr.trim() === "" ? "" : `, stderr: ${run.stderr.trim().slice(0, 200)}`)
    )
    return {
      scenario,
      file,
      args: run.args.map(normalize),
      lines: run.messages.length,
      exitCode: run.exitCode,
      stderr: run.stderr.trim(),
      turnRequests,
      exhausted,
      transcripts
    } satisfies Recorded
  }).pipe(Effect.scoped)

const readme = (version: string, recorded: ReadonlyArray<Recorded>) =>
  [
    "# Recorded fixtures",
    "",
    `Recorded with Claude Code CLI \`${version}\` (\`@anthropic-ai/claude-code\`, the pinned devDependency), running`,
    "offline against the scripted Messages API server of `src/testing` (`ScriptedServer`), in a temp HOME and",
    "working directory (`ClaudeSandbox`) with a dummy API key. Re-record all of them with",
    "`npm run fixtures:record` (`node scripts/record-fixtures.ts [name ...]` for some).",
    "",
    "Each scenario is defined in `src/testing/internal/scenarios/` (prompt, CLI flags, files, and the model's script)",
    "and recorded twice: `<name>.jsonl` and `<name>.partial.jsonl` (`--include-partial-messages`). Files are the",
    "CLI's stdout as written, except that the sandbox's temp directory is replaced by `/tmp/claude-sandbox`",
    "(also where a streamed tool input splits it across fragments: `scripts/sanitize-fixtures.ts`);",
    "re-recordings differ only in session ids, uuids, socket paths, timestamps and durations.",
    process.getuid?.() === 0
      ? "Recorded as root: without `IS_SANDBOX=1` the CLI refuses `bypassPermissions` before printing anything."
      : "Recorded as an ordinary user, so `bypassPermissions` runs even without `IS_SANDBOX=1`.",
    "",
    "The session transcripts these runs leave are recorded with them in `transcripts-recorded/` (named after the",
    "fixtures; its README lists them), with `entry-types.json`: the entry types this CLI can append to a",
    "transcript, read from its bundle. After moving the CLI pin, `npm run fixtures:record` and `git diff` show what",
    "the new version writes differently.",
    "",
    "| file | exit | lines | model requests | what it shows | CLI arguments |",
    "|---|---|---|---|---|---|",
    ...recorded.map((r) =>
      `| ${r.lines === 0 ? `${r.file} (not written: the CLI printed nothing; stderr: ${r.stderr})` : `\`${r.file}\``} | ${r.exitCode} | ${r.lines} | ${r.turnRequests} | ${r.scenario.description} | \`${
        r.args.map((a) => (/\s/.test(a) || a === "" ? JSON.stringify(a) : a)).join(" ").replaceAll("|", "\\|")
      }\` |`
    ),
    "",
    "## What this CLI version does (seen while recording)",
    "",
    "- `Glob`/`LS` are not offered in `-p` mode: calling them gets an is_error tool_result advising Bash (`file_listing`).",
    "- Bash output over `BASH_MAX_OUTPUT_LENGTH` (30 000 characters by default) is saved to a file and replaced by a",
    "  `<persisted-output>` preview; `large_tool_result` raises the Read limit to get a ~860 KB line instead.",
    "- The Task tool runs the subagent in the background: `task_started`/`task_progress`/`task_notification` system",
    "  messages, the subagent's messages carry `parent_tool_use_id`, and the run ends with two `result` messages.",
    "- API errors are retried with `system`/`api_retry` messages (`error_status` 529, 429, 500); a 400 is not retried.",
    "- Denied tools appear as a `system`/`permission_denied` message, an is_error tool_result and `permission_denials`.",
    "- After a failed request the CLI may emit an assistant message with model `<synthetic>`.",
    "- Test snapshots derived from these files (`fixtures/snapshots/`, test/cli/View.test.ts) carry session ids and",
    "  timings: after re-recording, check that only those changed and update them with `npx vitest run test/cli -u`.",
    ""
  ].join("\n")

// The entry types the CLI can append to a transcript, read from its own tables (one per reader of a transcript:
// how a resume loads each type, which rows a copy keeps, where a row goes), as the minified bundle spells them:
// `{user:"transcript",assistant:"transcript",...}` and the types its lookup function names apart
// (`if(e==="host-row")...`). Written beside the transcripts; test/transcript/EntryTypes.test.ts checks that each
// has a schema, so a new pin that adds a type fails there.
const tableMarkers = ["{user:\"transcript\",", "{user:\"message\",", "{user:\"dedup-transcript\","]

const entryTypes = (bundle: Buffer): ReadonlyArray<string> => {
  const types = new Set<string>()
  for (const marker of tableMarkers) {
    const at = bundle.indexOf(marker)
    if (at === -1) throw new Error(`the CLI's entry type table ${marker}...} was not found: update entryTypes in scripts/record-fixtures.ts`)
    const end = bundle.indexOf("}", at)
    const table = bundle.toString("latin1", at, end)
    for (const [, quoted, bare] of table.matchAll(/(?:"([a-z_-]+)"|([a-z_]+)):"/g)) types.add(quoted ?? bare!)
    // The lookup function after the table names the types it handles apart.
    for (const [, type] of bundle.toString("latin1", end, end + 600).matchAll(/e==="([a-z_-]+)"/g)) types.add(type!)
  }
  return [...types].sort()
}

const transcriptsReadme = (version: string, recorded: ReadonlyArray<Recorded>) =>
  [
    "# Recorded transcripts",
    "",
    `The session transcripts Claude Code CLI \`${version}\` wrote (\`~/.claude/projects/<project key>/\`) while`,
    "recording `fixtures/recorded/` (see `fixtures/README.md`): one per recorded run, named after its fixture",
    "(`<name>.jsonl`, `<name>.partial.jsonl`), a subagent's under `<name>/subagents/`. Written by",
    "`npm run fixtures:record` along with the stream-json fixtures, sanitized the same way (the sandbox's temp",
    "directory is `/tmp/claude-sandbox`); re-recordings differ only in ids, timestamps and durations.",
    "",
    "`entry-types.json` lists the entry types this CLI can append to a transcript, read from the tables of its",
    "bundle (`scripts/record-fixtures.ts`); `test/transcript/EntryTypes.test.ts` checks that each has a schema.",
    "",
    "| run | transcripts |",
    "|---|---|",
    ...recorded.map((r) => `| \`${r.file}\` | ${r.transcripts.length === 0 ? "none" : r.transcripts.map((t) => `\`${t}\``).join(", ")} |`),
    ""
  ].join("\n")

const program = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const names = process.argv.slice(2)
  const scenarios = names.length === 0 ? Scenarios.all : Scenarios.all.filter((s) => names.includes(s.name))
  yield* fs.makeDirectory(outDir, { recursive: true })
  // A full recording replaces every transcript: one the new CLI no longer writes must not linger.
  if (names.length === 0) yield* fs.remove(transcriptsDir, { recursive: true, force: true })
  yield* fs.makeDirectory(transcriptsDir, { recursive: true })
  const executable = yield* ClaudeSandbox.findExecutable()
  const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
  const version = (yield* spawner.string(ChildProcess.make(executable, ["--version"]))).trim()
  yield* Console.log(`Recording ${scenarios.length} scenarios with ${executable} (${version})`)
  const recorded = yield* Effect.forEach(
    scenarios.flatMap((s) => [[s, false], [s, true]] as const),
    ([s, partial]) => record(s, partial),
    { concurrency: 2 }
  )
  if (names.length === 0) {
    yield* fs.writeFileString(`${root}fixtures/README.md`, readme(version, recorded))
    yield* fs.writeFileString(`${transcriptsDir}/README.md`, transcriptsReadme(version, recorded))
    const types = entryTypes(nodeFs.readFileSync(nodeFs.realpathSync(executable)))
    yield* fs.writeFileString(`${transcriptsDir}/entry-types.json`, JSON.stringify({ cli: version, types }, null, 2) + "\n")
  }
  // The committed hostile inputs are cut from the recordings: written again from the new ones.
  yield* Effect.promise(() => import("./bad-input.ts"))
  const broken = recorded.filter((r) => r.exhausted > 0)
  if (broken.length > 0) {
    return yield* Effect.fail(new Error(`scripts ran out in: ${broken.map((r) => r.file).join(", ")}`))
  }
}).pipe(Effect.provide(NodeServices.layer))

NodeRuntime.runMain(program)
