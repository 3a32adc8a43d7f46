/**
 * The `tool_use_result` metadata on user messages that carry a tool's
 * result: the tool's structured output (a file read with its line counts, a
 * command's stdout and stderr, an edit's patch, ...) or an error string.
 * Decoding keeps unknown keys and unknown shapes, so encoding gives back the
 * exact object. {@link ToolResultMeta} says what the permission system
 * decided for each call.
 *
 * Each known shape's schema is in {@link shapes} (by tool name); {@link classify} tells them apart.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { Num, open } from "./internal/fields.ts"

const opt = Schema.optionalKey

/**
 * `Read` of a file: `type` is `text`, `image`, `notebook`, `pdf` or `parts`;
 * `file` has `filePath`, and for text `content`, `numLines`, `startLine`, `totalLines`.
 */
const FileRead = open({
  type: Schema.Literals(["text", "image", "notebook", "pdf", "parts"]),
  file: open({
    filePath: opt(Schema.String),
    content: opt(Schema.String),
    numLines: opt(Num),
    startLine: opt(Num),
    totalLines: opt(Num)
  })
})

/**
 * `Bash`: the command's output and whether it was interrupted.
 */
const BashResult = open({
  stdout: Schema.String,
  stderr: Schema.String,
  interrupted: Schema.Boolean,
  isImage: opt(Schema.Boolean),
  noOutputExpected: opt(Schema.Boolean),
  backgroundTaskId: opt(Schema.String),
  returnCodeInterpretation: opt(Schema.String)
})

const Patch = Schema.Array(open({
  oldStart: Num,
  oldLines: Num,
  newStart: Num,
  newLines: Num,
  lines: Schema.Array(Schema.String)
}))

/**
 * `Write`: a file created or replaced, with its patch.
 */
const FileWrite = open({
  type: Schema.Literals(["create", "update"]),
  filePath: Schema.String,
  content: Schema.String,
  structuredPatch: Patch,
  originalFile: opt(Schema.NullOr(Schema.String))
})

/**
 * `Edit` / `MultiEdit`: a file edited, with its patch.
 */
const FileEdit = open({
  filePath: Schema.String,
  oldString: opt(Schema.String),
  newString: opt(Schema.String),
  originalFile: opt(Schema.NullOr(Schema.String)),
  structuredPatch: Patch,
  userModified: opt(Schema.Boolean),
  replaceAll: opt(Schema.Boolean)
})

/**
 * `Glob`: the matched file names.
 */
const GlobResult = open({
  filenames: Schema.Array(Schema.String),
  numFiles: Num,
  durationMs: Num,
  truncated: Schema.Boolean
})

/**
 * `Grep`: matched files, and the matching lines in `content` mode.
 */
const GrepResult = open({
  mode: opt(Schema.Literals(["content", "files_with_matches", "count"])),
  numFiles: Num,
  filenames: Schema.Array(Schema.String),
  content: opt(Schema.String),
  numLines: opt(Num),
  numMatches: opt(Num)
})

const Todo = open({ content: Schema.String, status: Schema.String, activeForm: opt(Schema.String) })

/**
 * `TodoWrite`: the todo list before and after.
 */
const TodoWriteResult = open({ oldTodos: Schema.Array(Todo), newTodos: Schema.Array(Todo) })

/**
 * `ToolSearch`: the deferred tools it loaded.
 */
const ToolSearchResult = open({
  matches: Schema.Array(Schema.String),
  query: Schema.String,
  total_deferred_tools: opt(Num)
})

/**
 * `Task` / `Agent`: a subagent's final answer and totals.
 */
const AgentResult = open({
  status: Schema.String,
  prompt: Schema.String,
  content: opt(Schema.Array(Schema.Unknown)),
  totalDurationMs: opt(Num),
  totalTokens: opt(Num),
  totalToolUseCount: opt(Num)
})

/**
 * `WebFetch`: the HTTP status and the prompt's answer.
 */
const WebFetchResult = open({
  url: Schema.String,
  code: Num,
  codeText: Schema.String,
  result: Schema.String,
  bytes: Num,
  durationMs: Num
})

/**
 * `WebSearch`: the query and its results.
 */
const WebSearchResult = open({
  query: Schema.String,
  results: Schema.Array(Schema.Unknown),
  durationSeconds: Num
})

/**
 * What the permission system decided for a tool call: `decision` is
 * `accept`, `reject` or `cancelled`; `source` says who decided (`config`,
 * `user`, a hook...) and `reason_type` why (`rule`, `mode`, `hook`...).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PermissionDecision = Schema.Struct({
  decision: Schema.String,
  source: Schema.String,
  reason_type: opt(Schema.String),
  plugin_approval: opt(Schema.String),
  auto_mode_rule: opt(Schema.Struct({ list: Schema.String, name: Schema.String }))
})

/**
 * A permission decision of `tool_result_meta`.
 *
 * @since 0.1.0
 * @category models
 */
export type PermissionDecision = typeof PermissionDecision.Type

/**
 * One entry of a user message's `tool_result_meta` (not in the SDK's types;
 * CLI 2.1.330 writes one per tool result): the permission decision for the
 * call `id`, and `non_execution_kind` when the tool did not run
 * (`user-rejected`, `permission-rule`, `automode-blocked`, `interrupted`,
 * `cancelled`...).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultMeta = Schema.Struct({
  id: Schema.String,
  non_execution_kind: opt(Schema.String),
  user_feedback: opt(Schema.String),
  remedy: opt(Schema.Record(Schema.String, Schema.Unknown)),
  permission_decision: opt(PermissionDecision),
  built_in_tool: opt(Schema.String),
  run_input: opt(Schema.String)
})

/**
 * An entry of `tool_result_meta`.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolResultMeta = typeof ToolResultMeta.Type

/**
 * The known shapes, in the order they are tried (most specific first, so a
 * `Write` result, which also has `filePath` and a patch, is not taken for an edit).
 *
 * @since 0.1.0
 * @category schemas
 */
export const shapes = {
  FileRead,
  FileWrite,
  FileEdit,
  Bash: BashResult,
  Glob: GlobResult,
  Grep: GrepResult,
  TodoWrite: TodoWriteResult,
  ToolSearch: ToolSearchResult,
  WebFetch: WebFetchResult,
  WebSearch: WebSearchResult,
  Agent: AgentResult
} as const

/**
 * The `tool_use_result` field: one of the known shapes, an error string, or
 * anything else, kept as is. Lossless: encoding gives back the decoded JSON.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolUseResult = Schema.Union([...Object.values(shapes), Schema.String, Schema.Unknown])

/**
 * A decoded `tool_use_result`.
 *
 * @since 0.1.0
 * @category models
 */
export type ToolUseResult = typeof ToolUseResult.Type

/**
 * The name of a known `tool_use_result` shape.
 *
 * @since 0.1.0
 * @category models
 */
export type ShapeName = keyof typeof shapes

/**
 * A `tool_use_result` told apart: a known shape with its typed value, a plain
 * string (the CLI's error text, `"Error: ..."`), or an unknown value.
 *
 * @since 0.1.0
 * @category models
 */
export type Classified =
  | { readonly [K in ShapeName]: { readonly _tag: K; readonly value: (typeof shapes)[K]["Type"] } }[ShapeName]
  | { readonly _tag: "Text"; readonly value: string }
  | { readonly _tag: "Unknown"; readonly value: unknown }

const shapeNames = Object.keys(shapes) as ReadonlyArray<ShapeName>
const guards = shapeNames.map((name) => [name, Schema.is(shapes[name] as Schema.Codec<unknown>)] as const)

/**
 * Tells which known shape a `tool_use_result` has.
 *
 * @example
 * ```ts
 * import { ToolUseResult } from "effect-claude-code/schema"
 * const c = ToolUseResult.classify({ stdout: "hi\n", stderr: "", interrupted: false })
 * if (c._tag === "Bash") console.log(c.value.stdout)
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const classify = (value: unknown): Classified => {
  if (Predicate.isString(value)) return { _tag: "Text", value }
  for (const [name, is] of guards) {
    if (is(value)) return { _tag: name, value } as Classified
  }
  return { _tag: "Unknown", value }
}

/**
 * Whether a `tool_use_result` is the CLI's error text (`"Error: ..."`), as
 * it is written for a failed or refused tool call.
 *
 * @since 0.1.0
 * @category guards
 */
export const isErrorText = (value: unknown): value is string =>
  Predicate.isString(value) && value.startsWith("Error")
