/**
 * The `effect-claude-code` command line: `run`, `view`, `stats` and `demo`, built with `effect/cli`.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Filter from "../filter/Filter.ts"
import * as Decode from "../stream/Decode.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Demo from "./Demo.ts"
import * as Input from "./Input.ts"
import * as Live from "./Live.ts"
import * as Session from "./Session.ts"
import * as Stats from "./Stats.ts"

const format = Flag.Literals("format", ["pretty", "jsonl", "json"]).pipe(
  Flag.withDescription(
    "pretty (as a person reads it), jsonl (the raw lines; with --filter one JSON object per selected item) " +
      "or json (one summary object)"
  ),
  Flag.withDefault("pretty")
)

const filter = Flag.String("filter").pipe(
  Flag.withDescription(
    "show only what the expression selects, e.g. 'tool:Bash | error', 'text & main', 'not delta' " +
      "(atoms: text thinking tool[:NAME] result[:NAME] error denied system[:SUBTYPE] type:TYPE session:ID " +
      "subagent main task:ID delta[:KIND] all none; operators: and & or | not ! ( ))"
  ),
  Flag.optional
)

// A filter that does not parse is a usage error that points at the column.
const parseFilter = (text: Option.Option<string>): Effect.Effect<Filter.Filter | undefined, CliFailure.CliFailure> =>
  Option.match(text, {
    onNone: () => Effect.succeed(undefined),
    onSome: (t) =>
      Result.match(Filter.parseResult(t), {
        onSuccess: Effect.succeed,
        onFailure: (e) => Effect.fail(CliFailure.make("Usage", `--filter: ${e.message}`, e))
      })
  })

// Every command's --help ends with the exit codes.
const describe = (text: string) => Command.withDescription(`${text}\n\n${CliFailure.exitCodeHelp}`)

const exitFor = (outcome: Live.Outcome): Effect.Effect<void, CliFailure.SilentExit> =>
  Live.isProblem(outcome) ? Effect.fail(new CliFailure.SilentExit({ code: CliFailure.ExitCode.StreamProblem })) : Effect.void

const view = Command.make(
  "view",
  {
    file: Argument.String("file").pipe(Argument.withDescription("a stream-json recording, or - for standard input")),
    format,
    filter,
    strict: Flag.Boolean("strict").pipe(Flag.withDescription("stop at the first line that does not decode"), Flag.withDefault(false)),
    follow: Flag.Boolean("follow").pipe(
      Flag.withAlias("f"),
      Flag.withDescription("keep reading as the file grows (Ctrl-C to stop)"),
      Flag.withDefault(false)
    )
  },
  Effect.fnUntraced(function*(options) {
    const selected = yield* parseFilter(options.filter)
    const records = Input.bytes(options.file, { follow: options.follow }).pipe(Decode.recordsLenient())
    const outcome = yield* Live.display(records, { format: options.format, filter: selected, strict: options.strict })
    if (outcome.lines === 0 && outcome.failed > 0) {
      return yield* CliFailure.make("BadInput", `${options.file} is not stream-json: no line decoded`)
    }
    yield* exitFor(outcome)
  })
).pipe(
  describe(
    "Show a stream-json recording or pipe (claude -p ... --output-format stream-json --verbose | effect-claude-code view -)"
  )
)

const stats = Command.make(
  "stats",
  {
    files: Argument.String("file").pipe(Argument.withDescription("stream-json files"), Argument.variadic({ min: 1 })),
    format: Flag.Literals("format", ["pretty", "json"]).pipe(Flag.withDefault("pretty"))
  },
  Effect.fnUntraced(function*({ files, format }) {
    const fs = yield* FileSystem.FileSystem
    const stdio = yield* Stdio.Stdio
    const all: Array<Stats.FileStats> = []
    for (const file of files) {
      const bytes = yield* fs.readFile(file).pipe(Effect.mapError(Input.unreadable(file)))
      all.push(Stats.count(file, Decode.decodeAll(bytes)))
    }
    // Several files: their sum too, the quick overview of a whole corpus.
    const total = all.length > 1 ? Stats.total(`Total of ${all.length} files`, all) : undefined
    const text = format === "json"
      ? JSON.stringify({ files: all.map(Stats.toJson), ...(total && { total: Stats.toJson(total) }) }) + "\n"
      : [...all, ...(total === undefined ? [] : [total])].map(Stats.toText).join("\n")
    yield* Stream.run(Stream.make(text), stdio.stdout())
    if (all.some((s) => s.failed > 0)) {
      return yield* new CliFailure.SilentExit({ code: CliFailure.ExitCode.StreamProblem })
    }
  })
).pipe(describe("Count what stream-json files hold: kinds, tools, errors, cost, unknown types"))

const run = Command.make(
  "run",
  {
    prompt: Argument.String("prompt").pipe(Argument.withDescription("the prompt for claude -p")),
    format,
    filter,
    model: Flag.String("model").pipe(Flag.withDescription("model name or alias (sonnet, opus)"), Flag.optional),
    permissionMode: Flag.Literals("permission-mode", ["acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"])
      .pipe(Flag.optional),
    allowedTools: Flag.String("allowed-tools").pipe(Flag.withDescription("comma-separated, e.g. 'Read,Bash(git:*)'"), Flag.optional),
    maxTurns: Flag.Int("max-turns").pipe(Flag.withDescription("stop after this many turns"), Flag.optional),
    partial: Flag.Boolean("include-partial-messages").pipe(
      Flag.withDescription("stream text as it is generated"),
      Flag.withDefault(false)
    ),
    cwd: Flag.Directory("cwd", { mustExist: true }).pipe(Flag.withDescription("working directory for claude"), Flag.optional),
    claude: Flag.String("claude").pipe(
      Flag.withDescription("path to the claude executable (default: $CLAUDE_CODE_EXECUTABLE, else claude on PATH)"),
      Flag.withFallbackConfig(Config.String("CLAUDE_CODE_EXECUTABLE")),
      Flag.optional
    )
  },
  Effect.fnUntraced(function*(options) {
    const selected = yield* parseFilter(options.filter)
    const query = {
      model: Option.getOrUndefined(options.model),
      permissionMode: Option.getOrUndefined(options.permissionMode),
      allowedTools: Option.getOrUndefined(Option.map(options.allowedTools, (t) => t.split(",").map((s) => s.trim()))),
      maxTurns: Option.getOrUndefined(options.maxTurns),
      includePartialMessages: options.partial,
      cwd: Option.getOrUndefined(options.cwd)
    }
    const outcome = yield* Session.show({
      executable: Option.getOrUndefined(options.claude),
      prompt: options.prompt,
      query,
      display: { format: options.format, filter: selected }
    })
    yield* exitFor(outcome)
  })
).pipe(describe("Run claude -p and show the session live"))

const demo = Command.make("demo", {}, () => Demo.run).pipe(
  describe("The real CLI against a scripted model on loopback (no network, no API key), or the bundled recording")
)

/**
 * The root command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("effect-claude-code").pipe(
  describe("Typed views of Claude Code's stream-json."),
  Command.withSubcommands([run, view, stats, demo])
)

/**
 * @since 0.1.0
 * @category constants
 */
export const version = "0.1.0"

/**
 * Runs the command line with explicit arguments (tests).
 *
 * @since 0.1.0
 * @category running
 */
export const runWith = Command.runWith(command, { version })
