/**
 * Runs the {@link Display} fold over a stream of decoded stream-json lines: merged with clock ticks for the
 * spinner when the output is a terminal, threaded through `Stream.mapAccum`, and written to standard output
 * and standard error in the order the fold decided.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as PlatformError from "effect/PlatformError"
import * as Stdio from "effect/Stdio"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as Terminal from "effect/Terminal"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"
import type * as CliFailure from "./CliFailure.ts"
import * as Display from "./Display.ts"
import type * as Input from "./Input.ts"
import * as Style from "./Style.ts"

/**
 * How often the spinner is redrawn.
 *
 * @since 0.1.0
 * @category constants
 */
export const spinnerInterval = "100 millis"

type Target = "Stdout" | "Stderr"

// The terminal's columns, when a Terminal service knows them (Node's reports 0 when it does not).
const terminalWidth: Effect.Effect<number | undefined> = Effect.flatMap(
  Effect.serviceOption(Terminal.Terminal),
  Option.match({
    onNone: () => Effect.succeed(undefined),
    onSome: (terminal) => Effect.map(terminal.columns, (columns) => columns > 0 ? columns : undefined)
  })
)

// Adjacent writes to the same stream become one, so a chunk of lines costs one write, not one per line.
const coalesce = <E>(writes: ReadonlyArray<Display.Write<E>>) => {
  const out: Array<{ readonly to: Target; text: string } | Exclude<Display.Write<E>, { readonly text: string }>> = []
  for (const write of writes) {
    if (write._tag === "Stdout" || write._tag === "Stderr") {
      if (write.text === "") continue
      const last = out.at(-1)
      if (last !== undefined && "to" in last && last.to === write._tag) last.text += write.text
      else out.push({ to: write._tag, text: write.text })
    } else {
      out.push(write)
    }
  }
  return out
}

/**
 * Displays decoded lines and returns what was seen. A failure of `records` is shown after the spinner is
 * erased. Lines of several files come {@link Display.Sourced}: each file is shown on its own.
 *
 * @since 0.1.0
 * @category running
 */
export const display = <E, R>(
  records: Stream.Stream<Input.Line | Display.Sourced, E, R>,
  options: Display.Options
): Effect.Effect<Display.Outcome, E | CliFailure.CliFailure | PlatformError.PlatformError, R | Stdio.Stdio> =>
  Effect.gen(function*() {
    const stdio = yield* Stdio.Stdio
    const caps = yield* TerminalCapabilities.TerminalCapabilities
    const animate = caps.canAnimate && options.format === "pretty"
    const start = Display.initial(options, {
      style: yield* Style.current,
      animate,
      now: yield* Clock.currentTimeMillis,
      width: animate ? yield* terminalWidth : undefined
    })
    const lines: Stream.Stream<Display.Event<E>, never, R> = records.pipe(
      // One clock reading per chunk of lines: they arrived together.
      Stream.mapArrayEffect((chunk) =>
        Effect.map(Clock.currentTimeMillis, (now) => Arr.map(chunk, (record): Display.Event<E> =>
          "source" in record ? { _tag: "Record", record: record.record, now, source: record.source } : { _tag: "Record", record, now }))
      ),
      Stream.catchCause((cause) => Stream.succeed<Display.Event<E>>({ _tag: "Failed", cause }))
    )
    const ticks = Stream.tick(spinnerInterval).pipe(
      Stream.mapEffect(() => Effect.map(Clock.currentTimeMillis, (now): Display.Event<E> => ({ _tag: "Tick", now })))
    )
    const write = (to: Target, text: string) =>
      Stream.run(Stream.make(text), to === "Stdout" ? stdio.stdout() : stdio.stderr())
    let outcome: Display.Outcome | undefined
    let last = start
    yield* (animate ? Stream.merge(lines, ticks, { haltStrategy: "left" }) : lines).pipe(
      Stream.mapAccum(() => start, (state, event: Display.Event<E>) => {
        const next = Display.step(state, event)
        last = next[0]
        return next
      }, { onHalt: Display.finish }),
      Stream.runForEachArray((writes) =>
        Effect.forEach(coalesce(writes), (w): Effect.Effect<void, E | CliFailure.CliFailure | PlatformError.PlatformError> =>
          "to" in w
            ? write(w.to, w.text)
            : w._tag === "Stop"
            ? Effect.failCause(w.cause)
            : Effect.sync(() => {
              outcome = w.outcome
            }), { discard: true })
      ),
      // Interrupted (Ctrl-C, a signal): the spinner's line is finished before the process exits.
      Effect.onInterrupt(() => Effect.ignore(write("Stdout", Display.interrupted(last))))
    )
    return outcome!
  })
