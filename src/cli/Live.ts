/**
 * Shows a stream of stream-json messages on the terminal: pretty (with a spinner on a TTY), raw `jsonl`
 * lines, or one `json` summary. Lines that failed to decode are reported on stderr with their line number
 * and the display goes on.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Stdio from "effect/Stdio"
import * as Stream from "effect/Stream"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"
import type * as Decode from "../stream/Decode.ts"
import { isDecodeError } from "../stream/DecodeError.ts"
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
 * One line of input as the display sees it: the raw text and its parsed JSON, or what failed.
 *
 * @since 0.1.0
 * @category models
 */
export type Entry =
  | { readonly _tag: "Line"; readonly line: number; readonly raw: string; readonly json: unknown }
  | { readonly _tag: "Failed"; readonly message: string }

/**
 * What the display saw, for the exit code and the `json` format.
 *
 * @since 0.1.0
 * @category models
 */
export interface Outcome {
  readonly lines: number
  readonly failed: number
  /** The last `result` message, if any. */
  readonly result: Record<string, unknown> | undefined
}

/**
 * Decoded lines as display entries; a line that fails is reported with its number and, with `strict`,
 * stops the display.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromRecords = <E, R>(
  records: Stream.Stream<Decode.DecodedLine | Decode.DecodeError, E, R>,
  strict: boolean
): Stream.Stream<Entry, E | CliFailure.CliFailure, R> =>
  Stream.mapEffect(records, (record) => {
    if (!isDecodeError(record)) {
      return Effect.succeed<Entry>({ _tag: "Line", line: record.line, raw: record.raw, json: JSON.parse(record.raw) })
    }
    const message = `line ${record.line}: not a stream-json message (${record.detail}); found: ${record.raw}`
    return strict
      ? Effect.fail(CliFailure.make("BadInput", `Not stream-json: ${message}`))
      : Effect.succeed<Entry>({ _tag: "Failed", message })
  })

const spinnerInterval = "100 millis"

type Event = { readonly _tag: "Entry"; readonly entry: Entry } | { readonly _tag: "Tick" }

/**
 * Displays `entries` and returns what was seen.
 *
 * @since 0.1.0
 * @category running
 */
export const display = Effect.fnUntraced(function*<E, R>(
  entries: Stream.Stream<Entry, E, R>,
  format: Format
) {
  const stdio = yield* Stdio.Stdio
  const caps = yield* TerminalCapabilities.TerminalCapabilities
  const style = caps.canColor ? Style.ansi : Style.plain
  const animate = caps.canAnimate && format === "pretty"
  let outcome: Outcome = { lines: 0, failed: 0, result: undefined }
  const errors: Array<string> = []
  const now = yield* Clock.currentTimeMillis
  let pretty = Pretty.initial
  let screen = Screen.initial({ animate, now })

  const events: Stream.Stream<Event, E, R> = animate
    ? Stream.merge(
      Stream.map(entries, (entry): Event => ({ _tag: "Entry", entry })),
      Stream.map(Stream.tick(spinnerInterval), (): Event => ({ _tag: "Tick" })),
      { haltStrategy: "left" }
    )
    : Stream.map(entries, (entry): Event => ({ _tag: "Entry", entry }))

  const apply = (event: Screen.Event): string => {
    const [next, text] = Screen.step(screen, event, style)
    screen = next
    return text
  }

  const handle = (event: Event, time: number): string => {
    if (event._tag === "Tick") return apply({ _tag: "Tick", now: time })
    const entry = event.entry
    if (entry._tag === "Failed") {
      outcome = { ...outcome, failed: outcome.failed + 1 }
      errors.push(entry.message)
      return ""
    }
    outcome = { ...outcome, lines: outcome.lines + 1 }
    const json = entry.json as Record<string, unknown> | undefined
    if (json?.type === "result") outcome = { ...outcome, result: json }
    if (format === "jsonl") return entry.raw + "\n"
    if (format === "json") return ""
    const [next, output] = Pretty.render(pretty, entry.json, style)
    pretty = next
    let text = apply({ _tag: "Write", text: output.text })
    if (output.status !== undefined) {
      text += apply({ _tag: "Status", status: output.status ?? undefined, now: time })
    }
    return text
  }

  const reportErrors = Effect.suspend(() => {
    const lines = errors.splice(0, errors.length)
    return lines.length === 0
      ? Effect.void
      : Stream.run(Stream.make(lines.map((l) => `${style.red("✗")} ${l}\n`).join("")), stdio.stderr())
  })

  yield* events.pipe(
    Stream.mapEffect((event) =>
      Effect.map(Clock.currentTimeMillis, (time) => handle(event, time)).pipe(
        Effect.tap(() => reportErrors)
      )
    ),
    Stream.filter((text) => text !== ""),
    Stream.run(stdio.stdout())
  )
  const closing = apply({ _tag: "End" }) + (format === "json" ? JSON.stringify(summary(outcome)) + "\n" : "")
  if (closing !== "") yield* Stream.run(Stream.make(closing), stdio.stdout())
  return outcome
})

/**
 * The `--format json` object: the result message (if the session ended) and the line counts.
 *
 * @since 0.1.0
 * @category formatting
 */
export const summary = (outcome: Outcome): Record<string, unknown> => ({
  lines: outcome.lines,
  failed: outcome.failed,
  result: outcome.result ?? null
})
