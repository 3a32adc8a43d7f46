/**
 * Observability of `ClaudeCli` queries through Effect's own tracing and metrics (nothing is printed):
 *
 * - each query is a span `ClaudeCli.query` with the session id, model, turns, cost, result subtype and exit
 *   code as attributes;
 * - each tool call is a child span `ClaudeCli.tool <name>` from its `tool_use` to its `tool_result` (a
 *   subagent's tool calls are children of the `Task` call that started them); a call without a result when
 *   the run ends is ended with the run's exit;
 * - token and cost totals of each run are added to the counters {@link tokens} and {@link costUsd}, per model.
 *
 * Export them with any Effect tracer / metrics exporter (e.g. `@effect/opentelemetry`).
 *
 * @since 0.1.0
 */
import type * as Arr from "effect/Array"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import type * as CliError from "../ClaudeCliError.ts"
import type { QueryOptions } from "../QueryOptions.ts"
import { ToolUseBlock } from "../schema/ContentBlock.ts"
import { AssistantMessage, type Message, UserMessage } from "../schema/Message.ts"
import { ResultError, ResultSuccess } from "../schema/Result.ts"
import { SystemInit } from "../schema/System.ts"
import type { DecodeError } from "../stream/DecodeError.ts"

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
  toolIsError: "claude.tool.is_error"
} as const

/**
 * @since 0.1.0
 * @category constants
 */
export const querySpanName = "ClaudeCli.query"

/**
 * @since 0.1.0
 * @category constants
 */
export const toolSpanPrefix = "ClaudeCli.tool "

/**
 * Tokens used, per run's `result.modelUsage`; attributes `model` and `token_type` (`input`, `output`,
 * `cache_read`, `cache_creation`).
 *
 * @since 0.1.0
 * @category metrics
 */
export const tokens = Metric.counter("claude_code.tokens", {
  description: "Tokens used by Claude Code runs",
  incremental: true
})

/**
 * Cost in US dollars as the CLI reports it; attribute `model`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const costUsd = Metric.counter("claude_code.cost_usd", {
  description: "Cost of Claude Code runs in USD",
  incremental: true
})

interface Totals {
  readonly input: number
  readonly output: number
  readonly cache_read: number
  readonly cache_creation: number
  readonly cost: number
}

const tokenTypes = ["input", "output", "cache_read", "cache_creation"] as const

const totalsOf = (result: ResultSuccess | ResultError, model: string | undefined): ReadonlyArray<[string, Totals]> => {
  const perModel = Object.entries(result.modelUsage ?? {}).map(([name, usage]): [string, Totals] => [name, {
    input: usage.inputTokens,
    output: usage.outputTokens,
    cache_read: usage.cacheReadInputTokens,
    cache_creation: usage.cacheCreationInputTokens,
    cost: usage.costUSD
  }])
  if (perModel.length > 0) return perModel
  // Older CLIs write no modelUsage: the run's totals then count for the model of its init message.
  return [[model ?? "unknown", {
    input: result.usage.input_tokens ?? 0,
    output: result.usage.output_tokens ?? 0,
    cache_read: result.usage.cache_read_input_tokens ?? 0,
    cache_creation: result.usage.cache_creation_input_tokens ?? 0,
    cost: result.total_cost_usd
  }]]
}

// A process's results carry running totals (a stream-json session writes one result per turn), so only
// the growth since the previous result is added.
const recordUsage = (state: State, result: ResultSuccess | ResultError): Effect.Effect<void> =>
  Effect.forEach(totalsOf(result, state.model), ([model, totals]) => {
    const previous = state.totals.get(model)
    state.totals.set(model, totals)
    const delta = (key: keyof Totals) =>
      previous === undefined || totals[key] < previous[key] ? totals[key] : totals[key] - previous[key]
    return Effect.andThen(
      Effect.forEach(tokenTypes, (type) =>
        Metric.update(Metric.withAttributes(tokens, { model, token_type: type }), delta(type)), { discard: true }),
      Metric.update(Metric.withAttributes(costUsd, { model }), delta("cost"))
    )
  }, { discard: true })

interface State {
  readonly span: Tracer.Span
  readonly clock: Clock.Clock
  /** Every tool span by tool_use id: a background Task's result can come before its subagent's calls. */
  readonly tools: Map<string, Tracer.Span>
  readonly open: Map<string, Tracer.Span>
  /** tool_use ids met so far (a span opens once, even when partial messages repeat a block). */
  readonly seen: Set<string>
  readonly totals: Map<string, Totals>
  model: string | undefined
}

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

const closeTool = (state: State, id: string, isError: boolean) => {
  const span = state.open.get(id)
  if (span === undefined) return
  state.open.delete(id)
  span.attribute(attributes.toolIsError, isError)
  span.end(state.clock.currentTimeNanosUnsafe(), isError ? Exit.fail("tool_result is_error") : Exit.void)
}

// Attributes are set synchronously; tool spans and metrics are Effects run in message order, and a chunk
// without tool calls, tool results or a result costs no Effect at all.
const observeChunk = (state: State) => <A extends Message | DecodeError>(chunk: Arr.NonEmptyReadonlyArray<A>) => {
  const effects: Array<Effect.Effect<void>> = []
  const seen = state.seen
  for (const message of chunk) {
    if (message instanceof AssistantMessage) {
      for (const block of message.message.content) {
        if (block instanceof ToolUseBlock && !seen.has(block.id)) {
          seen.add(block.id)
          effects.push(openTool(state, block.id, block.name, message.parent_tool_use_id ?? null))
        }
      }
    } else if (message instanceof UserMessage) {
      for (const block of message.toolResults) {
        effects.push(Effect.sync(() => closeTool(state, block.tool_use_id, block.is_error === true)))
      }
    } else if (message instanceof SystemInit) {
      state.model = message.model
      state.span.attribute(attributes.sessionId, message.session_id)
      state.span.attribute(attributes.model, message.model)
    } else if (message instanceof ResultSuccess || message instanceof ResultError) {
      state.span.attribute(attributes.sessionId, message.session_id)
      state.span.attribute(attributes.turns, message.num_turns)
      state.span.attribute(attributes.costUsd, message.total_cost_usd)
      state.span.attribute(attributes.subtype, message.subtype)
      state.span.attribute(attributes.isError, message.is_error)
      effects.push(Effect.suspend(() => recordUsage(state, message)))
    }
  }
  return effects.length === 0 ? Effect.succeed(chunk) : Effect.as(Effect.all(effects, { discard: true }), chunk)
}

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
): Stream.Stream<A, CliError.ClaudeCliError, R> =>
  Stream.unwrap(Effect.gen(function*() {
    const state: State = {
      span: yield* Effect.orDie(Effect.currentSpan),
      clock: yield* Clock.Clock,
      tools: new Map(),
      open: new Map(),
      seen: new Set(),
      totals: new Map(),
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
      Stream.tapError((error: CliError.ClaudeCliError) =>
        error.reason._tag === "ProcessExited"
          ? Effect.annotateCurrentSpan(attributes.exitCode, error.reason.exitCode)
          : Effect.void
      )
    )
  })).pipe(
    Stream.withSpan(querySpanName, {
      attributes: options?.model === undefined ? {} : { [attributes.model]: options.model }
    })
  ) as Stream.Stream<A, CliError.ClaudeCliError, R>
