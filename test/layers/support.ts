/**
 * Helpers shared by the layer suites: run a query to its end and read how it ended; capture its spans and
 * metrics.
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Metric from "effect/Metric"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as Telemetry from "../../src/Telemetry.ts"
import type * as CliError from "../../src/ClaudeCliError.ts"

/** The reason of a failed run (fails the test if the run did not fail with a `ClaudeCliError`). */
export const reasonOf = <A>(exit: Exit.Exit<A, CliError.ClaudeCliError>): CliError.Reason => {
  const error = Exit.findErrorOption(exit)
  assert.strictEqual(error._tag, "Some", "the stream should fail with a ClaudeCliError")
  return (error as { readonly value: CliError.ClaudeCliError }).value.reason
}

/** Every item a consumer saw, and how the stream ended. */
export const runToEnd = <A, R>(
  stream: Stream.Stream<A, CliError.ClaudeCliError, R>
): Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly exit: Exit.Exit<void, CliError.ClaudeCliError> }, never, R> =>
  Effect.suspend(() => {
    const items: Array<A> = []
    return Effect.map(
      Effect.exit(Stream.runForEach(stream, (item) => Effect.sync(() => void items.push(item)))),
      (exit) => ({ items, exit })
    )
  })

/** A tracer that keeps every span it makes, in `spans`. */
export const recordingTracer = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { tracer, spans }
}

/** Runs `run` with a tracer that keeps every span and a metric registry of its own; returns both. */
export const traced = <E, R>(run: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function*() {
    const { tracer, spans } = recordingTracer()
    const registry: Metric.MetricRegistry = new Map()
    yield* run.pipe(Effect.ignore, Effect.provideService(Tracer.Tracer, tracer), Effect.provideService(Metric.MetricRegistry, registry))
    const counter = (metric: typeof Telemetry.tokens, attributes: Record<string, string>) =>
      Metric.value(Metric.withAttributes(metric, attributes)).pipe(
        Effect.map((state) => state.count),
        Effect.provideService(Metric.MetricRegistry, registry)
      )
    return { spans, counter }
  })

/** The spans of queries. */
export const querySpans = (spans: ReadonlyArray<Tracer.NativeSpan>) => spans.filter((s) => s.name === Telemetry.querySpanName)

/** A temporary directory removed with the scope, whatever the test's outcome. */
export const tempDir = (prefix: string) =>
  Effect.flatMap(Effect.service(FileSystem.FileSystem), (files) => files.makeTempDirectoryScoped({ prefix })).pipe(
    Effect.provide(NodeFileSystem.layer),
    Effect.orDie
  )
