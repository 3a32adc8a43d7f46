/**
 * Filters over {@link Item}s. A filter is at once a refinement
 * (`Stream.filter(items, Filter.toolUse("Read"))` yields typed `Read` tool
 * uses), a plain predicate (`items.filter(Filter.error)`), and data with a
 * text form (`describe` and `parse`, see `Syntax`). Use {@link toFilter} for
 * Effect's `Filter` module.
 *
 * @example
 * ```ts
 * import { Stream } from "effect"
 * import { Filter, Item } from "effect-claude-code/filter"
 * declare const items: Stream.Stream<Item.Item>
 * const commands = items.pipe(
 *   Stream.filter(Filter.toolUse("Bash")),
 *   Stream.map((item) => item.input.command)
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as EffectFilter from "effect/Filter"
import * as Hash from "effect/Hash"
import { NodeInspectSymbol } from "effect/Inspectable"
import { pipeArguments, type Pipeable } from "effect/Pipeable"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import * as SchemaIssue from "effect/SchemaIssue"
import * as ToolInput from "../schema/ToolInput.ts"
import * as Ast from "./Ast.ts"
import * as Calls from "./internal/calls.ts"
import * as Decisions from "./internal/decisions.ts"
import { evaluate } from "./internal/evaluate.ts"
import type * as Item from "./Item.ts"
import * as Syntax from "./Syntax.ts"

const TypeId = "~effect-claude-code/Filter"

/**
 * A filter that selects items of type `A`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Filter<out A extends Item.Item = Item.Item> extends Pipeable, Equal.Equal {
  (item: Item.Item): item is A
  readonly [TypeId]: typeof TypeId
  /** The filter as data. */
  readonly ast: Ast.Ast
}

/**
 * The items a filter selects.
 *
 * @since 0.1.0
 * @category models
 */
export type Selected<F> = F extends Filter<infer A> ? A : never

// Filters are equal by form, after `Ast.normalize`: `and`/`or` operands as sets, `not(not(f))` is `f`,
// `all`/`none` absorbed. Whether two forms select the same items is not decided (`text & !text` is not
// `none`). A code predicate is equal only to itself: two closures written alike are not equal.

const FilterProto = Object.assign(Object.create(Function.prototype), {
  [TypeId]: TypeId,
  [Equal.symbol](this: Filter, that: unknown): boolean {
    return isFilter(that) && Equal.equals(Ast.normalize(this.ast), Ast.normalize(that.ast))
  },
  [Hash.symbol](this: Filter): number {
    return Hash.hash(Ast.normalize(this.ast))
  },
  pipe() {
    return pipeArguments(this, arguments)
  },
  // What `Item.select` holds a call for, when the filter's verdict on it can need its result.
  [Decisions.key](this: Filter) {
    return Calls.make(this.ast)
  },
  toString(this: Filter) {
    return `Filter(${Syntax.describeAst(this.ast)})`
  },
  toJSON(this: Filter) {
    return { _id: "Filter", filter: Syntax.describeAst(this.ast) }
  },
  [NodeInspectSymbol](this: Filter) {
    return { _id: "Filter", filter: Syntax.describeAst(this.ast) }
  }
})

/**
 * A filter from its tree.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromAst = <A extends Item.Item = Item.Item>(ast: Ast.Ast): Filter<A> => {
  const self = ((item: Item.Item) => evaluate(ast, item)) as unknown as { -readonly [K in keyof Filter<A>]: Filter<A>[K] }
  Object.setPrototypeOf(self, FilterProto)
  self.ast = ast
  return self as unknown as Filter<A>
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isFilter = (u: unknown): u is Filter => Predicate.hasProperty(u, TypeId)

/**
 * Text blocks of assistant messages.
 *
 * @since 0.1.0
 * @category atoms
 */
export const text: Filter<Item.TextItem> = fromAst(Ast.flag("Text"))

/**
 * Thinking blocks of assistant messages.
 *
 * @since 0.1.0
 * @category atoms
 */
export const thinking: Filter<Item.ThinkingItem> = fromAst(Ast.flag("Thinking"))

/**
 * Errors: tool results flagged `is_error` and the tool calls they answer,
 * error results (`is_error` or an error subtype), API retries, the blocks of
 * assistant messages that report an API error (`"error": "authentication_failed"`)
 * and, with `onBadLine: "emit"`, lines that failed to decode.
 *
 * A call's failure is known only from its result, later in the stream:
 * `Item.select` and `Views.errorsOnly` hold a call until then. As a plain
 * predicate on one item, a call is an error only as part of an API error
 * message.
 *
 * @since 0.1.0
 * @category atoms
 */
export const error: Filter = fromAst(Ast.flag("Error"))

/**
 * Tool results the permission system refused and the tool calls they
 * answer, and `permission_denied` system messages. A call is denied when its
 * result is, as `error` (which see) is told: by `Item.select`, not by the
 * plain predicate.
 *
 * @since 0.1.0
 * @category atoms
 */
export const permissionDenied: Filter<Item.ToolUseItem | Item.ToolResultItem | Item.SystemItem> = fromAst(Ast.flag("Denied"))

/**
 * Tool uses whose input fits the input schema of their tool (see
 * `ToolInput`); the input of a tool without a schema (MCP tools, tools newer
 * than this library) always fits. `toolUse("Read")` includes it; on its own
 * it finds the calls a typed filter leaves out: `and(toolUse(), not(typed))`.
 *
 * @since 0.1.0
 * @category atoms
 */
export const typed: Filter<Item.ToolUseItem> = fromAst(Ast.flag("Typed"))

/**
 * Items of subagent messages (those with a `parent_tool_use_id`).
 *
 * @since 0.1.0
 * @category atoms
 */
export const subagent: Filter = fromAst(Ast.flag("Subagent"))

/**
 * Items of the main agent's messages (no `parent_tool_use_id`).
 *
 * @since 0.1.0
 * @category atoms
 */
export const main: Filter = fromAst(Ast.flag("Main"))

/**
 * Every item: the unit of {@link and} (`and()` is `all`).
 *
 * `all` and {@link none} are filters, not combinators: "none of these
 * filters" would select every item when given no filter, the opposite of the
 * `none` atom, and the text syntax has them as atoms. Combine with
 * `and(...filters)` (all of them) and `not(or(...filters))` (none of them).
 *
 * @since 0.1.0
 * @category atoms
 */
export const all: Filter = fromAst(Ast.flag("All"))

/**
 * No item: the unit of {@link or} (`or()` is `none`). For "none of these
 * filters" use `not(or(...filters))` (see {@link all}).
 *
 * @since 0.1.0
 * @category atoms
 */
export const none: Filter<never> = fromAst(Ast.flag("None"))

type NameOf<N extends string> = N extends `${string}*${string}` | `${string}?${string}` ? string : N

/**
 * `tool_use` blocks of assistant messages: all of them, those of a tool
 * name or name glob (`mcp__github__*`), optionally also satisfying a
 * predicate on the typed input.
 *
 * For a built-in tool name the input is checked against the tool's schema
 * (see `ToolInput`), so the narrowed type is true at run time: the filter is
 * `tool:NAME & typed`, and calls whose input does not fit are left to
 * `{ typed: false }` (every call of the name, input `unknown`) and to
 * {@link typed}, so no call is lost silently. The predicate only sees inputs
 * that fit.
 *
 * @example
 * ```ts
 * import { Filter } from "effect-claude-code/filter"
 * const bash = Filter.toolUse("Bash")
 * const gitCommands = Filter.toolUse("Bash", (input) => input.command.startsWith("git "), "git")
 * const everyBashCall = Filter.toolUse("Bash", { typed: false })
 * const github = Filter.toolUse("mcp__github__*")
 * ```
 *
 * @since 0.1.0
 * @category atoms
 */
export const toolUse: {
  (): Filter<Item.ToolUseItem>
  <const N extends string>(name: N): Filter<Item.ToolUseItem<NameOf<N>>>
  <const N extends string>(name: N, options: { readonly typed: false }): Filter<Item.ToolUseItem<NameOf<N>, unknown>>
  <const N extends string>(
    name: N,
    where: (input: ToolInput.InputOf<NameOf<N>>, item: Item.ToolUseItem<NameOf<N>>) => boolean,
    label?: string
  ): Filter<Item.ToolUseItem<NameOf<N>>>
  (where: (item: Item.ToolUseItem) => boolean, label?: string): Filter<Item.ToolUseItem>
} = (
  nameOrWhere?: string | ((item: Item.ToolUseItem) => boolean),
  second?: ((input: any, item: Item.ToolUseItem) => boolean) | { readonly typed: false } | string,
  label?: string
): Filter<any> => {
  if (Predicate.isFunction(nameOrWhere)) {
    return fromAst(Ast.and([{ _tag: "ToolUse", name: undefined }, whereAst("item", nameOrWhere, second as string | undefined)]))
  }
  const atom: Ast.Ast = { _tag: "ToolUse", name: nameOrWhere }
  const untyped = typeof second === "object" && second.typed === false
  // Only a known tool's name narrows the input, so only then is the input checked.
  const narrowed = nameOrWhere !== undefined && !untyped && ToolInput.isKnownToolName(nameOrWhere)
    ? [atom, Ast.flag("Typed")]
    : [atom]
  if (!Predicate.isFunction(second)) return fromAst(Ast.and(narrowed))
  return fromAst(Ast.and([...narrowed, whereAst("input", second, label)]))
}

// The caller's own function is kept (not wrapped), so the same predicate gives equal filters.
const whereAst = (on: Ast.Where["on"], predicate: Ast.Where["predicate"], label: string | undefined): Ast.Where => ({
  _tag: "Where",
  label: label ?? (predicate.name || "where"),
  on,
  predicate
})

const inputAtom = <A extends Item.Item>(on: Ast.Input["on"], pattern: string, field?: string): Filter<A> =>
  fromAst({ _tag: "Input", on, field, pattern })

/**
 * `Bash` calls whose command matches a glob (`*` any run of characters,
 * spaces included: `"git status*"` also matches `git status; rm -rf x`).
 * Text form `command:GLOB`.
 *
 * @example
 * ```ts
 * import { Filter } from "effect-claude-code/filter"
 * const git = Filter.command("git *")
 * ```
 *
 * @since 0.1.0
 * @category atoms
 */
export const command = (glob: string): Filter<Item.ToolUseItem<"Bash", { readonly command: string }>> =>
  inputAtom("command", glob)

/**
 * The file tools `path` reads, each with the field holding its file or directory.
 *
 * @since 0.1.0
 * @category models
 */
export type PathTool = keyof typeof Ast.pathFields

/**
 * A call of a file tool, its path field a string.
 *
 * @since 0.1.0
 * @category models
 */
export type PathToolUseItem = {
  readonly [T in PathTool]: Item.ToolUseItem<T, { readonly [F in (typeof Ast.pathFields)[T]]: string }>
}[PathTool]

/**
 * Calls of a file tool (`Read`, `Write`, `Edit`, `MultiEdit`, `NotebookEdit`,
 * `Glob`, `Grep`, `LS`) whose file or directory matches a path glob: `*`
 * stays within a segment, `**` crosses them (see `Ast.matchPath`). Text form
 * `path:GLOB`.
 *
 * @example
 * ```ts
 * import { Filter } from "effect-claude-code/filter"
 * const sources = Filter.and(Filter.toolUse("Read"), Filter.path("src/**"))
 * ```
 *
 * @since 0.1.0
 * @category atoms
 */
export const path = (glob: string): Filter<PathToolUseItem> => inputAtom("path", glob)

/**
 * `WebFetch` calls whose URL matches a glob (`*` any run of characters).
 * Text form `url:GLOB`.
 *
 * @since 0.1.0
 * @category atoms
 */
export const url = (glob: string): Filter<Item.ToolUseItem<"WebFetch", { readonly url: string }>> => inputAtom("url", glob)

/**
 * Calls of any tool, MCP tools included, whose input field `field` is a
 * string matching a glob (`*` any run of characters); a dotted name reaches
 * into objects (`"options.mode"`). Text form `input.FIELD:GLOB`: a field name
 * with characters other than letters, digits, `_`, `-` and `.` has none.
 *
 * @example
 * ```ts
 * import { Filter } from "effect-claude-code/filter"
 * const repos = Filter.and(Filter.toolUse("mcp__github__*"), Filter.input("repo", "effect-*"))
 * ```
 *
 * @since 0.1.0
 * @category atoms
 */
export const input = <const F extends string>(
  field: F,
  glob: string
): Filter<Item.ToolUseItem<string, F extends `${string}.${string}` ? unknown : { readonly [K in F]: string }>> =>
  inputAtom("field", glob, field)

/**
 * `tool_result` blocks: all of them, those answering a tool of a name or
 * glob, those with or without `is_error`. `isError` is the `error` atom
 * (`toolResult({ name: "Bash", isError: true })` is `result:Bash & error`).
 *
 * @since 0.1.0
 * @category atoms
 */
export const toolResult = (options?: {
  readonly name?: string | undefined
  readonly isError?: boolean | undefined
}): Filter<Item.ToolResultItem> => {
  const atom: Ast.Ast = { _tag: "ToolResult", name: options?.name }
  const flag = Ast.flag("Error")
  return fromAst(
    options?.isError === undefined ? atom : Ast.and([atom, options.isError ? flag : Ast.not(flag)])
  )
}

/**
 * `system` messages, optionally of one subtype (`init`, `api_retry`, ...).
 *
 * @since 0.1.0
 * @category atoms
 */
export const system = (subtype?: string): Filter<Item.SystemItem> => fromAst({ _tag: "System", subtype })

/**
 * Items of messages of a wire `type` (`assistant`, `user`, `system`,
 * `result`, `stream_event`, `rate_limit_event`, ...).
 *
 * @since 0.1.0
 * @category atoms
 */
export const messageType = (type: string): Filter => fromAst({ _tag: "MessageType", type })

/**
 * Items of one session.
 *
 * @since 0.1.0
 * @category atoms
 */
export const session = (id: string): Filter => fromAst({ _tag: "Session", id })

/**
 * Items of the subagent that a `Task`/`Agent` tool use started.
 *
 * @since 0.1.0
 * @category atoms
 */
export const fromTask = (toolUseId: string): Filter => fromAst({ _tag: "FromTask", toolUseId })

/**
 * `stream_event` items (with `--include-partial-messages`), optionally of one
 * kind: an event type (`message_start`) or a delta type (`text_delta`, or
 * just `text`).
 *
 * @since 0.1.0
 * @category atoms
 */
export const delta = (kind?: string): Filter<Item.StreamEventItem> => fromAst({ _tag: "Delta", kind })

/**
 * The items every filter of a tuple selects.
 *
 * @since 0.1.0
 * @category models
 */
export type AllSelected<Fs extends ReadonlyArray<unknown>> = Fs extends readonly [infer Head, ...infer Tail]
  ? Selected<Head> & AllSelected<Tail>
  : unknown

/**
 * Items selected by every filter, tested in the order given (a code
 * predicate after the atoms that narrow what it receives). Nested
 * conjunctions are flattened; order, repetition and grouping do not change
 * equality. With no filter it is {@link all}.
 *
 * @since 0.1.0
 * @category combinators
 */
export const and = <const Fs extends ReadonlyArray<Filter<any>>>(
  ...filters: Fs
): Filter<Extract<AllSelected<Fs>, Item.Item>> =>
  fromAst(Ast.and(filters.map((f) => f.ast)))

/**
 * Items selected by any filter. Nested disjunctions are flattened; order,
 * repetition and grouping do not change equality. With no filter it is
 * {@link none}.
 *
 * @since 0.1.0
 * @category combinators
 */
export const or = <const Fs extends ReadonlyArray<Filter<any>>>(...filters: Fs): Filter<Selected<Fs[number]>> =>
  fromAst(Ast.or(filters.map((f) => f.ast)))

/**
 * Items the filter does not select; `not(not(f))` is `f`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const not = (filter: Filter<any>): Filter => fromAst(Ast.not(filter.ast))

/**
 * A filter from a predicate written in code. It has no text form: `describe`
 * prints `<label>`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const where: {
  <A extends Item.Item>(refinement: (item: Item.Item) => item is A, label?: string): Filter<A>
  (predicate: (item: Item.Item) => boolean, label?: string): Filter
} = (predicate: (item: Item.Item) => boolean, label?: string): Filter<any> => fromAst(whereAst("item", predicate, label))

/**
 * The filter's text form, which {@link parse} reads back to an equal filter
 * (unless it holds a code predicate).
 *
 * @since 0.1.0
 * @category printing
 */
export const describe = (filter: Filter<any>): string => Syntax.describeAst(filter.ast)

/**
 * Parses filter text (see `Syntax` for the grammar).
 *
 * @example
 * ```ts
 * import { Filter } from "effect-claude-code/filter"
 * import { Result } from "effect"
 * const result = Filter.parseResult("tool:Bash | result:Bash & error")
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseResult = (text: string): Result.Result<Filter, Syntax.FilterSyntaxError> =>
  Result.map(Syntax.parseAst(text), (ast) => fromAst(ast))

/**
 * Parses filter text, failing with a `FilterSyntaxError` that names the column and what was expected.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Effect.Effect<Filter, Syntax.FilterSyntaxError> => Effect.fromResult(parseResult(text))

/**
 * The filter as a function for Effect's `Filter` module: passes the
 * selected items, narrowed, and fails with the others.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toFilter = <A extends Item.Item>(filter: Filter<A>): EffectFilter.Filter<Item.Item, A, Item.Item> =>
  EffectFilter.fromPredicate(filter)

/**
 * A schema from filter text to a filter, for configuration files and
 * command-line options; encoding gives back the text form.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FilterFromString: Schema.decodeTo<Schema.declare<Filter>, Schema.String> = Schema.String.pipe(
  Schema.decodeTo(Schema.declare(isFilter, { expected: "Filter" }), {
    decode: SchemaGetter.transformEffect((text: string, options) =>
      Result.match(parseResult(text), {
        onSuccess: Effect.succeed,
        onFailure: (e) => Effect.fail(new SchemaIssue.InvalidValue({ message: e.message }, text, options))
      })
    ),
    encode: SchemaGetter.transform(describe)
  })
)
