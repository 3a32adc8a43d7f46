/**
 * The `effect-claude-code` command line: `run`, `view`, `stats` and `demo`, built with `effect/cli`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Decode from "../stream/Decode.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Demo from "./Demo.ts"
import * as Input from "./Input.ts"
import * as Live from "./Live.ts"
import * as Session from "./Session.ts"
import * as Stats from "./Stats.ts"

const format = Flag.Literals("format", ["pretty", "jsonl", "json"]).pipe(
  Flag.withDescription("pretty (as a person reads it), jsonl (the raw lines) or json (one summary object)"),
  Flag.withDefault("pretty")
)

const exitFor = (outcome: Live.Outcome): Effect.Effect<void, CliFailure.SilentExit> => {
  const result = outcome.result as { readonly subtype?: unknown; readonly is_error?: unknown } | undefined
  const failed = outcome.failed > 0 || (result !== undefined && (result.subtype !== "success" || result.is_error === true))
  return failed ? Effect.fail(new CliFailure.SilentExit({ code: CliFailure.ExitCode.StreamProblem })) : Effect.void
}

const view = Command.make(
  "view",
  {
    file: Argument.String("file").pipe(Argument.withDescription("a stream-json recording, or - for standard input")),
    format,
    strict: Flag.Boolean("strict").pipe(Flag.withDescription("stop at the first line that does not decode"), Flag.withDefault(false)),
    follow: Flag.Boolean("follow").pipe(
      Flag.withAlias("f"),
      Flag.withDescription("keep reading as the file grows (Ctrl-C to stop)"),
      Flag.withDefault(false)
    )
  },
  Effect.fnUntraced(function*({ file, follow, format, strict }) {
    const records = Input.bytes(file, { follow }).pipe(Decode.recordsLenient())
    const outcome = yield* Live.display(Live.fromRecords(records, strict), format)
    if (outcome.lines === 0 && outcome.failed > 0) {
      return yield* CliFailure.make("BadInput", `${file} is not stream-json: no line decoded`)
    }
    yield* exitFor(outcome)
  })
).pipe(
  Command.withDescription(
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
      const bytes = yield* fs.readFile(file).pipe(
        Effect.mapError((e) => CliFailure.make("BadInput", `Cannot read ${file}: ${e.message}`, e))
      )
      all.push(Stats.count(file, Decode.decodeAll(bytes)))
    }
    const text = format === "json"
      ? JSON.stringify({ files: all.map(Stats.toJson) }) + "\n"
      : all.map(Stats.toText).join("\n")
    yield* Stream.run(Stream.make(text), stdio.stdout())
    if (all.some((s) => s.failed > 0)) {
      return yield* new CliFailure.SilentExit({ code: CliFailure.ExitCode.StreamProblem })
    }
  })
).pipe(Command.withDescription("Count what stream-json files hold: kinds, tools, errors, cost, unknown types"))

const run = Command.make(
  "run",
  {
    prompt: Argument.String("prompt").pipe(Argument.withDescription("the prompt for claude -p")),
    format,
    model: Flag.String("model").pipe(Flag.optional),
    permissionMode: Flag.Literals("permission-mode", ["acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"])
      .pipe(Flag.optional),
    allowedTools: Flag.String("allowed-tools").pipe(Flag.withDescription("comma-separated"), Flag.optional),
    maxTurns: Flag.Int("max-turns").pipe(Flag.optional),
    partial: Flag.Boolean("include-partial-messages").pipe(
      Flag.withDescription("stream text as it is generated"),
      Flag.withDefault(false)
    ),
    claude: Flag.String("claude").pipe(
      Flag.withDescription("path to the claude executable (default: claude on PATH)"),
      Flag.optional
    )
  },
  Effect.fnUntraced(function*(options) {
    const query = {
      model: Option.getOrUndefined(options.model),
      permissionMode: Option.getOrUndefined(options.permissionMode),
      allowedTools: Option.getOrUndefined(Option.map(options.allowedTools, (t) => t.split(",").map((s) => s.trim()))),
      maxTurns: Option.getOrUndefined(options.maxTurns),
      includePartialMessages: options.partial
    }
    const outcome = yield* Session.show({
      executable: Option.getOrUndefined(options.claude),
      prompt: options.prompt,
      query,
      format: options.format
    })
    yield* exitFor(outcome)
  })
).pipe(Command.withDescription("Run claude -p and show the session live"))

const demo = Command.make("demo", {}, () => Demo.run).pipe(
  Command.withDescription(
    "The real CLI against a scripted model on loopback (no network, no API key), or the bundled recording"
  )
)

/**
 * The root command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("effect-claude-code").pipe(
  Command.withDescription(`Typed views of Claude Code's stream-json.\n\n${CliFailure.exitCodeHelp}`),
  Command.withSubcommands([run, view, stats, demo])
)

/**
 * @since 0.1.0
 * @category constants
 */
export const version = "0.1.0"

/**
 * Runs the command line with explicit arguments (tests) .
 *
 * @since 0.1.0
 * @category running
 */
export const runWith = Command.runWith(command, { version })
