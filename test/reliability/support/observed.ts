/**
 * Everything a run lets out besides its messages, as text: its errors (every string field, causes
 * included), its logs at every level and its spans (names, attributes, events, how they ended).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import { inspect } from "node:util"
import { recordingTracer } from "../../layers/support.ts"

/** Every string reachable from an error (message, fields, nested causes), one per line. */
export const errorText = (error: unknown): string => {
  const seen = new Set<unknown>()
  const out: Array<string> = []
  const walk = (value: unknown, depth: number): void => {
    if (depth > 6 || value === null || value === undefined || seen.has(value)) return
    if (typeof value === "string") return void out.push(value)
    if (typeof value !== "object") return
    seen.add(value)
    if (value instanceof Error) out.push(value.message, String(value.stack))
    for (const key of Object.getOwnPropertyNames(value)) walk((value as Record<string, unknown>)[key], depth + 1)
  }
  walk(error, 0)
  out.push(inspect(error, { depth: 6 }))
  return out.join("\n")
}

/** The text of an exit: the pretty cause and every string of its errors. */
export const exitText = (exit: Exit.Exit<unknown, unknown>): string =>
  Exit.isSuccess(exit) ? "" : [Cause.pretty(exit.cause), ...exit.cause.reasons.map(errorText)].join("\n")

/** Runs `effect` with a logger and a tracer that keep everything; returns its result and that text. */
export const observed = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<readonly [A, string], E, R> =>
  Effect.suspend(() => {
    const out: Array<string> = []
    const { tracer, spans } = recordingTracer()
    const logger = Logger.make((options) => {
      out.push(`${options.logLevel} ${inspect(options.message, { depth: 6 })} ${Cause.pretty(options.cause)}`)
    })
    return effect.pipe(
      Effect.provide(Logger.layer([logger])),
      Effect.provideService(References.MinimumLogLevel, "All"),
      Effect.provideService(Tracer.Tracer, tracer),
      Effect.map((a) => {
        for (const span of spans) {
          out.push(span.name, inspect(span.attributes, { depth: 6 }), inspect(span.events, { depth: 6 }))
          if (span.status._tag === "Ended") out.push(exitText(span.status.exit))
        }
        return [a, out.join("\n")] as const
      })
    )
  })
