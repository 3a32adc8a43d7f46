/**
 * The text syntax of filters, for the command line (`--filter`) and
 * configuration files. `Filter.describe` prints a filter in it and
 * `Filter.parse` reads it back.
 *
 * The syntax reference is on {@link parseAst}, so editors show it.
 *
 * A syntax error is a {@link FilterSyntaxError} naming the column and what
 * was expected there.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Ast from "./Ast.ts"

// What every reason carries: the text, where the parser stopped, what it expected there and what it found.
const positionFields = {
  input: Schema.String,
  /** 0-based offset in `input`. */
  offset: Schema.Number,
  expected: Schema.String,
  found: Schema.String
}

const describeError = (self: { readonly input: string; readonly offset: number; readonly expected: string; readonly found: string }) =>
  `filter syntax error at column ${self.offset + 1}: expected ${self.expected}, found ${self.found}\n  ${self.input}\n  ${
    " ".repeat(self.offset)
  }^`

/**
 * A word where a filter belongs that names none (a misspelt atom or keyword).
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnknownAtom extends Schema.TaggedError<UnknownAtom>()("UnknownAtom", positionFields) {
  override get message(): string {
    return describeError(this)
  }
}

/**
 * An atom that needs a value (`type:TYPE`, `session:ID`, ...) without one, or a `:` with nothing after it.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MissingValue extends Schema.TaggedError<MissingValue>()("MissingValue", positionFields) {
  override get message(): string {
    return describeError(this)
  }
}

/**
 * A value after an atom that takes none (`text:x`).
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnexpectedValue extends Schema.TaggedError<UnexpectedValue>()("UnexpectedValue", positionFields) {
  override get message(): string {
    return describeError(this)
  }
}

/**
 * A quoted value that is not a whole JSON string: no closing quote, or a bad escape.
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnclosedString extends Schema.TaggedError<UnclosedString>()("UnclosedString", positionFields) {
  override get message(): string {
    return describeError(this)
  }
}

/**
 * A `(` without its `)`, or a `)` without its `(`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnbalancedParenthesis extends Schema.TaggedError<UnbalancedParenthesis>()("UnbalancedParenthesis", positionFields) {
  override get message(): string {
    return describeError(this)
  }
}

/**
 * Anything else out of place: an operator without an operand, two filters without an operator between them.
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnexpectedToken extends Schema.TaggedError<UnexpectedToken>()("UnexpectedToken", positionFields) {
  override get message(): string {
    return describeError(this)
  }
}

/**
 * Every reason a `FilterSyntaxError` can carry.
 *
 * @since 0.1.0
 * @category errors
 */
export const Reason = Schema.Union([
  UnknownAtom,
  MissingValue,
  UnexpectedValue,
  UnclosedString,
  UnbalancedParenthesis,
  UnexpectedToken
])

/**
 * @since 0.1.0
 * @category errors
 */
export type Reason = typeof Reason.Type

const reasons = { UnknownAtom, MissingValue, UnexpectedValue, UnclosedString, UnbalancedParenthesis, UnexpectedToken }

/**
 * A filter text that does not parse: where (0-based `offset`, 1-based `column`), what the parser expected
 * there and what it found; the `reason` says what kind of mistake it is. Recover by reason with
 * `Effect.catchReason("FilterSyntaxError", "UnknownAtom", ...)`.
 *
 * @since 0.1.0
 * @category errors
 */
export class FilterSyntaxError extends Schema.TaggedError<FilterSyntaxError>()("FilterSyntaxError", { reason: Reason }) {
  /**
   * @since 0.1.0
   */
  get input(): string {
    return this.reason.input
  }
  /**
   * 0-based.
   *
   * @since 0.1.0
   */
  get offset(): number {
    return this.reason.offset
  }
  /**
   * 1-based.
   *
   * @since 0.1.0
   */
  get column(): number {
    return this.reason.offset + 1
  }
  /**
   * @since 0.1.0
   */
  get expected(): string {
    return this.reason.expected
  }
  /**
   * @since 0.1.0
   */
  get found(): string {
    return this.reason.found
  }
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.reason.message
  }
}

const syntaxError = (
  reason: Reason["_tag"],
  fields: { readonly input: string; readonly offset: number; readonly expected: string; readonly found: string }
): FilterSyntaxError => new FilterSyntaxError({ reason: new reasons[reason](fields) })

type Token =
  | { readonly _tag: "Punct"; readonly value: "(" | ")" | "!" | "&" | "|"; readonly offset: number }
  | { readonly _tag: "Word"; readonly value: string; readonly offset: number; readonly end: number }
  | { readonly _tag: "Colon"; readonly offset: number }
  | { readonly _tag: "Quoted"; readonly value: string; readonly offset: number }
  | { readonly _tag: "End"; readonly offset: number }

const punct = new Set(["(", ")", "!", "&", "|"])
const isSpace = (c: string) => /\s/u.test(c)
const isWordChar = (c: string) => !isSpace(c) && !punct.has(c) && c !== ":" && c !== "\""
// Values (after `:`) may also hold `:`.
const isValueChar = (c: string) => isWordChar(c) || c === ":"

// A lexer failure: the parser adds the input and what it found.
class Fail {
  readonly offset: number
  readonly expected: string
  readonly reason: Reason["_tag"]
  constructor(offset: number, expected: string, reason: Reason["_tag"]) {
    this.offset = offset
    this.expected = expected
    this.reason = reason
  }
}

const describeToken = (input: string, token: Token): string => {
  switch (token._tag) {
    case "End":
      return "end of input"
    case "Word":
      return `"${token.value}"`
    case "Quoted":
      return `the string ${input.slice(token.offset).match(/^"(?:[^"\\]|\\.)*"?/u)?.[0] ?? "\""}`
    case "Colon":
      return "\":\""
    case "Punct":
      return `"${token.value}"`
  }
}

const flagText: Record<Ast.Flag["_tag"], string> = {
  Text: "text",
  Thinking: "thinking",
  Error: "error",
  Denied: "denied",
  Typed: "typed",
  Subagent: "subagent",
  Main: "main",
  All: "all",
  None: "none"
}

// The flag of each keyword: the inverse of flagText.
const flagOf = new Map(Object.entries(flagText).map(([tag, text]) => [text, tag as Ast.Flag["_tag"]]))

const argumentKind: Record<string, { readonly arg: "none" | "optional" | "required"; readonly what?: string }> = {
  ...Object.fromEntries(Array.from(flagOf.keys(), (name) => [name, { arg: "none" }] as const)),
  tool: { arg: "optional", what: "a tool name or glob" },
  result: { arg: "optional", what: "a tool name or glob" },
  system: { arg: "optional", what: "a system subtype" },
  delta: { arg: "optional", what: "a delta kind" },
  type: { arg: "required", what: "a message type" },
  session: { arg: "required", what: "a session id" },
  task: { arg: "required", what: "a tool use id" },
  command: { arg: "required", what: "a command glob" },
  path: { arg: "required", what: "a path glob" },
  url: { arg: "required", what: "a URL glob" }
}
const inputKind = { arg: "required", what: "a glob" } as const
// `input.FIELD`: the field name keeps its case.
const INPUT = "input."
const atomNames = [...Object.keys(argumentKind), `${INPUT}FIELD`].join(", ")
const EXPECTED_FILTER = `a filter (${atomNames}, "not", "!" or "(")`

const atom = (name: string, value: string | undefined, field: string | undefined): Ast.Ast => {
  const flag = flagOf.get(name)
  if (flag !== undefined) return Ast.flag(flag)
  switch (name) {
    case "command":
    case "path":
    case "url":
      return { _tag: "Input", on: name, field: undefined, pattern: value! }
    case INPUT:
      return { _tag: "Input", on: "field", field, pattern: value! }
    case "tool":
      return { _tag: "ToolUse", name: value }
    case "result":
      return { _tag: "ToolResult", name: value }
    case "system":
      return { _tag: "System", subtype: value }
    case "delta":
      return { _tag: "Delta", kind: value }
    case "type":
      return { _tag: "MessageType", type: value! }
    case "session":
      return { _tag: "Session", id: value! }
    default:
      return { _tag: "FromTask", toolUseId: value! }
  }
}

class Parser {
  private pos = 0
  private peeked: Token | undefined
  readonly input: string
  constructor(input: string) {
    this.input = input
  }

  private lex(valueMode: boolean): Token {
    const { input } = this
    while (this.pos < input.length && isSpace(input[this.pos])) this.pos++
    const offset = this.pos
    if (offset >= input.length) return { _tag: "End", offset }
    const c = input[offset]
    if (!valueMode && punct.has(c)) {
      this.pos++
      return { _tag: "Punct", value: c as "(", offset }
    }
    if (!valueMode && c === ":") {
      this.pos++
      return { _tag: "Colon", offset }
    }
    if (c === "\"") {
      let i = offset + 1
      while (i < input.length && input[i] !== "\"") i += input[i] === "\\" ? 2 : 1
      if (i >= input.length) throw new Fail(input.length, "a closing '\"'", "UnclosedString")
      let value: string
      try {
        value = JSON.parse(input.slice(offset, i + 1))
      } catch {
        throw new Fail(offset, "a JSON string with valid escapes", "UnclosedString")
      }
      this.pos = i + 1
      return { _tag: "Quoted", value, offset }
    }
    const accept = valueMode ? isValueChar : isWordChar
    let end = offset
    while (end < input.length && accept(input[end])) end++
    if (end === offset) throw new Fail(offset, "a value", "MissingValue")
    this.pos = end
    return { _tag: "Word", value: input.slice(offset, end), offset, end }
  }

  private peek(): Token {
    return this.peeked ??= this.lex(false)
  }

  private next(): Token {
    const token = this.peek()
    this.peeked = undefined
    return token
  }

  private isOperator(token: Token, punctuation: string, word: string): boolean {
    return (token._tag === "Punct" && token.value === punctuation) ||
      (token._tag === "Word" && token.value.toLowerCase() === word)
  }

  private fail(
    token: Token,
    expected: string,
    reason: Reason["_tag"] = "UnexpectedToken",
    found = describeToken(this.input, token)
  ): never {
    throw syntaxError(reason, { input: this.input, offset: token.offset, expected, found })
  }

  parseAll(): Ast.Ast {
    const ast = this.parseOr()
    const end = this.peek()
    if (end._tag !== "End") {
      const unbalanced = end._tag === "Punct" && end.value === ")"
      if (unbalanced) this.fail(end, "end of input (unbalanced \")\")", "UnbalancedParenthesis")
      this.fail(end, "\"and\", \"or\" or end of input")
    }
    return ast
  }

  private parseOr(): Ast.Ast {
    const operands = [this.parseAnd()]
    while (this.isOperator(this.peek(), "|", "or")) {
      this.next()
      operands.push(this.parseAnd())
    }
    return Ast.or(operands)
  }

  private parseAnd(): Ast.Ast {
    const operands = [this.parseUnary()]
    while (this.isOperator(this.peek(), "&", "and")) {
      this.next()
      operands.push(this.parseUnary())
    }
    return Ast.and(operands)
  }

  private parseUnary(): Ast.Ast {
    const token = this.next()
    if (this.isOperator(token, "!", "not")) return Ast.not(this.parseUnary())
    if (token._tag === "Punct" && token.value === "(") {
      const inner = this.parseOr()
      const close = this.next()
      if (!(close._tag === "Punct" && close.value === ")")) {
        this.fail(close, "\")\" or an operator", close._tag === "End" ? "UnbalancedParenthesis" : "UnexpectedToken")
      }
      return inner
    }
    if (token._tag !== "Word") return this.fail(token, EXPECTED_FILTER)
    const lower = token.value.toLowerCase()
    const field = lower.startsWith(INPUT) && lower.length > INPUT.length ? token.value.slice(INPUT.length) : undefined
    const name = field === undefined ? lower : INPUT
    const kind = field !== undefined ? inputKind : Object.hasOwn(argumentKind, name) ? argumentKind[name] : undefined
    if (kind === undefined) return this.fail(token, EXPECTED_FILTER, "UnknownAtom")
    const colon = this.peek()
    const hasColon = colon._tag === "Colon" && colon.offset === token.end
    if (kind.arg === "none") {
      if (hasColon) this.fail(colon, `an operator or end of input ("${name}" takes no argument)`, "UnexpectedValue")
      return atom(name, undefined, field)
    }
    const written = token.value
    if (!hasColon) {
      if (kind.arg === "required") this.fail(colon, `":" and ${kind.what} after "${written}"`, "MissingValue")
      return atom(name, undefined, field)
    }
    this.next()
    const valueOffset = this.pos
    if (valueOffset >= this.input.length || isSpace(this.input[valueOffset])) {
      const found = valueOffset >= this.input.length ? "end of input" : "a space"
      this.fail({ _tag: "End", offset: valueOffset }, `${kind.what} after "${written}:"`, "MissingValue", found)
    }
    const value = this.lex(true)
    if (value._tag !== "Word" && value._tag !== "Quoted") return this.fail(value, `${kind.what} after "${written}:"`, "MissingValue")
    return atom(name, value.value, field)
  }
}

/**
 * Parses filter text into a filter tree.
 *
 * ## Filter syntax reference
 *
 * **Atoms.** Keywords are case-insensitive; `NAME`-like values are not.
 *
 * | atom | selects |
 * | --- | --- |
 * | `text` | text blocks of assistant messages |
 * | `thinking` | thinking blocks of assistant messages |
 * | `tool`, `tool:NAME` | `tool_use` blocks (of a tool name or glob), whatever their input |
 * | `typed` | tool uses whose input fits their tool's input schema (every input of a tool without one) |
 * | `command:GLOB` | `Bash` calls whose command matches |
 * | `path:GLOB` | calls of a file tool whose file or directory matches a path glob (Read, Write, Edit, MultiEdit, NotebookEdit, Glob, Grep, LS) |
 * | `url:GLOB` | `WebFetch` calls whose URL matches |
 * | `input.FIELD:GLOB` | calls of any tool (MCP tools included) whose input field FIELD is a string that matches (`input.a.b` reaches into objects) |
 * | `result`, `result:NAME` | `tool_result` blocks (answering a tool of a name or glob) |
 * | `error` | error tool results and the calls they answer, error results, API retries, API errors, lines that failed to decode |
 * | `denied` | tool results the permission system refused and the calls they answer, `permission_denied` system messages |
 * | `system`, `system:SUBTYPE` | `system` messages (of a subtype: `init`, `api_retry`, ...) |
 * | `type:TYPE` | items of messages of a wire type (`assistant`, `rate_limit_event`, `decode_failure`, ...) |
 * | `session:ID` | items of one session |
 * | `main`, `subagent` | items of the main agent, of subagents |
 * | `task:TOOL_USE_ID` | items of the subagent that a `Task`/`Agent` tool use started |
 * | `delta`, `delta:KIND` | `stream_event` items (of an event type, or a delta type: `text` is `text_delta`) |
 * | `all`, `none` | every item, no item |
 *
 * **Operators**, tightest first: `not` / `!`, then `and` / `&`, then `or` / `|`;
 * parentheses group. `text | thinking & main` is `text | (thinking & main)`.
 *
 * **Values** follow `:` with no space. A NAME is a tool name or a glob over
 * the whole name: `*` is any run of characters, `?` one character
 * (`tool:mcp__github__*`, `tool:Rea?`). A value holding spaces, quotes,
 * parentheses or `!&|` is written as a JSON string (`tool:"odd name"`).
 *
 * **Input globs.** `command:`, `url:` and `input.FIELD:` globs are matched
 * against the whole string as names are: `*` is any run of characters, spaces
 * and `/` included (`command:"git status*"` also matches
 * `git status; rm -rf x`: a glob is not a shell parser). `path:` globs are
 * path globs: `*` and `?` stay within a segment and `**` crosses segments
 * (`path:src/**`); a relative pattern also matches an absolute path that ends
 * with it at a segment (`src/**` matches `/repo/src/a.ts`). A field name is
 * written bare (letters, digits, `_`, `-`, `.`), its case kept.
 *
 * **Typed tool uses.** `Filter.toolUse("Read")` narrows its items' input to
 * `Read`'s input type, so it selects only calls whose input fits; it prints
 * as `tool:Read & typed`. `tool:Read` selects every `Read` call, and
 * `tool & !typed` finds the calls whose input does not fit (a newer CLI
 * changing a tool's input).
 *
 * **A call's outcome.** A tool call is an `error` when its result is (or when
 * it is part of an API error message), and `denied` when its result was
 * refused: `tool:Bash & error` selects the Bash calls that failed. A call's
 * outcome is known only once its result arrives, so a filter whose verdict on
 * a call depends on it holds that call until its result and shows it then,
 * just before the result; a call that gets no result (the stream ended
 * first) is neither an error nor denied, and a held one is shown at the end.
 * As a plain predicate, `Filter.error` sees one item and no result: on a call,
 * only the API error.
 *
 * **Examples**
 *
 * ```text
 * tool:Bash | error                    Bash calls and every error
 * tool:Bash & error                    Bash calls that failed
 * result:Bash & error                  their results
 * text & main                          the main agent's text
 * tool:mcp__* & subagent               MCP calls made by subagents
 * tool:Read & path:src/**              reads under src/
 * command:"git *" | url:https://*      git commands and web fetches over https
 * input.repo:effect-*                  calls of any tool with a repo field that matches
 * system:init or type:rate_limit_event
 * not (delta | system)                 everything but partial messages and system lines
 * type:decode_failure                  lines that failed to decode (onBadLine "emit")
 * ```
 *
 * **Grammar**
 *
 * ```text
 * expr    := and ( ("or" | "|") and )*
 * and     := unary ( ("and" | "&") unary )*
 * unary   := ("not" | "!") unary | "(" expr ")" | atom
 * atom    := text | thinking | tool[:NAME] | typed | result[:NAME] | error | denied
 *          | system[:SUBTYPE] | type:TYPE | session:ID | subagent | main
 *          | task:TOOL_USE_ID | delta[:KIND] | all | none
 *          | command:GLOB | path:GLOB | url:GLOB | input.FIELD:GLOB
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseAst = (input: string): Result.Result<Ast.Ast, FilterSyntaxError> => {
  const parser = new Parser(input)
  try {
    return Result.succeed(parser.parseAll())
  } catch (e) {
    if (e instanceof FilterSyntaxError) return Result.fail(e)
    if (e instanceof Fail) {
      return Result.fail(
        syntaxError(e.reason, {
          input,
          offset: e.offset,
          expected: e.expected,
          found: e.offset >= input.length ? "end of input" : `"${input[e.offset]}"`
        })
      )
    }
    throw e
  }
}

const bare = /^[^\s()!&|"\\]+$/u

const value = (v: string): string => bare.test(v) ? v : JSON.stringify(v)

const withArg = (name: string, arg: string | undefined): string => arg === undefined ? name : `${name}:${value(arg)}`

/**
 * The text of a filter tree, in the syntax {@link parseAst} reads, with the
 * fewest parentheses. A code predicate (`Where`) prints as `<label>`, which
 * does not parse.
 *
 * @since 0.1.0
 * @category printing
 */
export const describeAst = (ast: Ast.Ast): string => {
  switch (ast._tag) {
    case "ToolUse":
      return withArg("tool", ast.name)
    case "ToolResult":
      return withArg("result", ast.name)
    case "System":
      return withArg("system", ast.subtype)
    case "Delta":
      return withArg("delta", ast.kind)
    case "MessageType":
      return withArg("type", ast.type)
    case "Session":
      return withArg("session", ast.id)
    case "FromTask":
      return withArg("task", ast.toolUseId)
    case "Input":
      return withArg(ast.on === "field" ? `${INPUT}${ast.field}` : ast.on, ast.pattern)
    case "Where":
      return `<${ast.label}>`
    case "Not": {
      const inner = describeAst(ast.filter)
      return ast.filter._tag === "And" || ast.filter._tag === "Or" ? `!(${inner})` : `!${inner}`
    }
    case "And":
      return ast.filters.map((f) => f._tag === "Or" ? `(${describeAst(f)})` : describeAst(f)).join(" & ")
    case "Or":
      return ast.filters.map(describeAst).join(" | ")
    default:
      return flagText[ast._tag]
  }
}
