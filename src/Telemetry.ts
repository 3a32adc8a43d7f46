/**
 * Traces and metrics of `ClaudeCli` runs through Effect's own tracer and metrics; nothing is printed.
 * Each query and session turn is a span (`ClaudeCli.query`, `ClaudeCli.turn`), each tool call a child span
 * `ClaudeCli.tool <name>` (a subagent's calls children of its Task's span: the span itself while the Task runs and
 * for the next 256 calls after it ends, its ids after that), and token and cost totals go to the {@link tokens}
 * and {@link costUsd} counters. Export them with any Effect exporter (e.g. `@effect/opentelemetry`).
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import type * as CliError from "./ClaudeCliError.ts"
import type { QueryOptions } from "./QueryOptions.ts"
import type { Message } from "./schema/Message.ts"
import type { ResultError, ResultSuccess } from "./schema/Result.ts"
import type { DecodeError } from "./stream/DecodeError.ts"

/**
 * The span and attribute names.
 *
 * @since 0.1.0
 * @category constants
 */
export const attributes = {
  sessionId: "claude.session_id",
  model: "claude.model",
  turns: "claude.num_turns",
  costUsd: "claude.cost_usd",
  subtype: "claude.result.subtype",
  isError: "claude.result.is_error",
  exitCode: "claude.exit_code",
  toolName: "claude.tool.name",
  toolUseId: "claude.tool.use_id",
  toolIsError: "claude.tool.is_error",
  turnId: "claude.turn_id",
  attempt: "claude.turn_attempt"
} as const

/**
 * @since 0.1.0
 * @category constants
 */
export const querySpanName = "ClaudeCli.query"

/**
 * The span of each turn of a session; its tool calls are its children, as a query's are.
 *
 * @since 0.1.0
 * @category constants
 */
export const turnSpanName = "ClaudeCli.turn"

/**
 * @since 0.1.0
 * @category constants
 */
export const toolSpanPrefix = "ClaudeCli.tool "

// The counters {@link tokens} and {@link costUsd}, and the per-model counters of the same series (see
// `metricsOf`): a series is its id, description and attributes.
const tokensOptions = { id: "claude_code.tokens", description: "Tokens used by Claude Code runs" } as const
const costOptions = { id: "claude_code.cost_usd", description: "Cost of Claude Code runs in USD" } as const
const counter = (options: { readonly id: string; readonly description: string }, attributes?: Record<string, string>) =>
  Metric.counter(options.id, { description: options.description, incremental: true, attributes })

/**
 * Tokens used, per run's `result.modelUsage`; attributes `model` and `token_type` (`input`, `output`,
 * `cache_read`, `cache_creation`).
 *
 * @since 0.1.0
 * @category metrics
 */
export const tokens = counter(tokensOptions)

/**
 * Cost in US dollars as the CLI reports it; attribute `model`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const costUsd = counter(costOptions)

interface Totals {
  readonly input: number
  readonly output: number
  readonly cache_read: number
  readonly cache_creation: number
  readonly cost: number
}

const tokenTypes = ["input", "output", "cache_read", "cache_creation"] as const

interface ModelMetrics {
  readonly tokens: { readonly [T in typeof tokenTypes[number]]: Metric.Counter<number> }
  readonly cost: Metric.Counter<number>
}

// The counters with their attributes, made once per model: the series of `tokens` and `costUsd` with those
// attributes (a series is its id, description and attributes). Made as counters of their own, not with
// `Metric.withAttributes`: a metric keeps the key it computes from its attributes, where `withAttributes` adds
// them to the context of each update, so that each made the key again (a JSON text of the sorted attributes).
const modelMetrics = new Map<string, ModelMetrics>()
const modelMetricsLimit = 256

const tokensOf = (model: string, token_type: typeof tokenTypes[number]) => counter(tokensOptions, { model, token_type })

const metricsOf = (model: string): ModelMetrics => {
  let metrics = modelMetrics.get(model)
  if (metrics === undefined) {
    // Model names come from the CLI's output: the cache is bounded rather than trusting them to be few.
    if (modelMetrics.size >= modelMetricsLimit) modelMetrics.clear()
    metrics = {
      tokens: {
        input: tokensOf(model, "input"),
        output: tokensOf(model, "output"),
        cache_read: tokensOf(model, "cache_read"),
        cache_creation: tokensOf(model, "cache_creation")
      },
      cost: counter(costOptions, { model })
    }
    modelMetrics.set(model, metrics)
  }
  return metrics
}

const totalsOf = (
  result: ResultSuccess | ResultError,
  model: string | undefined,
  previous: ReadonlyMap<string, Totals>
): ReadonlyArray<[string, Totals]> => {
  const perModel = Object.entries(result.modelUsage ?? {}).map(([name, usage]): [string, Totals] => [name, {
    input: usage.inputTokens,
    output: usage.outputTokens,
    cache_read: usage.cacheReadInputTokens,
    cache_creation: usage.cacheCreationInputTokens,
    cost: usage.costUSD
  }])
  if (perModel.length > 0) return perModel
  // Older CLIs write no modelUsage: the run's usage then counts for the model of its init message. Unlike
  // modelUsage, a result's usage is its own run's, so it is added to the totals so far to make them running.
  const name = model ?? "unknown"
  const before = previous.get(name)
  return [[name, {
    input: (before?.input ?? 0) + (result.usage.input_tokens ?? 0),
    output: (before?.output ?? 0) + (result.usage.output_tokens ?? 0),
    cache_read: (before?.cache_read ?? 0) + (result.usage.cache_read_input_tokens ?? 0),
    cache_creation: (before?.cache_creation ?? 0) + (result.usage.cache_creation_input_tokens ?? 0),
    cost: result.total_cost_usd
  }]]
}

// A process's results carry running totals (a stream-json session writes one result per turn), so only
// the growth since the previous result is added. The updates are `Metric.update`'s, made synchronously with the
// context the stream started in (a metric reads its attributes there): no Effect per result, a chunk with results
// but no tool call costs none.
const recordUsage = (state: State, result: ResultSuccess | ResultError): void => {
  for (const [model, totals] of totalsOf(result, state.model, state.totals)) {
    const previous = state.totals.get(model)
    state.totals.set(model, totals)
    const delta = (key: keyof Totals) =>
      previous === undefined || totals[key] < previous[key] ? totals[key] : totals[key] - previous[key]
    const metrics = metricsOf(model)
    for (const type of tokenTypes) metrics.tokens[type].updateUnsafe(delta(type), state.context)
    metrics.cost.updateUnsafe(delta("cost"), state.context)
  }
}

interface State {
  readonly span: Tracer.Span
  readonly clock: Clock.Clock
  readonly context: Context.Context<never>
  /**
   * Every tool span by tool_use id, a parent for a subagent's calls (a background Task's result can come before
   * them): the span itself while open and for the {@link keptEnded} last ended, then only its ids.
   */
  readonly tools: Map<string, Tracer.AnySpan>
  readonly open: Map<string, Tracer.Span>
  /** The ids of the ended tool spans still held whole in `tools`: a ring of {@link keptEnded}, `next` its oldest. */
  readonly ended: Array<string | undefined>
  next: number
  /** tool_use ids met so far (a span opens once, even when partial messages repeat a block). */
  readonly seen: Set<string>
  readonly totals: Map<string, Totals>
  model: string | undefined
  /** Turns of the process's runs so far: each result reports its own run's. */
  turns: number
}

// A tool span runs from its `tool_use` to its `tool_result`; a subagent's calls are children of the `Task`
// call that started them, and a call still open when the run ends is ended with the run's exit.

const openTool = (state: State, id: string, name: string, parent: string | null) =>
  Effect.suspend(() =>
    Effect.map(
      Effect.makeSpan(toolSpanPrefix + name, {
        parent: (parent === null ? undefined : state.tools.get(parent)) ?? state.span,
        attributes: { [attributes.toolName]: name, [attributes.toolUseId]: id }
      }),
      (span) => {
        state.tools.set(id, span)
        state.open.set(id, span)
      }
    )
  )

// Ended tool spans held whole as parents: a subagent's calls come while its Task runs or soon after. Holding a long
// run's every span whole (its attributes, times and exit) kept `ClaudeCli.query`'s peak 290 MB above that of
// ChildProcess + Decode over 200 MB of real captures with 14,430 tool calls (npm run bench, f-cli against f-lib),
// 136 MB with this bound. An older span is a parent by its ids alone, which is what an exporter reads of a parent.
const keptEnded = 256

const closeTool = (state: State, id: string, isError: boolean) => {
  const span = state.open.get(id)
  if (span === undefined) return
  state.open.delete(id)
  span.attribute(attributes.toolIsError, isError)
  span.end(state.clock.currentTimeNanosUnsafe(), isError ? Exit.fail("tool_result is_error") : Exit.void)
  const oldest = state.ended[state.next]
  state.ended[state.next] = id
  state.next = (state.next + 1) % keptEnded
  const whole = oldest === undefined ? undefined : state.tools.get(oldest)
  if (whole !== undefined) {
    state.tools.set(oldest!, Tracer.externalSpan({ spanId: whole.spanId, traceId: whole.traceId, sampled: whole.sampled }))
  }
}

// One pass over the chunk, on `_tag`. Attributes are set and tool spans ended in place; a tool span opens
// through Effect (it needs the fiber's tracer and context), and so does a result's usage (metrics). Once an
// Effect is queued, the rest of the chunk queues too, so that everything happens in message order (a tool
// result after its call, in the same chunk, finds its span). A chunk with nothing to run costs no Effect.
const observeChunk = (state: State) => <A extends Message | DecodeError>(chunk: Arr.NonEmptyReadonlyArray<A>) => {
  let queued: Array<Effect.Effect<void>> | undefined
  const span = state.span
  for (let i = 0; i < chunk.length; i++) {
    const message: Message | DecodeError = chunk[i]!
    switch (message._tag) {
      case "AssistantMessage": {
        const parent = message.parent_tool_use_id ?? null
        for (const block of message.message.content) {
          if (block._tag === "ToolUseBlock" && !state.seen.has(block.id)) {
            state.seen.add(block.id)
            ;(queued ??= []).push(openTool(state, block.id, block.name, parent))
          }
        }
        break
      }
      case "UserMessage": {
        for (const block of message.toolResults) {
          const id = block.tool_use_id
          const isError = block.is_error === true
          if (queued === undefined) closeTool(state, id, isError)
          else queued.push(Effect.sync(() => closeTool(state, id, isError)))
        }
        break
      }
      case "SystemInit": {
        state.model = message.model
        span.attribute(attributes.sessionId, message.session_id)
        span.attribute(attributes.model, message.model)
        break
      }
      case "ResultSuccess":
      case "ResultError": {
        span.attribute(attributes.sessionId, message.session_id)
        state.turns += message.num_turns
        span.attribute(attributes.turns, state.turns)
        span.attribute(attributes.costUsd, message.total_cost_usd)
        span.attribute(attributes.subtype, message.subtype)
        span.attribute(attributes.isError, message.is_error)
        if (queued === undefined) recordUsage(state, message)
        else queued.push(Effect.sync(() => recordUsage(state, message)))
        break
      }
    }
  }
  return queued === undefined ? Effect.succeed(chunk) : Effect.as(Effect.all(queued, { discard: true }), chunk)
}

// The message stream inside a span named `name`, with tool spans and metrics.
const observeIn = <A extends Message | DecodeError, E, R>(
  self: Stream.Stream<A, E, R>,
  name: string,
  options?: QueryOptions
): Stream.Stream<A, E, R> =>
  Stream.unwrap(Effect.gen(function*() {
    const state: State = {
      span: yield* Effect.orDie(Effect.currentSpan),
      clock: yield* Clock.Clock,
      context: yield* Effect.context<never>(),
      tools: new Map(),
      open: new Map(),
      ended: new Array(keptEnded),
      next: 0,
      seen: new Set(),
      totals: new Map(),
      turns: 0,
      model: undefined
    }
    return self.pipe(
      Stream.mapArrayEffect(observeChunk(state)),
      Stream.onExit((exit) =>
        Effect.sync(() => {
          for (const span of state.open.values()) span.end(state.clock.currentTimeNanosUnsafe(), exit)
          state.open.clear()
        })
      ),
      Stream.tapError((error: E) => {
        const reason = (error as { readonly _tag?: string; readonly reason?: CliError.Reason })
        return reason._tag === "ClaudeCliError" && reason.reason?._tag === "ProcessExited"
          ? Effect.annotateCurrentSpan(attributes.exitCode, reason.reason.exitCode)
          : Effect.void
      })
    )
  })).pipe(
    Stream.withSpan(name, {
      attributes: options?.model === undefined ? {} : { [attributes.model]: options.model }
    })
  ) as Stream.Stream<A, E, R>

/**
 * Runs a query's message stream inside its span, with tool spans and metrics as described in the module
 * documentation.
 *
 * @since 0.1.0
 * @category combinators
 */
export const observe = <A extends Message | DecodeError, R>(
  self: Stream.Stream<A, CliError.ClaudeCliError, R>,
  options?: QueryOptions
): Stream.Stream<A, CliError.ClaudeCliError, R> => observeIn(self, querySpanName, options)

/**
 * Runs a session turn's messages inside a `ClaudeCli.turn` span, with tool spans and metrics as for a query.
 *
 * @since 0.1.0
 * @category combinators
 */
export const observeTurn = <A extends Message, E, R>(
  self: Stream.Stream<A, E, R>,
  options?: QueryOptions
): Stream.Stream<A, E, R> => observeIn(self, turnSpanName, options)
