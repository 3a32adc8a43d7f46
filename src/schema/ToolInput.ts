/**
 * Schemas for the `input` of the Claude Code CLI's built-in tools, as the
 * model sends them in `tool_use` blocks, including tools of older CLIs
 * (`LS`, `MultiEdit`, `KillShell`, `Task`). Unknown keys are ignored, so a
 * newer CLI adding an option does not make a call unrecognised.
 *
 * Each tool's schema is in {@link schemas} (by the tool's name, also {@link schemaFor}), its type
 * `InputOf<"Bash">`.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { Num } from "./internal/fields.ts"

const Str = Schema.String
const Bool = Schema.Boolean
const opt = Schema.optionalKey

/**
 * `Read`: read a file (text, image, PDF, notebook).
 */
const Read = Schema.Struct({
  file_path: Str,
  offset: opt(Num),
  limit: opt(Num),
  pages: opt(Str),
  allow_large: opt(Bool)
})

/**
 * `Write`: create or overwrite a file.
 */
const Write = Schema.Struct({ file_path: Str, content: Str })

/**
 * `Edit`: replace a string in a file.
 */
const Edit = Schema.Struct({
  file_path: Str,
  old_string: Str,
  new_string: Str,
  replace_all: opt(Bool)
})

/**
 * `MultiEdit` (older CLIs): several edits of one file, applied in order.
 */
const MultiEdit = Schema.Struct({
  file_path: Str,
  edits: Schema.Array(Schema.Struct({ old_string: Str, new_string: Str, replace_all: opt(Bool) }))
})

/**
 * `Bash`: run a shell command.
 */
const Bash = Schema.Struct({
  command: Str,
  timeout: opt(Num),
  description: opt(Str),
  run_in_background: opt(Bool),
  dangerouslyDisableSandbox: opt(Bool)
})

/**
 * `BashOutput` (older CLIs): read the output of a background shell.
 */
const BashOutput = Schema.Struct({ bash_id: Str, filter: opt(Str) })

/**
 * `KillShell` / `KillBash` (older CLIs): stop a background shell.
 */
const KillShell = Schema.Struct({ shell_id: Str })

/**
 * `TaskStop`: stop a background task (the successor of `KillShell`).
 */
const TaskStop = Schema.Struct({ task_id: opt(Str), shell_id: opt(Str) })

/**
 * `Glob`: find files by pattern.
 */
const Glob = Schema.Struct({ pattern: Str, path: opt(Str) })

/**
 * `Grep`: search file contents (ripgrep).
 */
const Grep = Schema.Struct({
  pattern: Str,
  path: opt(Str),
  glob: opt(Str),
  output_mode: opt(Schema.Literals(["content", "files_with_matches", "count"])),
  "-B": opt(Num),
  "-A": opt(Num),
  "-C": opt(Num),
  context: opt(Num),
  "-n": opt(Bool),
  "-i": opt(Bool),
  "-o": opt(Bool),
  type: opt(Str),
  head_limit: opt(Num),
  offset: opt(Num),
  multiline: opt(Bool)
})

/**
 * `LS` (older CLIs): list a directory.
 */
const LS = Schema.Struct({ path: Str, ignore: opt(Schema.Array(Str)) })

/**
 * `Task` (older CLIs) and `Agent`: run a subagent. Its messages carry the
 * tool use id as `parent_tool_use_id`.
 */
const Task = Schema.Struct({
  description: Str,
  prompt: Str,
  subagent_type: opt(Str),
  model: opt(Str),
  effort: opt(Str),
  run_in_background: opt(Bool),
  name: opt(Str),
  isolation: opt(Str)
})

/**
 * `WebFetch`: fetch a URL and run a prompt on it.
 */
const WebFetch = Schema.Struct({ url: Str, prompt: Str, offset: opt(Num) })

/**
 * `WebSearch`: search the web.
 */
const WebSearch = Schema.Struct({
  query: Str,
  allowed_domains: opt(Schema.Array(Str)),
  blocked_domains: opt(Schema.Array(Str))
})

/**
 * A todo list entry's status.
 */
const TodoStatus = Schema.Literals(["pending", "in_progress", "completed"])

/**
 * `TodoWrite`: replace the todo list.
 */
const TodoWrite = Schema.Struct({
  todos: Schema.Array(Schema.Struct({ content: Str, status: TodoStatus, activeForm: opt(Str) }))
})

const Metadata = Schema.Record(Str, Schema.Unknown)

/**
 * `TaskCreate`: add a task to the task list.
 */
const TaskCreate = Schema.Struct({
  subject: Str,
  description: Str,
  activeForm: opt(Str),
  metadata: opt(Metadata)
})

/**
 * `TaskGet`: read one task.
 */
const TaskGet = Schema.Struct({ taskId: Str })

/**
 * `TaskUpdate`: change a task.
 */
const TaskUpdate = Schema.Struct({
  taskId: Str,
  subject: opt(Str),
  description: opt(Str),
  activeForm: opt(Str),
  status: opt(Schema.Literals(["pending", "in_progress", "completed", "deleted"])),
  addBlocks: opt(Schema.Array(Str)),
  addBlockedBy: opt(Schema.Array(Str)),
  owner: opt(Str),
  metadata: opt(Metadata)
})

/**
 * `TaskList`, `EnterPlanMode`: no input.
 */
const Empty = Schema.Struct({})

/**
 * `NotebookEdit`: edit a Jupyter notebook cell.
 */
const NotebookEdit = Schema.Struct({
  notebook_path: Str,
  cell_id: opt(Str),
  new_source: Str,
  cell_type: opt(Schema.Literals(["code", "markdown"])),
  edit_mode: opt(Schema.Literals(["replace", "insert", "delete"]))
})

/**
 * `ExitPlanMode`: leave plan mode (older CLIs send the plan as `plan`).
 */
const ExitPlanMode = Schema.Struct({
  plan: opt(Str),
  allowedPrompts: opt(Schema.Array(Schema.Struct({ tool: Str, prompt: Str })))
})

/**
 * `ToolSearch`: load deferred tools (`select:Read,Write`) or search them.
 */
const ToolSearch = Schema.Struct({ query: Str, max_results: opt(Num) })

/**
 * The input schema of every built-in tool, by the name the CLI gives it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const schemas = {
  Read,
  Write,
  Edit,
  MultiEdit,
  Bash,
  BashOutput,
  KillShell,
  KillBash: KillShell,
  TaskStop,
  Glob,
  Grep,
  LS,
  Task,
  Agent: Task,
  WebFetch,
  WebSearch,
  TodoWrite,
  TaskCreate,
  TaskGet,
  TaskUpdate,
  TaskList: Empty,
  NotebookEdit,
  ExitPlanMode,
  EnterPlanMode: Empty,
  ToolSearch
} as const

/**
 * The name of a built-in tool whose input this module knows.
 *
 * @since 0.1.0
 * @category models
 */
export type KnownToolName = keyof typeof schemas

/**
 * The input type of the tool called `Name`: its schema's type for a known
 * tool, `unknown` for any other name (MCP tools, newer tools, globs).
 *
 * @example
 * ```ts
 * import type { ToolInput } from "effect-claude-code/schema"
 * type BashInput = ToolInput.InputOf<"Bash"> // { readonly command: string; ... }
 * type Other = ToolInput.InputOf<"mcp__github__search"> // unknown
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type InputOf<Name extends string> = string extends Name ? unknown
  : Name extends KnownToolName ? (typeof schemas)[Name]["Type"]
  : unknown

/**
 * Whether `name` is a built-in tool this module knows.
 *
 * @since 0.1.0
 * @category guards
 */
export const isKnownToolName = (name: string): name is KnownToolName => Object.hasOwn(schemas, name)

/**
 * The input schema of a tool, if it is a known one.
 *
 * @since 0.1.0
 * @category schemas
 */
export const schemaFor = (name: string): Option.Option<Schema.Codec<unknown>> =>
  isKnownToolName(name) ? Option.some(schemas[name] as Schema.Codec<unknown>) : Option.none()

const guards = new Map<string, (u: unknown) => boolean>()

/**
 * Whether `input` fits the input schema of the tool called `name`. Inputs of
 * unknown tools always fit (their type is `unknown`).
 *
 * @since 0.1.0
 * @category guards
 */
export const isInputOf = <Name extends string>(name: Name, input: unknown): input is InputOf<Name> => {
  if (!isKnownToolName(name)) return true
  let guard = guards.get(name)
  if (guard === undefined) {
    guard = Schema.is(schemas[name] as Schema.Codec<unknown>)
    guards.set(name, guard)
  }
  return guard(input)
}

/**
 * Decodes a tool's input against its schema; unknown tools pass `input` through.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decode = <Name extends string>(
  name: Name,
  input: unknown
): Result.Result<InputOf<Name>, Schema.SchemaError> =>
  Option.match(schemaFor(name), {
    onNone: () => Result.succeed(input as InputOf<Name>),
    onSome: (schema) => Schema.decodeUnknownResult(schema)(input) as Result.Result<InputOf<Name>, Schema.SchemaError>
  })
