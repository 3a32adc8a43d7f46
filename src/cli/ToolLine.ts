/**
 * One-line summaries of tool calls and their results, as the pretty display shows them:
 * `Read(README.md)`, `Bash(npm test)` and under them `Read 228 lines`, `Error: Exit code 3`, `Denied: ...`.
 *
 * @since 0.1.0
 */

/**
 * The longest argument shown in a tool line; longer ones are cut in the middle of nowhere but at the end,
 * with an ellipsis.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxArgument = 80

/**
 * Collapses whitespace to one line and cuts it to `max` characters.
 *
 * @since 0.1.0
 * @category formatting
 */
export const oneLine = (text: string, max: number = maxArgument): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

const str = (input: unknown, key: string): string | undefined => {
  if (typeof input !== "object" || input === null) return undefined
  const value = (input as Record<string, unknown>)[key]
  return typeof value === "string" ? value : undefined
}

const relative = (file: string, cwd: string | undefined): string =>
  cwd !== undefined && file.startsWith(cwd + "/") ? file.slice(cwd.length + 1) : file

// The argument that says the most about a call, per tool; unknown tools show their input as compact JSON.
const primary = (name: string, input: unknown, cwd: string | undefined): string => {
  switch (name) {
    case "Read":
    case "Write":
    case "Edit":
    case "MultiEdit":
    case "NotebookEdit": {
      const file = str(input, "file_path") ?? str(input, "notebook_path")
      return file === undefined ? json(input) : relative(file, cwd)
    }
    case "Bash":
      return str(input, "command") ?? json(input)
    case "Glob":
    case "Grep": {
      const pattern = str(input, "pattern") ?? json(input)
      const where = str(input, "path")
      return where === undefined ? pattern : `${pattern} in ${relative(where, cwd)}`
    }
    case "LS":
      return relative(str(input, "path") ?? ".", cwd)
    case "Task":
    case "Agent":
      return str(input, "description") ?? json(input)
    case "WebFetch":
      return str(input, "url") ?? json(input)
    case "WebSearch":
    case "ToolSearch":
      return str(input, "query") ?? json(input)
    case "TodoWrite": {
      const todos = typeof input === "object" && input !== null ? (input as { todos?: unknown }).todos : undefined
      return Array.isArray(todos) ? `${todos.length} todo${todos.length === 1 ? "" : "s"}` : json(input)
    }
    default:
      return json(input)
  }
}

const json = (input: unknown): string => {
  if (typeof input === "object" && input !== null && Object.keys(input).length === 0) return ""
  try {
    return JSON.stringify(input) ?? ""
  } catch {
    return String(input)
  }
}

/**
 * `Name(argument)` for a tool call with its complete input.
 *
 * @since 0.1.0
 * @category formatting
 */
export const call = (name: string, input: unknown, cwd?: string): string =>
  `${name}(${oneLine(primary(name, input, cwd))})`

/**
 * What a tool result says, in one line.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResultInput {
  readonly toolName: string | undefined
  readonly isError: boolean
  /** The result's text content (string content, or the text blocks joined). */
  readonly text: string
  /** The message's `tool_use_result` metadata, as the CLI wrote it. */
  readonly meta: unknown
}

const lines = (n: number, what = "line") => `${n} ${what}${n === 1 ? "" : "s"}`

const firstLine = (text: string): string => oneLine(text.split("\n").find((l) => l.trim() !== "") ?? "")

const denial = /requested permissions? to|permission to use|haven't granted|was blocked|denied/i

/**
 * The line under a tool call: `Read 228 lines`, `Error: Exit code 3`, `Denied: ...`, using the CLI's
 * `tool_use_result` metadata where it has a known shape and the result text otherwise.
 *
 * @since 0.1.0
 * @category formatting
 */
export const result = (r: ResultInput): string => {
  const text = r.text.replace(/<\/?tool_use_error>/g, "").trim()
  if (r.isError) {
    return denial.test(text) ? `Denied: ${firstLine(text)}` : `Error: ${firstLine(text)}`
  }
  const meta = typeof r.meta === "object" && r.meta !== null ? r.meta as Record<string, any> : undefined
  const file = meta?.file
  if (r.toolName === "Read" && typeof file === "object" && file !== null && typeof file.numLines === "number") {
    return `Read ${lines(file.numLines)}`
  }
  if (meta !== undefined && typeof meta.stdout === "string") {
    const out = meta.stdout.trim()
    const err = typeof meta.stderr === "string" ? meta.stderr.trim() : ""
    if (out === "" && err === "") return "(no output)"
    const shown = out === "" ? err : out
    const count = shown.split("\n").length
    return count > 1 ? `${firstLine(shown)} … +${count - 1} lines` : firstLine(shown)
  }
  if (meta !== undefined && Array.isArray(meta.filenames)) {
    return `Found ${lines(meta.filenames.length, "file")}`
  }
  if (meta !== undefined && (meta.type === "create" || meta.type === "update") && typeof meta.filePath === "string") {
    return meta.type === "create" ? `Created ${meta.filePath}` : `Updated ${meta.filePath}`
  }
  if (r.toolName === "Read") {
    const count = text === "" ? 0 : text.split("\n").length
    return `Read ${lines(count)}`
  }
  return text === "" ? "(no output)" : firstLine(text)
}
