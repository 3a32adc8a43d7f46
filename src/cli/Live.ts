/**
 * Shows a stream of decoded stream-json lines on the terminal: pretty (with a spinner on a TTY), `jsonl`
 * (the raw lines, or with a filter one JSON object per selected item) or one `json` summary. Every line is
 * flattened into typed {@link Item.Item}s and, with `--filter`, only the selected items are shown. Lines that
 * fail to decode are reported on stderr with their line number and the display goes on (unless `strict`).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"
import type * as Filter from "../filter/Filter.ts"
import * as Item from "../filter/Item.ts"
import type * as Decode from "../stream/Decode.ts"
import { type DecodeError, isDecodeError } from "../stream/DecodeError.ts"
import * as Summary from "../stream/Summary.ts"
import * as CliFailure from "./CliFailure.ts"
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
  /** Show only the items this filter selects. */
  readonly filter?: Filter.Filter | undefined
  /** Stop at the first line that does not decode (exit code 3). */
  readonly strict?: boolean | undefined
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
}

/**
 * Whether the outcome calls for exit code 1: a line failed to decode, or the session ended with an error.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isProblem = (outcome: Outcome): boolean =>
  outcome.failed > 0 || (outcome.summary.completed && !outcome.summary.success)

const failureText = (error: DecodeError): string => `line ${error.line}: not a stream-json message (${error.detail}); found: ${error.raw}`

/**
 * The `--format json` object: line counts, the selected items per kind, and the run's figures with its
 * `result` message as written (all fields, known or not).
 *
 * @since 0.1.0
 * @category formatting
 */
export const summaryJson = (outcome: Outcome): Record<string, unknown> => {
  const { result: _, ...figures } = outcome.summary
  return {
    lines: outcome.lines,
    failed: outcome.failed,
    selected: outcome.selected,
    ...figures,
    result: outcome.resultLine === undefined ? null : JSON.parse(outcome.resultLine)
  }
}

const spinnerInterval = "100 millis"

type Event = { readonly _tag: "Record"; readonly record: Decode.DecodedLine | DecodeError } | { readonly _tag: "Tick" }

/**
 * Displays decoded lines and returns what was seen.
 *
 * @since 0.1.0
 * @category running
 */
export const display = Effect.fnUntraced(function*<E, R>(
  records: Stream.Stream<Decode.DecodedLine | DecodeError, E, R>,
  options: Options
) {
  const { filter, format } = options
  const stdio = yield* Stdio.Stdio
  const caps = yield* TerminalCapabilities.TerminalCapabilities
  const style = caps.canColor ? Style.ansi : Style.plain
  const animate = caps.canAnimate && format === "pretty"
  const flattener = Item.makeFlattener()
  let lines = 0
  let failed = 0
  let run = Summary.initial
  let resultLine: string | undefined
  const selected: Record<string, number> = {}
  const errors: Array<string> = []
  let pretty = Pretty.initial
  let screen = Screen.initial({ animate, now: yield* Clock.currentTimeMillis })

  const apply = (event: Screen.Event): string => {
    const [next, text] = Screen.step(screen, event, style)
    screen = next
    return text
  }

  const show = (item: Item.Item, time: number): string => {
    if (format === "jsonl") return filter === undefined ? "" : JSON.stringify(Item.toJson(item)) + "\n"
    if (format === "json") return ""
    const [next, output] = Pretty.render(pretty, item, style)
    pretty = next
    const text = apply({ _tag: "Write", text: output.text })
    return output.status === undefined ? text : text + apply({ _tag: "Status", status: output.status ?? undefined, now: time })
  }

  const handle = (record: Decode.DecodedLine | DecodeError, time: number): Effect.Effect<string, CliFailure.CliFailure> => {
    if (isDecodeError(record)) {
      if (options.strict === true) return Effect.fail(CliFailure.make("BadInput", `Not stream-json: ${failureText(record)}`))
      failed++
      errors.push(failureText(record))
    } else {
      lines++
      if (record.message.type === "result") resultLine = record.raw
    }
    const message = isDecodeError(record) ? record : record.message
    run = Summary.step(run, message)
    let text = format === "jsonl" && filter === undefined && !isDecodeError(record) ? record.raw + "\n" : ""
    for (const item of flattener.push(message)) {
      if (filter !== undefined && !filter(item)) {
        pretty = Pretty.observe(pretty, item)
        continue
      }
      selected[item.kind] = (selected[item.kind] ?? 0) + 1
      text += show(item, time)
    }
    return Effect.succeed(text)
  }

  const reportErrors = Effect.suspend(() => {
    const reported = errors.splice(0, errors.length)
    return reported.length === 0
      ? Effect.void
      : Stream.run(Stream.make(reported.map((l) => `${style.red("✗")} ${l}\n`).join("")), stdio.stderr())
  })

  const events: Stream.Stream<Event, E, R> = Stream.map(records, (record): Event => ({ _tag: "Record", record }))
  yield* (animate
    ? Stream.merge(events, Stream.map(Stream.tick(spinnerInterval), (): Event => ({ _tag: "Tick" })), {
      haltStrategy: "left"
    })
    : events).pipe(
      Stream.mapEffect((event) =>
        Effect.flatMap(Clock.currentTimeMillis, (time) =>
          event._tag === "Tick" ? Effect.succeed(apply({ _tag: "Tick", now: time })) : handle(event.record, time)).pipe(
            Effect.tap(() => reportErrors)
          )
      ),
      Stream.filter((text) => text !== ""),
      Stream.run(stdio.stdout())
    )
  const outcome: Outcome = { lines, failed, selected, summary: Summary.finish(run), resultLine }
  const closing = apply({ _tag: "End" }) + (format === "json" ? JSON.stringify(summaryJson(outcome)) + "\n" : "")
  if (closing !== "") yield* Stream.run(Stream.make(closing), stdio.stdout())
  return outcome
})
