/**
 * What `run`, `view` and `demo` show, as one fold: decoded lines and clock ticks in, writes to standard output
 * and standard error out. Start from {@link initial}, feed each input to {@link step} and end with {@link finish}
 * (`Live.display` does so as a `Stream.mapAccum`). The formats are pretty, `jsonl` and one `json` summary; a
 * filter selects the items shown.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import type * as Filter from "../filter/Filter.ts"
import * as Calls from "../filter/internal/calls.ts"
import * as Item from "../filter/Item.ts"
import * as Redaction from "../internal/redaction.ts"
import { type DecodeError, isDecodeError } from "../stream/DecodeError.ts"
import { redactDecodeError } from "../stream/internal/cut.ts"
import * as Summary from "../stream/Summary.ts"
import * as Stats from "../transcript/Stats.ts"
import * as CliFailure from "./CliFailure.ts"
import * as Input from "./Input.ts"
import * as Pretty from "./Pretty.ts"
import * as Screen from "./Screen.ts"
import * as Style from "./Style.ts"

/**
 * @since 0.1.0
 * @category models
 */
export type Format = "pretty" | "jsonl" | "json"

/**
 * How to show the stream.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly format: Format
  /**
   * Show only the items this filter selects. A call its result decides (`tool:Bash & error`) is held until
   * that result comes and shown then, in the result's place (just before the result, when the filter selects
   * it too); one that got none, at the end.
   */
  readonly filter?: Filter.Filter | undefined
  /** Stop at the first line that does not decode (exit code 3). */
  readonly strict?: boolean | undefined
  /**
   * The files read that are transcripts, with their tokens per model as `stats` counts them (by file; the
   * key `undefined` for a single input): see {@link Outcome.models}.
   */
  readonly transcripts?: ReadonlyMap<string | undefined, Stats.FileStats> | undefined
  /**
   * A directory read to its end: a file's bad lines before its first decoded one are held, and dropped when
   * none decodes, so that the command reports such a file once, by name (exit code 3).
   */
  readonly holdUndecoded?: boolean | undefined
}

/**
 * What the display saw, for the exit code and the `json` format.
 *
 * @since 0.1.0
 * @category models
 */
export interface Outcome {
  /** Lines that decoded. */
  readonly lines: number
  /** Lines that failed to decode. */
  readonly failed: number
  /** Items selected (all items without a filter), per kind. */
  readonly selected: Readonly<Record<string, number>>
  /** The run's figures (from its last `result` line). */
  readonly summary: Summary.RunSummary
  /** That `result` line as written. */
  readonly resultLine: string | undefined
  /**
   * A transcript's tokens (and cost at list prices) per model, from its assistant messages as `stats` counts
   * them; `undefined` for stream-json, whose figures are its results'.
   */
  readonly models?: Readonly<Record<string, Stats.ModelStats>> | undefined
  /**
   * With the files of a directory: each file's own outcome; the fields above then add up their
   * lines and selected items, and `summary` is empty (a run is a file's).
   */
  readonly files?: ReadonlyArray<Outcome & { readonly file: string }> | undefined
}

/**
 * Whether the outcome calls for exit code 1: a line failed to decode, or the session ended with an error.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isProblem = (outcome: Outcome): boolean =>
  outcome.failed > 0 || (outcome.summary.completed && !outcome.summary.success) || (outcome.files ?? []).some(isProblem)

/**
 * The `--format json` object: line counts, the selected items per kind, and the run's figures with its
 * `result` message as written (all fields, known or not). `lines` counts the lines that decoded (a
 * transcript's entries of every type, as `stats` counts them), `messageCount` those that are messages.
 * A transcript has no results: its object has what a transcript tells (`finalText`, `sessionId`, `model`,
 * and `modelUsage`, its tokens per model as `stats` counts them) and leaves out the figures only a result
 * gives (`completed`, `success`, `runs`, `usage`, cost and duration). A directory (even of one file):
 * `{"files": [{"file", ...that object}], "total": {"lines", "failed", "messageCount", "selected"}}`, each
 * file (session) with its own run; with transcripts, `total.modelUsage` adds theirs up.
 *
 * @since 0.1.0
 * @category formatting
 */
export const summaryJson = (outcome: Outcome): Record<string, unknown> => {
  if (outcome.files !== undefined) {
    return {
      files: outcome.files.map(({ file, ...one }) => ({ file, ...summaryJson(one) })),
      total: {
        lines: outcome.lines,
        failed: outcome.failed,
        messageCount: outcome.files.reduce((n, f) => n + f.summary.messageCount, 0),
        selected: outcome.selected,
        ...(outcome.models !== undefined && { modelUsage: outcome.models })
      }
    }
  }
  const { result: _, ...figures } = outcome.summary
  if (outcome.models !== undefined) {
    const { finalText, messageCount, decodeErrorCount, sessionId, model } = figures
    return {
      lines: outcome.lines,
      failed: outcome.failed,
      selected: outcome.selected,
      finalText,
      messageCount,
      decodeErrorCount,
      sessionId,
      model,
      modelUsage: outcome.models
    }
  }
  return {
    lines: outcome.lines,
    failed: outcome.failed,
    selected: outcome.selected,
    ...figures,
    result: outcome.resultLine === undefined ? null : JSON.parse(outcome.resultLine)
  }
}

/**
 * A line of one of a directory's files, for a display that shows each file on its own.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sourced {
  readonly source: string
  readonly record: Input.Line
}

/**
 * What the display reacts to: a decoded (or failed) line, a clock tick for the spinner, or the input failing.
 *
 * @since 0.1.0
 * @category models
 */
export type Event<E> =
  | {
    readonly _tag: "Record"
    readonly record: Input.Line
    readonly now: number
    /** The file of a directory the line is from (each file is shown on its own). */
    readonly source?: string | undefined
  }
  | { readonly _tag: "Tick"; readonly now: number }
  | { readonly _tag: "Failed"; readonly cause: Cause.Cause<E> }

/**
 * What to do: text for standard output or standard error, in this order; stop with a failure; or the outcome,
 * last, once the input has ended.
 *
 * @since 0.1.0
 * @category models
 */
export type Write<E> =
  | { readonly _tag: "Stdout"; readonly text: string }
  | { readonly _tag: "Stderr"; readonly text: string }
  | { readonly _tag: "Stop"; readonly cause: Cause.Cause<E | CliFailure.CliFailure> }
  | { readonly _tag: "Done"; readonly outcome: Outcome }

/**
 * How many bad lines are reported one by one while no line has decoded yet; the rest are counted. A file
 * that is not stream-json at all then gives a few lines and a count, not one line per line of the file.
 *
 * @since 0.1.0
 * @category constants
 */
export const reportedBeforeDecoding = 3

/**
 * What the display keeps per input file (session): each is shown on its own, so that a call a forked session
 * copied from another is shown in both.
 *
 * @since 0.1.0
 * @category models
 */
export interface Source {
  /** The file of a directory, `undefined` for a single input. */
  readonly name: string | undefined
  readonly flattener: Item.Flattener
  /**
   * With a filter that tests a call's outcome (`tool:Bash & error`), the calls it holds until their results
   * (each with its line when jsonl prints it); `undefined` otherwise.
   */
  readonly calls: Calls.Calls<string | undefined> | undefined
  /** The run's summary so far; it also counts the lines that decoded to messages and those that did not decode. */
  run: Summary.State
  /** Transcript lines that decoded to entries with no message. */
  entries: number
  /** Bad lines not reported one by one (see {@link reportedBeforeDecoding}), not yet told as a count. */
  held: number
  /** With {@link Options.holdUndecoded}: the reports of the first bad lines, until a line decodes. */
  pending: Array<string>
  resultLine: string | undefined
  readonly selected: Record<string, number>
  pretty: Pretty.State
}

/**
 * The fold's state: made per display by {@link initial} and updated in place by {@link step} (its sources own
 * an `Item` flattener, which is stateful).
 *
 * @since 0.1.0
 * @category models
 */
export interface State {
  readonly options: Options
  readonly style: Style.Style
  readonly width: number | undefined
  /** The source of the record being shown. */
  source: Source
  /** Every source seen, in the order first seen. */
  readonly sources: Map<string | undefined, Source>
  /** The source whose pretty output was written last (its header printed). */
  headed: Source | undefined
  screen: Screen.State
  /** What a bad line's report is redacted with (see {@link failureText}). */
  readonly redact: Redaction.Redact
}

// The lines of a source that decoded: to messages or to other transcript entries.
const decodedLines = (source: Source): number => source.run.messageCount + source.entries

const makeSource = (name: string | undefined, options: Options, width: number | undefined): Source => ({
  name,
  flattener: Item.makeFlattener(),
  calls: options.filter === undefined ? undefined : Calls.make(options.filter.ast),
  run: Summary.initial,
  entries: 0,
  held: 0,
  pending: [],
  resultLine: undefined,
  selected: {},
  pretty: { ...Pretty.initial, width }
})

/**
 * What the display knows of where it writes: `animate`, draw the spinner (pretty output on a terminal);
 * `width`, the terminal's columns (none off a terminal, so that output to a file does not depend on it).
 *
 * @since 0.1.0
 * @category models
 */
export interface Terminal {
  readonly style: Style.Style
  readonly animate: boolean
  readonly now: number
  readonly width?: number | undefined
}

/**
 * A new display.
 *
 * @since 0.1.0
 * @category constructors
 */
export const initial = (options: Options, terminal: Terminal): State => {
  const source = makeSource(undefined, options, terminal.width)
  return {
    options,
    style: terminal.style,
    width: terminal.width,
    source,
    sources: new Map([[undefined, source]]),
    headed: undefined,
    screen: Screen.initial({ animate: terminal.animate && options.format === "pretty", now: terminal.now }),
    redact: Redaction.lazyProcessRedactor()
  }
}

// Makes `name` the current source (a new one the first time it is seen); the single source of an input that
// names none is replaced by the first named one.
const enter = (state: State, name: string | undefined): Source => {
  if (state.source.name === name) return state.source
  let source = state.sources.get(name)
  if (source === undefined) {
    source = makeSource(name, state.options, state.width)
    const unnamed = state.sources.get(undefined)
    if (unnamed !== undefined && decodedLines(unnamed) + unnamed.run.decodeErrorCount === 0) state.sources.delete(undefined)
    state.sources.set(name, source)
  }
  state.source = source
  return source
}

// `text` of the current source, after the line that tells where a file's (session's) pretty output starts when
// several are shown and another's was shown last. The header's blank line stands for the one the text starts
// with when it goes on from its own earlier output.
const headed = (state: State, text: string): string => {
  const source = state.source
  if (source.name === undefined || state.headed === source) return text
  const before = state.headed === undefined ? "" : `${state.headed.pretty.midText ? "\n" : ""}\n`
  state.headed = source
  return `${before}${state.style.dim(`── ${source.name} ──`)}\n\n${text.startsWith("\n") ? text.slice(1) : text}`
}

/**
 * How a line that failed to decode is reported: its number (with `note`, what became of it), why, and what
 * was there (escaped). A reason over several lines (a schema error says where: `at ["result"]`) goes on under
 * the report, indented.
 *
 * @since 0.1.0
 * @category formatting
 */
export const failureText = (
  error: DecodeError,
  note?: string,
  redact: Redaction.Redact = Redaction.processRedactor()
): string => {
  // A bad line may be a message that prints a credential: shown redacted, as `run` shows it.
  const shown = redactDecodeError(error, redact)
  const [first = "", ...more] = shown.detail.split("\n")
  // Bytes that are not UTF-8 (a binary file) are shown escaped, never as the characters they happen to decode to.
  const found = error.reason._tag === "InvalidUtf8" ? Style.ascii(shown.raw) : Style.printable(shown.raw)
  return `line ${error.line}${note === undefined ? "" : ` (${note})`}: not ${Input.expected(error)} (${Style.printable(first)}); found: ${found}` +
    more.map((line) => `\n  ${Style.printable(line)}`).join("")
}

const screen = (state: State, event: Screen.Event): string => {
  const [next, text] = Screen.step(state.screen, event, state.style)
  state.screen = next
  return text
}

const stdout = (text: string): Write<never> => ({ _tag: "Stdout", text })

// Text for standard error with the spinner out of the way: its line freed before, redrawn after.
const aside = (state: State, text: string, now: number): Array<Write<never>> => [
  stdout(screen(state, { _tag: "Pause" })),
  { _tag: "Stderr", text },
  stdout(screen(state, { _tag: "Resume", now }))
]

// Where a bad line is: with several files, the file it is in (its header may be far above, or on stdout).
const whereIn = (source: Source): string => source.name === undefined ? "" : `${source.name}: `

const heldNote = (state: State, source: Source, now: number): Array<Write<never>> => {
  const pending = source.pending
  const held = source.held
  source.pending = []
  source.held = 0
  // A file in which nothing decoded: the command names it once instead.
  if (held === 0 && pending.length === 0 || decodedLines(source) === 0 && state.options.holdUndecoded === true) {
    return []
  }
  const more = held === 0 ? "" : `${state.style.red("✗")} ${whereIn(source)}… and ${held} more line${held === 1 ? "" : "s"} that did not decode\n`
  return aside(state, pending.join("") + more, now)
}

// `wire`: the parsed line, for jsonl items whose value is exactly as on the wire.
const show = (state: State, item: Item.Item, now: number, wire: unknown): string => {
  const { filter, format } = state.options
  if (format === "jsonl") return filter === undefined ? "" : JSON.stringify(Item.toJson(item, wire)) + "\n"
  if (format === "json") return ""
  const [next, output] = Pretty.render(state.source.pretty, item, state.style)
  state.source.pretty = next
  const text = output.text === "" ? "" : screen(state, { _tag: "Write", text: headed(state, output.text) })
  return output.status === undefined ? text : text + screen(state, { _tag: "Status", status: output.status ?? undefined, now })
}

const record = <E>(state: State, record: Input.Line, now: number, name: string | undefined): Array<Write<E>> => {
  const { filter, format, strict } = state.options
  // Another file's lines: the count of the bad lines held back in the one before is told first.
  const writes: Array<Write<E>> = state.source.name === name ? [] : heldNote(state, state.source, now)
  const source = enter(state, name)
  if (Input.isOtherEntry(record)) {
    source.entries++
    // The first line that decodes: what was held back is told. A bookkeeping line that does not fit is told
    // as a warning: the conversation shown is whole.
    const unfit = record.unfit === undefined
      ? []
      : aside(state, `${state.style.yellow("!")} ${whereIn(source)}${failureText(record.unfit, "bookkeeping, left out", state.redact)}\n`, now)
    return [...writes, ...heldNote(state, source, now), ...unfit]
  }
  if (isDecodeError(record) && strict === true) {
    const what = Input.isTranscriptLine(record) ? "a session transcript" : "stream-json"
    const failure = CliFailure.make("BadInput", `${whereIn(source)}Not ${what}: ${failureText(record, undefined, state.redact)}`)
    return [...writes, stdout(screen(state, { _tag: "End" })), { _tag: "Stop", cause: Cause.fail(failure) }]
  }
  const message = isDecodeError(record) ? record : record.message
  // Counts the line: decoded (messageCount) or not (decodeErrorCount).
  source.run = Summary.step(source.run, message)
  const { messageCount, decodeErrorCount } = source.run
  // Not strict: a bad line is told on standard error, with the spinner out of the way, and the display goes on.
  if (isDecodeError(record)) {
    const text = `${state.style.red("✗")} ${whereIn(source)}${failureText(record, undefined, state.redact)}\n`
    const undecoded = decodedLines(source) === 0
    if (undecoded && decodeErrorCount > reportedBeforeDecoding) source.held++
    else if (undecoded && state.options.holdUndecoded === true) source.pending.push(text)
    else writes.push(...aside(state, text, now))
  } else {
    // The first line that decodes: what was held back is told before it.
    if (messageCount === 1) writes.push(...heldNote(state, source, now))
    if (record.message.type === "result") source.resultLine = record.raw
  }
  const shown = showing(state, now)
  if (format === "jsonl" && filter === undefined && !isDecodeError(record)) shown.text += record.raw + "\n"
  // The line, for the items jsonl prints as on the wire (a held call keeps it until it is decided).
  const raw = format === "jsonl" && filter !== undefined && !isDecodeError(record) ? record.raw : undefined
  for (const item of source.flattener.push(message)) {
    if (source.calls !== undefined) source.calls.push(item, raw, shown.decide)
    else shown.decide(item, filter === undefined || filter(item), raw)
  }
  writes.push(stdout(shown.text))
  return writes
}

// Shows or hides decided items into `text`, each with the line it came from when jsonl prints it (`raw`).
const showing = (state: State, now: number) => {
  // Parsed again (the decoder keeps only the typed message): once per line, and only once one of its items
  // is selected.
  let parsed: { readonly raw: string; readonly wire: unknown } | undefined
  const shown = {
    text: "",
    decide: (item: Item.Item, selected: boolean, raw: string | undefined): void => {
      if (!selected) {
        state.source.pretty = Pretty.observe(state.source.pretty, item)
        return
      }
      state.source.selected[item.kind] = (state.source.selected[item.kind] ?? 0) + 1
      if (raw !== undefined && parsed?.raw !== raw) parsed = { raw, wire: JSON.parse(raw) }
      shown.text += show(state, item, now, raw === undefined ? undefined : parsed?.wire)
    }
  }
  return shown
}

/**
 * Applies one event: the writes it calls for, in order.
 *
 * @since 0.1.0
 * @category reducers
 */
export const step = <E>(state: State, event: Event<E>): [State, Array<Write<E>>] => {
  switch (event._tag) {
    case "Record":
      return [state, record(state, event.record, event.now, event.source)]
    case "Tick":
      return [state, [stdout(screen(state, { _tag: "Tick", now: event.now }))]]
    case "Failed":
      // The error is shown after this: the spinner must not be left on its line.
      return [state, [stdout(screen(state, { _tag: "End" })), { _tag: "Stop", cause: event.cause }]]
  }
}

/**
 * What to write when the display is interrupted (a signal): the spinner erased and its line finished, so the
 * shell's prompt starts on a clean line.
 *
 * @since 0.1.0
 * @category reducers
 */
export const interrupted = (state: State): string => screen(state, { _tag: "End" })

/**
 * The writes once the input has ended: the count of bad lines held back, the spinner erased, the `json`
 * summary, and the outcome.
 *
 * @since 0.1.0
 * @category reducers
 */
export const finish = (state: State): Array<Write<never>> => {
  const writes: Array<Write<never>> = []
  const files: Array<Outcome & { readonly file: string }> = []
  for (const source of state.sources.values()) {
    state.source = source
    // The calls still held got no result: decided now, before the counts are read.
    const released = showing(state, state.screen.now)
    source.calls?.end(released.decide)
    const [pretty, rest] = Pretty.flush(source.pretty, state.style)
    source.pretty = pretty
    const closing = state.options.format === "pretty" && rest.text !== ""
      ? screen(state, { _tag: "Write", text: headed(state, rest.text) })
      : ""
    writes.push(stdout(released.text), stdout(closing), ...heldNote(state, source, state.screen.now))
    files.push({ ...outcomeOf(state, source), file: source.name ?? "" })
  }
  const outcome: Outcome = state.source.name === undefined
    ? outcomeOf(state, state.source)
    : { ...totalOf(files, state.options.transcripts), files }
  return [
    ...writes,
    stdout(screen(state, { _tag: "End" })),
    stdout(state.options.format === "json" ? JSON.stringify(summaryJson(outcome)) + "\n" : ""),
    { _tag: "Done", outcome }
  ]
}

const outcomeOf = (state: State, source: Source): Outcome => ({
  lines: decodedLines(source),
  failed: source.run.decodeErrorCount,
  selected: source.selected,
  summary: Summary.finish(source.run),
  resultLine: source.resultLine,
  models: state.options.transcripts?.get(source.name)?.models
})

// Several files' outcomes in one: their line counts and selected items added up, and the transcripts' tokens
// per model (as `stats` adds them up); no run of their own.
const totalOf = (
  files: ReadonlyArray<Outcome>,
  transcripts: ReadonlyMap<string | undefined, Stats.FileStats> | undefined
): Omit<Outcome, "files"> => {
  const selected: Record<string, number> = {}
  for (const file of files) {
    for (const [kind, n] of Object.entries(file.selected)) selected[kind] = (selected[kind] ?? 0) + n
  }
  return {
    lines: files.reduce((n, f) => n + f.lines, 0),
    failed: files.reduce((n, f) => n + f.failed, 0),
    selected,
    summary: Summary.finish(Summary.initial),
    resultLine: undefined,
    models: transcripts === undefined || transcripts.size === 0 ? undefined : Stats.total("", [...transcripts.values()]).models
  }
}
