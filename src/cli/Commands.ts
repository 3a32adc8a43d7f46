/**
 * The `effect-claude-code` command line: `run`, `view`, `stats` and `demo`, built with `effect/cli`.
 *
 * @since 0.1.0
 */
import * as V8 from "node:v8"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Result from "effect/Result"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Filter from "../filter/Filter.ts"
import * as FilterKinds from "../filter/internal/kinds.ts"
import * as Decode from "../stream/Decode.ts"
import * as TranscriptDecode from "../transcript/Decode.ts"
import type * as TranscriptDetect from "../transcript/Detect.ts"
import * as Stats from "../transcript/Stats.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Display from "./Display.ts"
import * as Input from "./Input.ts"
import * as Live from "./Live.ts"
import * as RunOptions from "./RunOptions.ts"
import * as StatsText from "./Stats.ts"

// `run` and `demo` need the machinery of a claude process (and `demo` the scripted model): loaded when one of them
// runs, so that `view` and `stats` start without it.
const loadSession = Effect.promise(() => import("./Session.ts"))
const loadDemo = Effect.promise(() => import("./Demo.ts"))
// `--store` needs the store clients: loaded when given.
const loadStore = Effect.promise(() => import("./Store.ts"))

// Tokens and cost of a message that a forked or resumed session copied: said alike in `view` and `stats`.
const copiedRule =
  "a copied message counts for the first file, by path, that holds it; per-file figures of forks are therefore " +
  "their new messages only"

const format = Flag.Literals("format", ["pretty", "jsonl", "json"]).pipe(
  Flag.withDescription(
    "pretty: as a person reads it (colors and a spinner only on a terminal). " +
      "jsonl without --filter: the stream-json lines exactly as written (pipe them into view or stats). " +
      "jsonl with --filter: one JSON object per selected item, " +
      "{\"kind\",\"session_id\",\"parent_tool_use_id\",\"message_index\",\"block_index\",\"value\"}, value as on the wire. " +
      "json: one summary object at the end (lines: the lines that decoded, as stats counts them; messageCount: " +
        "those that are messages; a transcript file's: modelUsage as stats counts it, no result figures; " +
        `a directory: {"files": [one per file], "total"}, where ${copiedRule})`
  ),
  Flag.withDefault("pretty")
)

const filter = Flag.String("filter").pipe(
  Flag.withDescription(
    "show only what the expression selects, e.g. 'tool:Bash | error', 'text & main', 'not delta' " +
      "(atoms: text thinking tool[:NAME] typed result[:NAME] error denied system[:SUBTYPE] type:TYPE session:ID " +
      "subagent main task:ID delta[:KIND] all none command:GLOB path:GLOB url:GLOB input.FIELD:GLOB, where " +
      "typed is a tool use whose input fits its tool's schema, command: matches Bash's command, path: the file " +
      "or directory of a file tool (** crosses directories), url: WebFetch's URL, input.FIELD: any tool's input " +
      "field; a tool call is an error (denied) when its result is: 'tool:Bash & error' is the Bash calls that " +
      "failed; operators: and & or | not ! ( ))"
  ),
  Flag.optional
)

const storeFlags = {
  store: Flag.String("store").pipe(
    Flag.withDescription(
      "read the sessions of a store instead of files: sqlite:FILE, postgres://USER@HOST/DB or the directory of a " +
        "directory store; each session is shown (counted) on its own, named PROJECT_KEY/SESSION_ID"
    ),
    Flag.optional
  ),
  project: Flag.String("project").pipe(
    Flag.withDescription("with --store: the project key whose sessions are read (default: every project's)"),
    Flag.optional
  )
}

// With `--store`: the store's sessions as a directory of transcripts, and the name of each file's session.
const fromStore = (store: Option.Option<string>, project: Option.Option<string>, given: boolean, filter?: Filter.Filter) =>
  Option.match(store, {
    onNone: () => Effect.succeed(undefined),
    onSome: (spec) =>
      given
        ? Effect.fail(CliFailure.make("Usage", "--store reads the store's sessions: give no FILE with it"))
        : Effect.flatMap(loadStore, (Store) => Store.materialize(spec, Option.getOrUndefined(project), filter?.ast))
  })

// A filter that does not parse is a usage error that points at the column; one that can select nothing is
// said so on standard error (the display then shows nothing).
const parseFilter = (text: Option.Option<string>): Effect.Effect<Filter.Filter | undefined, CliFailure.CliFailure, Stdio.Stdio> =>
  Option.match(text, {
    onNone: () => Effect.succeed(undefined),
    onSome: (t) =>
      Result.match(Filter.parseResult(t), {
        onSuccess: (selected) => {
          const warning = FilterKinds.warning(selected.ast)
          return warning === undefined ? Effect.succeed(selected) : Stdio.Stdio.pipe(
            Effect.flatMap((stdio) => Stream.run(Stream.make(`--filter ${t}: ${warning}\n`), stdio.stderr())),
            Effect.orElseSucceed(() => undefined),
            Effect.as(selected)
          )
        },
        onFailure: (e) => Effect.fail(CliFailure.make("Usage", `--filter: ${e.message}`, e))
      })
  })

// Every command's --help ends with the exit codes; the root's listing shows the short line only.
const describe = (text: string) => <Name extends string, Input, E, R, ContextInput>(
  command: Command.Command<Name, Input, ContextInput, E, R>
) =>
  command.pipe(
    Command.withDescription(`${text}\n\n${CliFailure.exitCodeHelp}`),
    Command.withShortDescription(text)
  )

// `view` and `stats` alike: input in which no line decodes (none at all, or only bad ones). One whose head
// looks like a transcript is a broken one; anything else is neither format.
const notDecoded = (name: string, failed: number, format: TranscriptDetect.Format = "stream-json"): CliFailure.CliFailure =>
  CliFailure.make(
    "BadInput",
    failed === 0
      ? `${name} is empty`
      : `${name} is ${format === "transcript" ? "not a session transcript" : Input.neither}: no line decoded`
  )

const exitFor = (outcome: Display.Outcome): Effect.Effect<void, CliFailure.SilentExit> =>
  Display.isProblem(outcome) ? Effect.fail(new CliFailure.SilentExit({ code: CliFailure.ExitCode.StreamProblem })) : Effect.void

// No file and nothing piped in: say how to use it instead of waiting for typed stream-json.
const inputOf = (file: Option.Option<string>): Effect.Effect<string, CliFailure.CliFailure, Stdio.Stdio> =>
  Option.match(file, {
    onSome: Effect.succeed,
    onNone: () =>
      Effect.flatMap(Stdio.Stdio, (stdio) => stdio.stdinIsTerminal).pipe(
        Effect.flatMap((terminal) =>
          terminal
            ? Effect.fail(CliFailure.make(
              "Usage",
              "view: no FILE given, and standard input is a terminal.\n" +
                "Give a recording (effect-claude-code view session.jsonl) or pipe one in " +
                "(claude -p ... --output-format stream-json --verbose | effect-claude-code view)."
            ))
            : Effect.succeed("-")
        )
      )
  })

const view = Command.make(
  "view",
  {
    file: Argument.String("file").pipe(
      Argument.withDescription(
        "a stream-json recording, a session transcript (~/.claude/projects/KEY/ID.jsonl) or a directory of them " +
          "(each file a session on its own, by path); - or none for standard input (either format)"
      ),
      Argument.optional
    ),
    format,
    filter,
    ...storeFlags,
    strict: Flag.Boolean("strict").pipe(Flag.withDescription("stop at the first line that does not decode"), Flag.withDefault(false)),
    follow: Flag.Boolean("follow").pipe(
      Flag.withAlias("f"),
      Flag.withDescription("keep reading as the file grows, or every file of the directory and new ones (Ctrl-C to stop)"),
      Flag.withDefault(false)
    )
  },
  Effect.fnUntraced(function*(options) {
    const selected = yield* parseFilter(options.filter)
    // The store's sessions are written out once: there is nothing to follow.
    if (Option.isSome(options.store) && options.follow) {
      return yield* CliFailure.make("Usage", "--follow reads files as they grow: not with --store")
    }
    const stored = yield* fromStore(options.store, options.project, Option.isSome(options.file), selected)
    const file = stored?.dir ?? (yield* inputOf(options.file))
    const files = yield* Input.expand(file)
    const nameOf = stored?.nameOf ?? ((f: string) => f)
    // A directory: each file is shown on its own (named), in the order of the files, or all at once as they grow
    // (--follow, each file's lines in their order, files that appear in it later too).
    const directory = files.length !== 1 || files[0] !== file
    const records = Input.files(file, files, { follow: options.follow && directory }).pipe(
      Stream.flatMap((f) =>
        Input.records(f, { follow: options.follow }).pipe(
          Stream.map((record) => directory ? { source: nameOf(f), record } : record)
        ), { concurrency: options.follow ? "unbounded" : 1 })
    )
    // The json summary of a transcript gives its tokens per model as `stats` counts them (a message a fork copied
    // counts for the first file): counted beforehand, from the file (standard input is read once, for the display).
    const transcripts = options.format !== "json" || options.follow ? undefined : yield* Effect.sync(() => {
      const figures = Stats.transcriptFiles(files, new Set())
      return new Map(files.flatMap((f, i) => figures[i] === undefined ? [] : [[directory ? nameOf(f) : undefined, figures[i]!] as const]))
    })
    // A directory read to its end: a file in which nothing decodes is named once, after the others are shown.
    const holdUndecoded = directory && !options.follow
    const outcome = yield* Live.display(records, {
      format: options.format,
      filter: selected,
      strict: options.strict,
      transcripts,
      holdUndecoded
    })
    // A transcript may hold no messages (a summary-only session file); empty stream-json is a mistake.
    // Heads are read again only to word a failure: not when every file decoded.
    if (outcome.lines === 0 && (yield* Effect.forEach(files, Input.detect)).every((f) => f === "stream-json")) {
      return yield* notDecoded(Input.nameOf(file), outcome.failed)
    }
    if (holdUndecoded) {
      // As `stats` does: an empty file, or one with only bad lines, is an input error (a file with no line at
      // all is in no outcome).
      const seen = new Map((outcome.files ?? []).map((f) => [f.file, f] as const))
      const problems = (yield* Effect.forEach(files, (f) => {
        const one = seen.get(nameOf(f))
        return one === undefined || one.lines === 0
          ? Effect.map(Input.detect(f), (format) => [notDecoded(nameOf(f), one?.failed ?? 0, format).detail])
          : Effect.succeed([])
      })).flat()
      if (problems.length > 0) return yield* CliFailure.make("BadInput", problems.join("\n"))
    }
    yield* exitFor(outcome)
  }, Effect.scoped)
).pipe(
  describe(
    "Show a stream-json recording or pipe (claude -p ... --output-format stream-json --verbose | effect-claude-code view), " +
      "a session transcript or a directory of them"
  )
)

// Files counted at once by `stats`: their reads overlap (one file's wait on the disk is another's decoding),
// in memory bounded by this many files' chunks and counters. Results keep the order of the files.
const readConcurrency = 4

// Bytes counted in a format; the format with the figures.
const countAs = <E, R>(name: string, format: TranscriptDetect.Format, bytes: Stream.Stream<Uint8Array, E, R>, seen: Stats.Seen) =>
  Effect.map(
    format === "transcript"
      ? bytes.pipe(TranscriptDecode.records({ onBadLine: "emit" }), Stream.run(Stats.transcriptSink(name, seen)))
      // As `view` does: input with no JSON line near its start is not read to its end.
      : bytes.pipe(Input.giveUpUnlessJson(name), Decode.records({ onBadLine: "emit" }), Stream.run(Stats.sink(name))),
    (stats) => ({ stats, format })
  )

// A file's figures and the format it was read as: a transcript counted from its entries, standard input in the
// format its head tells, anything else (a special file, a file of stream-json) as stream-json.
const countFile = (
  file: string,
  seen: Stats.Seen,
  check: Stats.LineCheck
): Effect.Effect<
  { readonly stats: Stats.FileStats; readonly format: TranscriptDetect.Format },
  CliFailure.CliFailure,
  FileSystem.FileSystem | Stdio.Stdio
> =>
  file === "-"
    ? Input.withFormat(Input.bytes(file), (format, bytes) => Stream.fromEffect(countAs(Input.nameOf(file), format, bytes, seen))).pipe(
      Stream.runHead,
      Effect.map(Option.getOrThrow)
    )
    : Stats.transcriptFile(file, seen, check).pipe(
      Effect.mapError(Input.unreadable(file)),
      Effect.flatMap((stats) =>
        stats !== undefined
          ? Effect.succeed({ stats, format: "transcript" as TranscriptDetect.Format })
          : countAs(file, "stream-json", Input.bytes(file), seen)
      )
    )

const stats = Command.make(
  "stats",
  {
    files: Argument.String("file").pipe(
      Argument.withDescription(
        "stream-json files, session transcripts or directories of them (every .jsonl file under it, e.g. " +
          "~/.claude/projects); - for standard input; none with --store"
      ),
      Argument.variadic()
    ),
    ...storeFlags,
    format: Flag.Literals("format", ["pretty", "json"]).pipe(
      Flag.withDescription(
        "pretty: a report per file (and their total); json: {\"files\": [...], \"total\"} with every figure " +
          "(a model's costUsd is null when no result line gives it)"
      ),
      Flag.withDefault("pretty")
    ),
    everyLine: Flag.Boolean("every-line").pipe(
      Flag.withDescription(
        "check every transcript line through its schema, for about 1.6 times the CPU: by default a line that holds " +
          "nothing counted but its kind (an attachment, a request record, a prompt) is counted by its type, told " +
          "from its bytes, so one broken inside counts as decoded, not failed or unfit"
      ),
      Flag.withDefault(false)
    )
  },
  Effect.fnUntraced(function*({ files: given, format, everyLine, store, project }) {
    const stdio = yield* Stdio.Stdio
    const stored = yield* fromStore(store, project, given.length > 0)
    if (stored === undefined && given.length === 0) {
      return yield* CliFailure.make("Usage", "stats: give one FILE or more (- for standard input), or --store")
    }
    const files = stored === undefined ? given : [stored.dir]
    const nameOf = stored?.nameOf ?? ((f: string) => f)
    // Every file is counted, or said to be unreadable: one that cannot be read does not hide the others.
    const expanded = yield* Effect.forEach(files, (file) => Effect.result(Input.expand(file)))
    const named = expanded.flatMap((r): ReadonlyArray<Result.Result<string, CliFailure.CliFailure>> =>
      Result.isSuccess(r) ? r.success.map((file) => Result.succeed(file)) : [Result.fail(r.failure)]
    )
    // Transcripts are counted first, without a round trip through the event loop per read; what that leaves is
    // read the usual way.
    // A message copied into several transcripts (a forked or resumed session's history) counts once.
    const seen: Stats.Seen = new Set()
    const check: Stats.LineCheck = everyLine ? "every" : "counted"
    // Over many files V8 doubles its young generation again and again (to 64 MB), as each file's figures
    // outlive the collections that would free them: not growing it from here takes about 8 MB (2,000 files) to
    // 20 MB (10,000 small files) off the peak for the same CPU (measured with bench/transcripts.ts' sets). One
    // file is left as it was: on one 200 MB transcript a young generation that does not grow cost 17 MB more at
    // the peak and 15% more CPU (its lines, alive across a read, then outlive young collections).
    if (named.length > 1) V8.setFlagsFromString("--semi-space-growth-factor=1")
    const fast = yield* Effect.sync(() =>
      Stats.transcriptFiles(named.map((file) => Result.isSuccess(file) ? file.success : "-"), seen, check)
    )
    const rest = yield* Effect.forEach(
      named.filter((_, i) => fast[i] === undefined),
      (file) => Effect.result(Result.isFailure(file) ? Effect.fail(file.failure) : countFile(file.success, seen, check)),
      { concurrency: readConcurrency }
    )
    let next = 0
    const counted = named.map((_, i) => {
      const stats = fast[i]
      return stats === undefined ? rest[next++]! : Result.succeed({ stats, format: "transcript" as TranscriptDetect.Format })
    })
    const all = counted.flatMap((r) => Result.isSuccess(r) ? [{ ...r.success.stats, path: nameOf(r.success.stats.path) }] : [])
    // Several files: their sum too, the quick overview of a whole corpus.
    const total = all.length > 1 ? Stats.total(`Total of ${all.length} files`, all) : undefined
    const text = format === "json"
      ? JSON.stringify({ files: all.map(StatsText.toJson), ...(total && { total: StatsText.toJson(total) }) }) + "\n"
      : [...all, ...(total === undefined ? [] : [total])].map(StatsText.toText).join("\n")
    yield* Stream.run(Stream.make(text), stdio.stdout())
    const problems = counted.flatMap((r) =>
      Result.isFailure(r)
        ? [r.failure.detail]
        : r.success.stats.decoded === 0
        ? [notDecoded(nameOf(r.success.stats.path), r.success.stats.failed, r.success.format).detail]
        : []
    )
    if (problems.length > 0) return yield* CliFailure.make("BadInput", problems.join("\n"))
    if (all.some((s) => s.failed > 0)) {
      return yield* new CliFailure.SilentExit({ code: CliFailure.ExitCode.StreamProblem })
    }
  }, Effect.scoped)
).pipe(describe(
    "Count what stream-json files and session transcripts hold: kinds, tools, errors, cost and tokens per model, " +
      "unknown types; a directory counts each of its files (sessions, in the order of their paths) and their total. " +
      "Tokens and cost count each assistant message of transcripts once (by message id and request id, as ccusage " +
      `does), so the total is right: ${copiedRule} (files given count in their order, a directory's by path); ` +
      "tool calls and kinds count in every file"
  ))

const run = Command.make(
  "run",
  {
    prompt: Argument.String("prompt").pipe(Argument.withDescription("the prompt for claude -p (sent on its standard input)")),
    format,
    filter,
    ...RunOptions.flags,
    policy: Flag.String("policy").pipe(
      Flag.withDescription(
        "a permission policy file, one rule a line: allow|deny|ask FILTER [\"reason\"], first match wins, then " +
          "'default allow|deny|ask' (ask without it), e.g. 'allow tool:Read & path:src/**', " +
          "'deny tool:Bash & command:\"rm *\" \"no deleting\"'. It decides the calls Claude Code asks about (those its " +
          "own settings and --permission-mode leave open; with --permission-mode default: edits and most Bash " +
          "commands); an ask has no one to answer in run, so it is denied with a message saying so. The run goes " +
          "through a session (the control protocol): jsonl prints its messages encoded again, not the lines as written. " +
          "A file that does not read is a usage error naming the line; a policy that allows everything or a rule " +
          "that can never decide is said on standard error"
      ),
      Flag.optional
    ),
    claude: Flag.String("claude").pipe(
      Flag.withDescription("path to the claude executable (default: $CLAUDE_CODE_EXECUTABLE, else claude on PATH)"),
      Flag.withFallbackConfig(Config.String("CLAUDE_CODE_EXECUTABLE")),
      Flag.optional
    )
  },
  Effect.fnUntraced(function*(options) {
    const selected = yield* parseFilter(options.filter)
    const Session = yield* loadSession
    const policy = yield* Session.loadPolicy(options.policy)
    const outcome = yield* Session.show({
      executable: yield* RunOptions.executable(options.claude),
      prompt: options.prompt,
      query: RunOptions.toQuery(options),
      policy,
      display: { format: options.format, filter: selected }
    })
    yield* exitFor(outcome)
  })
).pipe(describe("Run claude -p and show the session live"))

const demo = Command.make("demo", {}, () => Effect.flatMap(loadDemo, (Demo) => Demo.run)).pipe(
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
 * The package's version, from its `package.json` (two levels up from `src/cli` and from `dist/cli` alike).
 *
 * @since 0.1.0
 * @category constants
 */
export const version: Effect.Effect<string, never, FileSystem.FileSystem | Path.Path> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const text = yield* fs.readFileString(path.resolve(import.meta.dirname, "..", "..", "package.json"))
  const manifest = yield* Effect.try((): { readonly version?: unknown } => JSON.parse(text))
  return typeof manifest.version === "string" ? manifest.version : "unknown"
}).pipe(Effect.orElseSucceed(() => "unknown"))
