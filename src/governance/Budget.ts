/**
 * Spending limits shared by everything that runs Claude Code: a limit in USD and/or tokens per key (a tenant,
 * a user, a job), and a ledger of what each key has spent, in memory or in the SQL database a fleet shares.
 *
 * A guarded run is refused before it starts when its key has reached a limit; while it runs, its own spend is
 * estimated from each assistant message's usage (priced by `TranscriptPricing`), and a run whose estimate
 * crosses a limit is stopped after that message (`onCross: "interrupt"`, the default) or let finish
 * (`"finish"`). What is charged is the CLI's own figure for the run: the `model_usage_since_last_result` of
 * its result (the run's cost and tokens per model), or for a CLI that does not write it, the growth of
 * `total_cost_usd` over the guarded stream. A run that ends without a result (stopped, failed) is charged
 * its estimate, the only figure there is.
 *
 * The check at a run's start is not a reservation: runs that start together under a limit may pass it by
 * their own cost; `"interrupt"` bounds that to one message each.
 *
 * @example
 * ```ts
 * import { Budget } from "effect-claude-code/governance"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Stream } from "effect"
 *
 * const answer = ClaudeCli.query({ prompt: "Summarize README.md" }).pipe(
 *   Budget.guard("tenant-a"),
 *   Stream.runCollect
 * )
 * // provided with Budget.layerMemory({ limits: { "tenant-a": { usd: 5 } } })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import { causeText } from "../internal/causeText.ts"
import * as Sqlite from "../internal/sqlite.ts"
import type * as Message from "../schema/Message.ts"
import type * as Result from "../schema/Result.ts"
import type * as Usage from "../schema/Usage.ts"
import * as TranscriptPricing from "../transcript/Pricing.ts"

/**
 * A key's limits; a limit left out does not bound. Tokens count input, output, cache reads and cache writes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Limit {
  readonly usd?: number | undefined
  readonly tokens?: number | undefined
}

/**
 * What a key has spent, or what one run cost.
 *
 * @since 0.1.0
 * @category models
 */
export interface Spend {
  readonly usd: number
  readonly tokens: number
}

/**
 * A guarded run was refused (`during: false`) or stopped (`during: true`) because its key reached a limit.
 *
 * @since 0.1.0
 * @category reasons
 */
export class Exceeded extends Schema.TaggedError<Exceeded>()("Exceeded", {
  key: Schema.String,
  /** Which limit: `usd` or `tokens`. */
  limit: Schema.Literals(["usd", "tokens"]),
  allowed: Schema.Number,
  /** What the key had spent, with the stopped run's estimate when `during`. */
  spent: Schema.Number,
  during: Schema.Boolean
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const amount = (n: number) => this.limit === "usd" ? `$${n.toFixed(4)}` : `${n} tokens`
    return `Budget ${this.key}: ${amount(this.spent)} spent of ${amount(this.allowed)}; ` +
      (this.during ? "the run was stopped" : "the run was refused")
  }
}

/**
 * The ledger's storage failed (`operation` says which call).
 *
 * @since 0.1.0
 * @category reasons
 */
export class LedgerFailed extends Schema.TaggedError<LedgerFailed>()("LedgerFailed", {
  operation: Schema.Literals(["open", "read", "charge"]),
  key: Schema.String,
  cause: Schema.Defect()
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Budget ledger ${this.operation}(${this.key}) failed: ${causeText(this.cause)}`
  }
}

/**
 * @since 0.1.0
 * @category errors
 */
export const Reason = Schema.Union([Exceeded, LedgerFailed])

/**
 * @since 0.1.0
 * @category errors
 */
export type Reason = typeof Reason.Type

/**
 * A budget refused or stopped a run, or its ledger failed; `reason` says which.
 *
 * @since 0.1.0
 * @category errors
 */
export class BudgetError extends Schema.TaggedError<BudgetError>()("BudgetError", { reason: Reason }) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.reason.message
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Shape {
  /** The limits of a key, `undefined` when it has none. */
  readonly limitOf: (key: string) => Limit | undefined
  /** What a key has spent so far. */
  readonly spent: (key: string) => Effect.Effect<Spend, BudgetError>
  /** Adds a run's cost to a key's spend and answers the new total. */
  readonly charge: (key: string, cost: Spend) => Effect.Effect<Spend, BudgetError>
  /** What a guarded run does when its estimate crosses a limit. */
  readonly onCross: "interrupt" | "finish"
}

/**
 * @since 0.1.0
 * @category services
 */
export class Budget extends Context.Service<Budget, Shape>()("effect-claude-code/Budget") {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Limits by key, or a function answering them; keys without limits are counted, never refused. */
  readonly limits: Readonly<Record<string, Limit>> | ((key: string) => Limit | undefined)
  /** Default `"interrupt"`. */
  readonly onCross?: "interrupt" | "finish" | undefined
}

interface Ledger {
  readonly read: (key: string) => Effect.Effect<Spend, BudgetError>
  readonly add: (key: string, cost: Spend) => Effect.Effect<Spend, BudgetError>
}

const zero: Spend = { usd: 0, tokens: 0 }

const ledgerFailed = (operation: LedgerFailed["operation"], key: string) => (cause: unknown) =>
  new BudgetError({ reason: new LedgerFailed({ operation, key, cause }) })

const fromLedger = (ledger: Ledger, options: Options): Shape => {
  const limits = options.limits
  return {
    limitOf: typeof limits === "function" ? limits : (key) => limits[key],
    spent: ledger.read,
    charge: ledger.add,
    onCross: options.onCross ?? "interrupt"
  }
}

/**
 * A budget whose ledger is in this process's memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: Options): Effect.Effect<Shape> =>
  Effect.map(Ref.make(new Map<string, Spend>()), (ref) =>
    fromLedger({
      read: (key) => Effect.map(Ref.get(ref), (spends) => spends.get(key) ?? zero),
      add: (key, cost) =>
        Ref.modify(ref, (spends) => {
          const before = spends.get(key) ?? zero
          const after = { usd: before.usd + cost.usd, tokens: before.tokens + cost.tokens }
          return [after, new Map(spends).set(key, after)]
        })
    }, options))

/**
 * A budget whose ledger is a table (`claude_budget_spend` unless `table` says otherwise, created when missing)
 * in the `SqlClient` in context: PostgreSQL for a fleet, SQLite for one machine. Charges are one atomic upsert
 * each, so runners charging one key at once never lose a charge.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSql = Effect.fnUntraced(function*(options: Options & { readonly table?: string | undefined }) {
  const sql = yield* SqlClient.SqlClient
  const table = sql(options.table ?? "claude_budget_spend")
  const real = sql.onDialectOrElse({ pg: () => sql.literal("DOUBLE PRECISION"), orElse: () => sql.literal("REAL") })
  yield* sql`CREATE TABLE IF NOT EXISTS ${table} (
    budget_key TEXT PRIMARY KEY,
    usd ${real} NOT NULL,
    tokens BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`.pipe(Effect.mapError(ledgerFailed("open", options.table ?? "claude_budget_spend")))
  const toSpend = (rows: ReadonlyArray<{ readonly usd: unknown; readonly tokens: unknown }>): Spend =>
    rows.length === 0 ? zero : { usd: Number(rows[0].usd), tokens: Number(rows[0].tokens) }
  return fromLedger({
    read: (key) =>
      sql<{ usd: unknown; tokens: unknown }>`SELECT usd, tokens FROM ${table} WHERE budget_key = ${key}`.pipe(
        Effect.map(toSpend),
        Effect.mapError(ledgerFailed("read", key))
      ),
    add: (key, cost) =>
      sql<{ usd: unknown; tokens: unknown }>`INSERT INTO ${table} (budget_key, usd, tokens, updated_at)
        VALUES (${key}, ${cost.usd}, ${Math.round(cost.tokens)}, ${Date.now()})
        ON CONFLICT (budget_key) DO UPDATE SET usd = ${table}.usd + excluded.usd,
          tokens = ${table}.tokens + excluded.tokens, updated_at = excluded.updated_at
        RETURNING usd, tokens`.pipe(Effect.map(toSpend), Effect.mapError(ledgerFailed("charge", key)))
  }, options)
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options: Options): Layer.Layer<Budget> => Layer.effect(Budget, makeMemory(options))

/**
 * The ledger in the `SqlClient` in context (see {@link makeSql}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSql = (
  options: Options & { readonly table?: string | undefined }
): Layer.Layer<Budget, BudgetError, SqlClient.SqlClient> => Layer.effect(Budget, makeSql(options))

/**
 * The ledger in an SQLite file (created when missing), through Node's built-in `node:sqlite` off the event loop.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = (
  options: Options & { readonly filename: string; readonly table?: string | undefined }
): Layer.Layer<Budget, BudgetError> =>
  Layer.effect(
    Budget,
    Effect.gen(function*() {
      const client = yield* Layer.build(Sqlite.layer(options.filename)).pipe(Effect.mapError(ledgerFailed("open", options.filename)))
      return yield* Effect.provide(makeSql(options), client)
    })
  )

const over = (key: string, limit: Limit | undefined, spend: Spend, during: boolean): Option.Option<BudgetError> => {
  const crossed = (which: "usd" | "tokens") => {
    const allowed = limit?.[which]
    // A run that starts must be under the limit; one that runs may reach it and only stops past it.
    return allowed !== undefined && (during ? spend[which] > allowed : spend[which] >= allowed)
      ? Option.some(new BudgetError({ reason: new Exceeded({ key, limit: which, allowed, spent: spend[which], during }) }))
      : Option.none()
  }
  return Option.orElse(crossed("usd"), () => crossed("tokens"))
}

/**
 * Fails with `Exceeded` when the key has reached one of its limits; answers what it has spent otherwise.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = (key: string): Effect.Effect<Spend, BudgetError, Budget> =>
  Effect.flatMap(Budget, (budget) =>
    Effect.flatMap(budget.spent(key), (spend) =>
      Option.match(over(key, budget.limitOf(key), spend, false), {
        onNone: () => Effect.succeed(spend),
        onSome: Effect.fail
      })))

const usageTokens = (usage: Usage.Usage): number =>
  usage.input_tokens + usage.output_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0)

// An assistant message's estimate; the CLI writes one message per content block, each with the whole usage.
const estimateOf = (message: Message.AssistantMessage): Spend => {
  const usage = message.message.usage
  return {
    tokens: usageTokens(usage),
    usd: TranscriptPricing.costOf(message.message.model, {
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
      cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0
    }) ?? 0
  }
}

type ResultMessage = Result.ResultSuccess | Result.ResultError

/** The run's own cost from its result; `previousTotal` is the session's `total_cost_usd` before this run. */
const costOfResult = (result: ResultMessage, previousTotal: number): Spend => {
  const own = result.model_usage_since_last_result
  if (own !== undefined) {
    const models = Object.values(own)
    return {
      usd: models.reduce((sum, m) => sum + m.costUSD, 0),
      tokens: models.reduce((sum, m) => sum + m.inputTokens + m.outputTokens + m.cacheReadInputTokens + m.cacheCreationInputTokens, 0)
    }
  }
  return { usd: Math.max(0, result.total_cost_usd - previousTotal), tokens: usageTokens(result.usage) }
}

interface RunState {
  /** Estimates of the messages since the last result, by API message id. */
  readonly pending: ReadonlyMap<string, Spend>
  /** `total_cost_usd` of the last result, per session. */
  readonly totals: ReadonlyMap<string, number>
}

const sum = (spends: Iterable<Spend>): Spend => {
  let usd = 0
  let tokens = 0
  for (const s of spends) {
    usd += s.usd
    tokens += s.tokens
  }
  return { usd, tokens }
}

/** A message of a query or a session's turn (a session's stream also carries control frames, passed through). */
type Tagged = { readonly _tag: string }

/**
 * Runs a stream of messages (a query, a session's turn) under a key's budget: refused with `Exceeded` when
 * the key has reached a limit, charged with the CLI's figure at each result, stopped after the message whose
 * estimate crosses a limit (with `onCross: "interrupt"`: the stream then fails with `Exceeded`, `during`;
 * ending the stream ends a query's CLI; for a session's turn, `onCrossed` is run first, e.g. the session's
 * `interrupt`, and the stream goes on to the turn's result, which is charged, before it fails).
 *
 * @since 0.1.0
 * @category combinators
 */
export const guard: {
  (key: string, options?: GuardOptions): <A extends Tagged, E, R>(self: Stream.Stream<A, E, R>) => Stream.Stream<A, E | BudgetError, R | Budget>
  <A extends Tagged, E, R>(self: Stream.Stream<A, E, R>, key: string, options?: GuardOptions): Stream.Stream<A, E | BudgetError, R | Budget>
} = dual(
  (args) => Stream.isStream(args[0]),
  <A extends Tagged, E, R>(self: Stream.Stream<A, E, R>, key: string, options: GuardOptions = {}) =>
    Stream.unwrap(Effect.gen(function*() {
      const budget = yield* Budget
      const start = yield* check(key)
      const state = yield* Ref.make<RunState>({ pending: new Map(), totals: new Map() })
      const crossed = yield* Ref.make<Option.Option<BudgetError>>(Option.none())
      const chargePending = Effect.flatMap(
        Ref.modify(state, (s) => [sum(s.pending.values()), { ...s, pending: new Map() }]),
        (cost) => cost.usd === 0 && cost.tokens === 0 ? Effect.void : Effect.asVoid(budget.charge(key, cost))
      )
      const step = (element: Tagged): Effect.Effect<void, BudgetError> => {
        const message = element as Message.Message
        if (message._tag === "AssistantMessage") {
          return Effect.gen(function*() {
            const s = yield* Ref.updateAndGet(state, (s) => ({ ...s, pending: new Map(s.pending).set(message.message.id, estimateOf(message)) }))
            if (budget.onCross === "finish" || Option.isSome(yield* Ref.get(crossed))) return
            const estimate = sum(s.pending.values())
            const error = over(key, budget.limitOf(key), sum([start, estimate]), true)
            if (Option.isNone(error)) return
            yield* Ref.set(crossed, error)
            if (options.onCrossed === undefined) return yield* Effect.fail(error.value)
            yield* options.onCrossed
          })
        }
        if (message._tag !== "ResultSuccess" && message._tag !== "ResultError") return Effect.void
        return Effect.gen(function*() {
          const cost = yield* Ref.modify(state, (s) => {
            const cost = costOfResult(message, s.totals.get(message.session_id) ?? 0)
            return [cost, { pending: new Map(), totals: new Map(s.totals).set(message.session_id, message.total_cost_usd) }]
          })
          yield* budget.charge(key, cost)
          const error = yield* Ref.get(crossed)
          if (Option.isSome(error)) return yield* Effect.fail(error.value)
        })
      }
      // The message that crosses the limit is given before the failure: nothing decoded is lost.
      return self.pipe(
        Stream.flatMap((message) =>
          Stream.concat(Stream.succeed(message), Stream.fromEffect(step(message)).pipe(Stream.drain))
        ),
        Stream.onExit(() => Effect.ignore(chargePending))
      )
    }))
)

/**
 * @since 0.1.0
 * @category models
 */
export interface GuardOptions {
  /** Run when a run's estimate crosses a limit (a session's `interrupt`); the stream then goes on to the result. */
  readonly onCrossed?: Effect.Effect<unknown> | undefined
}
