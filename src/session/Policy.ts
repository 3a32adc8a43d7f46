/**
 * Permission policies written in the filter language: ordered rules `allow | deny | ask FILTER ["reason"]`,
 * the first whose filter selects the call decides, else the default. A policy is a `canUseTool` for sessions
 * and entities ({@link canUseTool}), with each decision an event on a stream ({@link track}).
 *
 * A policy's text, one rule a line (`#` starts a comment line):
 *
 * ```text
 * allow tool:Read & path:src/**
 * allow tool:Bash & command:"git status*"
 * deny  tool:Bash & command:"rm *"   "no deleting"
 * default ask
 * ```
 *
 * The reason, a JSON string at the end of the line, is what the model is told on a deny. Without a `default`
 * line the default is `ask`. `ask` defers to the `ask` callback given to {@link canUseTool}; with none, the
 * call is denied, with a message saying that the policy asked and no one could answer.
 *
 * A rule sees what a permission request carries: the tool's name and input (`tool`, `typed`, `command`,
 * `path`, `url`, `input.FIELD`). {@link make} and {@link parse} report, as {@link PolicyWarning}s, a policy
 * that allows every call, and a rule that can never decide: one that selects no tool call, one that reads
 * what a request does not carry (`text`, `error`, `denied`, `session:ID`, ...), one an earlier rule hides.
 *
 * Globs match the whole string (`command:"git status*"` also matches `git status; rm -rf x`), and a relative
 * path glob matches at any depth (`path:src/**` also matches `/elsewhere/src/x`; write the absolute directory to
 * confine calls to one tree): allow narrowly, deny broadly.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import * as PubSub from "effect/PubSub"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Ast from "../filter/Ast.ts"
import * as Filter from "../filter/Filter.ts"
import { kindsOf } from "../filter/internal/kinds.ts"
import type * as Item from "../filter/Item.ts"
import * as Syntax from "../filter/Syntax.ts"
import { describe } from "./internal/describe.ts"
import * as CanUseTool from "./CanUseTool.ts"

/**
 * @since 0.1.0
 * @category models
 */
export type Action = "allow" | "deny" | "ask"

const actions: ReadonlyArray<Action> = ["allow", "deny", "ask"]

/**
 * One rule: what it does to the calls its filter selects, and why (told to the model on a deny).
 *
 * @since 0.1.0
 * @category models
 */
export interface Rule {
  readonly action: Action
  readonly filter: Filter.Filter<any>
  readonly reason: string | undefined
  /** 1-based line of the policy text it was read from. */
  readonly line: number | undefined
}

/**
 * What {@link make} and {@link parse} report of a policy that is legal but likely not what was meant.
 *
 * - `AllowsEverything`: every call is allowed (the default or a rule that selects every call, with no deny or
 *   ask before it).
 * - `NeverMatches`: the rule selects no tool call (`text`, `tool:Read & command:*`).
 * - `NotInRequest`: the rule reads what a permission request does not carry (`error`, `denied`, `session:ID`,
 *   `subagent`, ...): it is tested against the call alone.
 * - `Shadowed`: an earlier rule selects every call this one does, so it never decides.
 *
 * @since 0.1.0
 * @category models
 */
export class PolicyWarning extends Schema.TaggedClass<PolicyWarning>()("PolicyWarning", {
  reason: Schema.Literals(["AllowsEverything", "NeverMatches", "NotInRequest", "Shadowed"]),
  /** 0-based index of the rule, if the warning is about one. */
  rule: Schema.optional(Schema.Number),
  line: Schema.optional(Schema.Number),
  message: Schema.String
}) {}

/**
 * A policy: its rules in order, its default, and what was found questionable in them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  readonly rules: ReadonlyArray<Rule>
  readonly default: Action
  readonly defaultReason: string | undefined
  readonly warnings: ReadonlyArray<PolicyWarning>
}

// What every reason carries: the 1-based line, its text, and what is wrong with it.
const lineFields = { line: Schema.Number, text: Schema.String, detail: Schema.String }

const describeLine = (self: { readonly line: number; readonly text: string; readonly detail: string }) =>
  `policy line ${self.line}: ${self.detail}\n  ${self.text}`

/**
 * A line that starts with neither `allow`, `deny`, `ask` nor `default`, or a `default` of none of the actions.
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnknownAction extends Schema.TaggedError<UnknownAction>()("UnknownAction", lineFields) {
  override get message(): string {
    return describeLine(this)
  }
}

/**
 * A rule with no filter after its action.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MissingFilter extends Schema.TaggedError<MissingFilter>()("MissingFilter", lineFields) {
  override get message(): string {
    return describeLine(this)
  }
}

/**
 * A rule whose filter does not parse; `filter` says where and why.
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidFilter extends Schema.TaggedError<InvalidFilter>()("InvalidFilter", {
  ...lineFields,
  filter: Syntax.FilterSyntaxError
}) {
  override get message(): string {
    return describeLine(this)
  }
}

/**
 * A second `default` line.
 *
 * @since 0.1.0
 * @category reasons
 */
export class DuplicateDefault extends Schema.TaggedError<DuplicateDefault>()("DuplicateDefault", lineFields) {
  override get message(): string {
    return describeLine(this)
  }
}

/**
 * A reason that is not a whole JSON string (a bad escape).
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidReason extends Schema.TaggedError<InvalidReason>()("InvalidReason", lineFields) {
  override get message(): string {
    return describeLine(this)
  }
}

const reasons = { UnknownAction, MissingFilter, InvalidFilter, DuplicateDefault, InvalidReason }

/**
 * A policy text that does not read: the `reason` names the line, its text and what is wrong. Recover by
 * reason with `Effect.catchReason("PolicyError", "InvalidFilter", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class PolicyError extends Schema.TaggedError<PolicyError>()("PolicyError", {
  reason: Schema.Union([UnknownAction, MissingFilter, InvalidFilter, DuplicateDefault, InvalidReason])
}) {
  /**
   * 1-based.
   *
   * @since 0.1.0
   */
  get line(): number {
    return this.reason.line
  }
  override get message(): string {
    return this.reason.message
  }
}

const rule = (action: Action) => (filter: Filter.Filter<any>, reason?: string): Rule => ({
  action,
  filter,
  reason,
  line: undefined
})

/**
 * A rule allowing the calls `filter` selects.
 *
 * @since 0.1.0
 * @category constructors
 */
export const allow: (filter: Filter.Filter<any>, reason?: string) => Rule = rule("allow")

/**
 * A rule denying the calls `filter` selects; `reason` is what the model is told.
 *
 * @since 0.1.0
 * @category constructors
 */
export const deny: (filter: Filter.Filter<any>, reason?: string) => Rule = rule("deny")

/**
 * A rule deferring the calls `filter` selects to the `ask` callback (see {@link canUseTool}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const ask: (filter: Filter.Filter<any>, reason?: string) => Rule = rule("ask")

/**
 * A rule as a line of policy text.
 *
 * @since 0.1.0
 * @category printing
 */
export const describeRule = (rule: Rule): string =>
  `${rule.action} ${Filter.describe(rule.filter)}${rule.reason === undefined ? "" : ` ${JSON.stringify(rule.reason)}`}`

// Atoms a permission request gives nothing to test against.
const notInRequest: ReadonlySet<Ast.Ast["_tag"]> = new Set([
  "Text",
  "Thinking",
  "Error",
  "Denied",
  "ToolResult",
  "System",
  "MessageType",
  "Session",
  "Subagent",
  "Main",
  "FromTask",
  "Delta"
])

const atomsOf = (ast: Ast.Ast): ReadonlyArray<Ast.Ast> =>
  ast._tag === "Not" ? atomsOf(ast.filter) : ast._tag === "And" || ast._tag === "Or" ? ast.filters.flatMap(atomsOf) : [ast]

// The tools an input atom implies.
const impliedTools = (ast: Ast.Ast): ReadonlyArray<string> | undefined => {
  if (ast._tag === "ToolUse" && ast.name !== undefined && !Ast.isGlob(ast.name)) return [ast.name]
  if (ast._tag !== "Input") return undefined
  return ast.on === "command" ? ["Bash"] : ast.on === "url" ? ["WebFetch"] : ast.on === "path" ? Object.keys(Ast.pathFields) : undefined
}

// Whether the operands of a conjunction ask for tools no call can be at once (`tool:Read & command:*`).
const contradictsTools = (ast: Ast.Ast): boolean => {
  if (ast._tag === "Or") return ast.filters.every(contradictsTools)
  if (ast._tag !== "And") return false
  if (ast.filters.some(contradictsTools)) return true
  let tools: ReadonlyArray<string> | undefined
  for (const operand of ast.filters) {
    const implied = impliedTools(operand)
    if (implied !== undefined) tools = tools === undefined ? implied : tools.filter((t) => implied.includes(t))
  }
  const globs = ast.filters.flatMap((f) => f._tag === "ToolUse" && f.name !== undefined && Ast.isGlob(f.name) ? [f.name] : [])
  return tools !== undefined && tools.filter((t) => globs.every((g) => Ast.matchName(g, t))).length === 0
}

// Whether a filter selects every tool call.
const selectsEveryCall = (ast: Ast.Ast): boolean => {
  const n = Ast.normalize(ast)
  return n._tag === "All" || (n._tag === "ToolUse" && (n.name === undefined || /^\*+$/.test(n.name))) ||
    (n._tag === "Or" && n.filters.some(selectsEveryCall))
}

const neverMatches = (ast: Ast.Ast): string | undefined => {
  const kinds = kindsOf(ast)
  if (kinds !== undefined && !kinds.has("tool_use")) return "it selects no tool call"
  if (Ast.normalize(ast)._tag === "None") return "it selects nothing"
  if (contradictsTools(ast)) return "its parts ask for different tools"
  return undefined
}

const warningsOf = (rules: ReadonlyArray<Rule>, defaultAction: Action): Array<PolicyWarning> => {
  const warnings: Array<PolicyWarning> = []
  const warn = (reason: PolicyWarning["reason"], index: number | undefined, why: string) => {
    const r = index === undefined ? undefined : rules[index]!
    const where = r === undefined ? "the policy" : `rule ${index! + 1} (${describeRule(r)})`
    warnings.push(new PolicyWarning({ reason, rule: index, line: r?.line, message: `${where}: ${why}` }))
  }
  let catchAll: number | undefined
  rules.forEach((r, i) => {
    if (catchAll !== undefined) return warn("Shadowed", i, `rule ${catchAll + 1} before it selects every call`)
    const earlier = rules.findIndex((e, j) => j < i && Equal.equals(e.filter, r.filter))
    if (earlier !== -1) return warn("Shadowed", i, `rule ${earlier + 1} before it has the same filter`)
    const never = neverMatches(r.filter.ast)
    if (never !== undefined) return warn("NeverMatches", i, never)
    const unknown = atomsOf(r.filter.ast).find((a) => notInRequest.has(a._tag))
    if (unknown !== undefined) {
      warn("NotInRequest", i, `${Syntax.describeAst(unknown)} is not part of a permission request`)
    }
    if (selectsEveryCall(r.filter.ast)) catchAll = i
  })
  const decisive = catchAll === undefined ? defaultAction : rules[catchAll]!.action
  const restricted = rules.slice(0, catchAll).some((r) => r.action !== "allow")
  if (decisive === "allow" && !restricted) {
    warn("AllowsEverything", catchAll, "every call is allowed: no rule denies or asks before it")
  }
  return warnings
}

/**
 * A policy from rules written in code, with its warnings. The default, for calls no rule selects, is `ask`
 * unless given.
 *
 * @example
 * ```ts
 * import { Filter } from "effect-claude-code/filter"
 * import { Policy } from "effect-claude-code/session"
 *
 * const policy = Policy.make([
 *   Policy.allow(Filter.and(Filter.toolUse("Read"), Filter.path("src/**"))),
 *   Policy.deny(Filter.command("rm *"), "no deleting")
 * ], { default: "ask" })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  rules: ReadonlyArray<Rule>,
  options: { readonly default?: Action | undefined; readonly defaultReason?: string | undefined } = {}
): Policy => {
  const defaultAction = options.default ?? "ask"
  return { rules, default: defaultAction, defaultReason: options.defaultReason, warnings: warningsOf(rules, defaultAction) }
}

// The JSON string that ends a line, if it is a reason: after a space, not a value after `:`.
const splitReason = (body: string): { readonly filter: string; readonly reason: string | undefined } => {
  let start = -1
  let end = -1
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== "\"") continue
    const from = i
    for (i++; i < body.length && body[i] !== "\""; i++) if (body[i] === "\\") i++
    start = from
    end = i + 1
  }
  if (start <= 0 || end !== body.length || !/\s/u.test(body[start - 1]!)) return { filter: body, reason: undefined }
  return { filter: body.slice(0, start).trimEnd(), reason: body.slice(start) }
}

const parseLines = (text: string): Policy => {
  const rules: Array<Rule> = []
  let defaultLine: { readonly action: Action; readonly reason: string | undefined; readonly line: number } | undefined
  text.split(/\r?\n/u).forEach((raw, i) => {
    const line = i + 1
    const trimmed = raw.trim()
    if (trimmed === "" || trimmed.startsWith("#")) return
    const fail = (reason: Exclude<keyof typeof reasons, "InvalidFilter">, detail: string): never => {
      throw new PolicyError({ reason: new reasons[reason]({ line, text: trimmed, detail }) })
    }
    const [word = ""] = trimmed.split(/\s/u, 1)
    const body = trimmed.slice(word.length).trim()
    const { filter, reason: quoted } = splitReason(body)
    let reason: string | undefined
    if (quoted !== undefined) {
      try {
        reason = JSON.parse(quoted) as string
      } catch {
        fail("InvalidReason", `the reason ${quoted} is not a JSON string`)
      }
    }
    const action = word.toLowerCase()
    if (action === "default") {
      if (defaultLine !== undefined) fail("DuplicateDefault", `a second default (the first is on line ${defaultLine.line})`)
      if (!actions.includes(filter as Action)) fail("UnknownAction", `expected allow, deny or ask after "default", found "${filter}"`)
      defaultLine = { action: filter as Action, reason, line }
      return
    }
    if (!actions.includes(action as Action)) {
      fail("UnknownAction", `expected allow, deny, ask or default, found "${word}"`)
    }
    if (filter === "") fail("MissingFilter", `expected a filter after "${word}"`)
    const parsed = Filter.parseResult(filter)
    if (Result.isFailure(parsed)) {
      throw new PolicyError({ reason: new InvalidFilter({ line, text: trimmed, detail: parsed.failure.message, filter: parsed.failure }) })
    }
    rules.push({ action: action as Action, filter: parsed.success, reason, line })
  })
  return make(rules, { default: defaultLine?.action, defaultReason: defaultLine?.reason })
}

/**
 * Reads a policy text (see the module's documentation); its warnings are on the policy.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Effect.Effect<Policy, PolicyError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(parseLines(text))
    } catch (e) {
      if (e instanceof PolicyError) return Effect.fail(e)
      throw e
    }
  })

/**
 * Reads a policy file.
 *
 * @since 0.1.0
 * @category parsing
 */
export const load = (file: string): Effect.Effect<Policy, PolicyError | PlatformError.PlatformError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => Effect.flatMap(fs.readFileString(file), parse))

/**
 * One decision of a policy: the call, the rule that selected it (`undefined`: the default decided), its
 * action, and the answer given (for `ask`, the `ask` callback's).
 *
 * @since 0.1.0
 * @category models
 */
export interface Decision {
  readonly toolName: string
  readonly input: Readonly<Record<string, unknown>>
  readonly toolUseId: string | undefined
  readonly rule: Rule | undefined
  /** 0-based index of the rule. */
  readonly ruleIndex: number | undefined
  readonly action: Action
  readonly decision: CanUseTool.Decision
}

// A permission request as the tool call item the filters read; the message is only the call's.
const callItem = (toolName: string, input: Readonly<Record<string, unknown>>, id: string): Item.ToolUseItem => {
  const block = { _tag: "ToolUseBlock", type: "tool_use", id, name: toolName, input }
  const message = { _tag: "AssistantMessage", type: "assistant", message: { content: [block] }, parent_tool_use_id: null }
  return {
    kind: "tool_use",
    role: "assistant",
    id,
    name: toolName,
    input,
    block,
    message,
    messageType: "assistant",
    sessionId: undefined,
    uuid: undefined,
    parentToolUseId: null,
    messageIndex: 0,
    blockIndex: 0
  } as unknown as Item.ToolUseItem
}

/**
 * The rule of a policy that decides a call (`undefined`: the default).
 *
 * @since 0.1.0
 * @category running
 */
export const match = (policy: Policy, toolName: string, input: Readonly<Record<string, unknown>>): number | undefined => {
  const item = callItem(toolName, input, "")
  const index = policy.rules.findIndex((r) => r.filter(item))
  return index === -1 ? undefined : index
}

/**
 * What {@link canUseTool} does besides deciding.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<R> {
  /** Decides the calls the policy asks about; without it they are denied. */
  readonly ask?: CanUseTool.CanUseTool<R> | undefined
  /** Told each decision, once made. */
  readonly onDecision?: ((decision: Decision) => Effect.Effect<void>) | undefined
}

const askFailed = (cause: Cause.Cause<unknown>) => CanUseTool.deny(`The ask callback of the permission policy failed: ${describe(cause)}`)

/**
 * The policy as a `canUseTool` callback (`Session.make({ canUseTool })`, an `AgentSession` entity's options).
 * A call the policy asks about goes to `options.ask`; with none, it is denied with a message saying so.
 *
 * @since 0.1.0
 * @category running
 */
export const canUseTool = <R = never>(policy: Policy, options: Options<R> = {}): CanUseTool.CanUseTool<R> =>
(toolName, input, context) =>
  Effect.gen(function*() {
    const ruleIndex = match(policy, toolName, input)
    const rule = ruleIndex === undefined ? undefined : policy.rules[ruleIndex]!
    const action = rule?.action ?? policy.default
    const reason = rule === undefined ? policy.defaultReason : rule.reason
    const source = rule === undefined ? "the policy's default" : `policy rule ${ruleIndex! + 1} (${describeRule(rule)})`
    let decision: CanUseTool.Decision
    if (action === "allow") decision = CanUseTool.allow()
    else if (action === "deny") decision = CanUseTool.deny(reason ?? `Denied by ${source}.`)
    else if (options.ask === undefined) {
      decision = CanUseTool.deny(reason ?? `${toolName} needs approval (${source} asks) and no one can give it here.`)
    } else {
      const exit = yield* Effect.exit(options.ask(toolName, input, context))
      if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
      decision = Exit.isSuccess(exit) ? exit.value : askFailed(exit.cause)
    }
    if (options.onDecision !== undefined) {
      yield* options.onDecision({ toolName, input, toolUseId: context.toolUseId, rule, ruleIndex, action, decision })
    }
    return decision
  })

// Closes the decision streams.
const end: unique symbol = Symbol("effect-claude-code/Policy/end")

/**
 * A policy's `canUseTool` with its decisions: `decisions` gives every decision made so far, then each new one
 * as it is made, and ends when the scope closes; `decided` is those made so far. Every decision is kept until
 * then (a session's permission requests are few).
 *
 * @since 0.1.0
 * @category models
 */
export interface Tracked<R> {
  readonly canUseTool: CanUseTool.CanUseTool<R>
  readonly decisions: Stream.Stream<Decision>
  readonly decided: Effect.Effect<ReadonlyArray<Decision>>
}

/**
 * The policy's `canUseTool`, its decisions on a stream (see {@link Tracked}).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Policy, Session } from "effect-claude-code/session"
 *
 * const program = Effect.gen(function*() {
 *   const policy = yield* Policy.parse("allow tool:Read & path:src/**\ndeny tool:Bash")
 *   const tracked = yield* Policy.track(policy)
 *   yield* tracked.decisions.pipe(
 *     Stream.runForEach((d) => Effect.log(`${d.toolName}: ${d.action} by rule ${d.ruleIndex ?? "default"}`)),
 *     Effect.forkScoped
 *   )
 *   const session = yield* Session.make({ canUseTool: tracked.canUseTool })
 * })
 * ```
 *
 * @since 0.1.0
 * @category running
 */
export const track = <R = never>(
  policy: Policy,
  options: { readonly ask?: CanUseTool.CanUseTool<R> | undefined } = {}
): Effect.Effect<Tracked<R>, never, Scope.Scope> =>
  Effect.gen(function*() {
    // Replays every decision to a late subscriber; an end marker closes the streams with the scope.
    const pubsub = yield* PubSub.unbounded<Decision | typeof end>({ replay: Number.POSITIVE_INFINITY })
    const log: Array<Decision> = []
    yield* Effect.addFinalizer(() => PubSub.publish(pubsub, end))
    return {
      canUseTool: canUseTool(policy, {
        ask: options.ask,
        onDecision: (decision) => Effect.andThen(Effect.sync(() => log.push(decision)), PubSub.publish(pubsub, decision))
      }),
      decisions: Stream.fromPubSub(pubsub).pipe(
        Stream.takeWhile((d): d is Decision => d !== end)
      ) as Stream.Stream<Decision>,
      decided: Effect.sync(() => log.slice())
    }
  })
