/**
 * One-line summaries of tool calls and their results, as the pretty display shows them:
 * `Read(README.md)`, `Bash(npm test)` and under them `Read 228 lines`, `Error: Exit code 3`, `Denied: ...`.
 *
 * @since 0.1.0
 */
import * as Plural from "../internal/plural.ts"
import * as ToolUseResult from "../schema/ToolUseResult.ts"

/**
 * The longest argument shown in a tool line; longer ones are cut at the end, with an ellipsis.
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

// A Windows working directory: a drive letter (`C:\\`, `c:/`) or a UNC share (`\\\\server\\share`).
const isWindows = (cwd: string): boolean => /^[A-Za-z]:[\\/]/.test(cwd) || cwd.startsWith("\\\\")

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

// The working directory followed by a separator, as a pattern (on Windows: either separator, any case);
// undefined for a root (`/`), under which everything is.
const under = (cwd: string, flags: string): RegExp | undefined => {
  const windows = isWindows(cwd)
  const parts = cwd.replace(windows ? /[\\/]+$/ : /\/+$/, "").split(windows ? /[\\/]/ : "/")
  if (parts.join("") === "") return undefined
  const separator = windows ? "[\\\\/]" : "/"
  return new RegExp(parts.map(escapeRegExp).join(separator) + separator, windows ? flags + "i" : flags)
}

/**
 * `file` relative to `cwd` when it is inside it (`.` for `cwd` itself), as written otherwise. POSIX and
 * Windows paths (drive letters, either separator, any case) alike.
 *
 * @since 0.1.0
 * @category formatting
 */
export const relative = (file: string, cwd: string | undefined): string => {
  const inside = cwd === undefined ? undefined : under(cwd, "y")
  // With a separator added, `cwd` itself matches too.
  const match = inside?.exec(file + (isWindows(cwd!) ? "\\" : "/"))
  if (match === undefined || match === null) return file
  return file.slice(match[0].length) || "."
}

/**
 * `text` with every `cwd` + separator removed, so that paths under the working directory read as relative.
 *
 * @since 0.1.0
 * @category formatting
 */
export const relativeIn = (text: string, cwd: string | undefined): string => {
  const inside = cwd === undefined ? undefined : under(cwd, "g")
  return inside === undefined ? text : text.replace(inside, "")
}

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
 * `Name(argument)` for a tool call with its complete input, the argument cut to `max` characters.
 *
 * @since 0.1.0
 * @category formatting
 */
export const call = (name: string, input: unknown, cwd?: string, max: number = maxArgument): string =>
  `${name}(${oneLine(primary(name, input, cwd), max)})`

/**
 * What a tool result says, in one line.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResultInput {
  readonly toolName: string | undefined
  readonly isError: boolean
  /** The permission system refused the call (see `Item.ToolResultItem.denied`). */
  readonly denied: boolean
  /** The result's text content (string content, or the text blocks joined). */
  readonly text: string
  /** The message's `tool_use_result` metadata, as the CLI wrote it. */
  readonly meta: unknown
  /** The session's working directory: paths under it are shown relative to it. */
  readonly cwd?: string | undefined
}

/**
 * `1 line`, `3 lines`, `2 matches`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const plural: (n: number, one: string, many?: string) => string = Plural.plural

const firstLine = (text: string): string => oneLine(text.split("\n").find((l) => l.trim() !== "") ?? "")

// `first line … +N lines` for multi-line output.
const output = (text: string): string => {
  const shown = text.trim()
  if (shown === "") return "(no output)"
  const n = shown.split("\n").length
  const first = firstLine(shown)
  return n === 1 ? first : `${first}${first.endsWith("…") ? "" : " …"} +${plural(n - 1, "line")}`
}

const patchStats = (patch: ReadonlyArray<{ readonly lines: ReadonlyArray<string> }>): string => {
  const lines = patch.flatMap((hunk) => hunk.lines)
  const added = lines.filter((l) => l.startsWith("+")).length
  const removed = lines.filter((l) => l.startsWith("-")).length
  return added + removed === 0 ? "" : ` (+${added} -${removed})`
}

const agentStatus: Record<string, string> = { completed: "Done", async_launched: "Running in the background" }

// From the typed `tool_use_result` metadata, when the CLI wrote a known shape.
const fromMeta = (meta: unknown, cwd: string | undefined): string | undefined => {
  const c = ToolUseResult.classify(meta)
  switch (c._tag) {
    case "FileRead":
      return c.value.file.numLines === undefined ? `Read ${c.value.type}` : `Read ${plural(c.value.file.numLines, "line")}`
    case "Bash":
      return output(c.value.stdout.trim() === "" ? c.value.stderr : c.value.stdout) +
        (c.value.interrupted ? " (interrupted)" : "")
    case "FileWrite":
      return `${c.value.type === "create" ? "Created" : "Wrote"} ${relative(c.value.filePath, cwd)}`
    case "FileEdit":
      return `Updated ${relative(c.value.filePath, cwd)}${patchStats(c.value.structuredPatch)}`
    case "Glob":
      return `Found ${plural(c.value.numFiles, "file")}${c.value.truncated ? " (truncated)" : ""}`
    case "Grep":
      return c.value.mode === "content" && c.value.numLines !== undefined
        ? `Found ${plural(c.value.numLines, "line")}`
        : c.value.mode === "count" && c.value.numMatches !== undefined
        ? `Found ${plural(c.value.numMatches, "match", "matches")}`
        : `Found ${plural(c.value.numFiles, "file")}`
    case "TodoWrite":
      return `${plural(c.value.newTodos.length, "todo")}`
    case "ToolSearch":
      return c.value.matches.length === 0 ? "No tools found" : `Loaded ${c.value.matches.join(", ")}`
    case "WebFetch":
      return `${c.value.code} ${c.value.codeText} (${plural(c.value.bytes, "byte")})`
    case "WebSearch":
      return `${plural(c.value.results.length, "result")} for ${oneLine(c.value.query, 60)}`
    case "Agent": {
      const totals = [
        c.value.totalToolUseCount === undefined ? undefined : plural(c.value.totalToolUseCount, "tool use"),
        c.value.totalTokens === undefined ? undefined : plural(c.value.totalTokens, "token"),
        c.value.totalDurationMs === undefined ? undefined : `${(c.value.totalDurationMs / 1000).toFixed(1)}s`
      ].filter((x) => x !== undefined)
      const status = agentStatus[c.value.status] ?? `Agent ${c.value.status}`
      return `${status}${totals.length === 0 ? "" : ` (${totals.join(" · ")})`}`
    }
    default:
      return undefined
  }
}

// From the result text, for CLIs (and tools) that send no metadata.
const fromText = (toolName: string | undefined, text: string, cwd: string | undefined): string => {
  switch (toolName) {
    case "Read": {
      const numbered = text.split("\n").filter((l) => /^\s*\d+(→|\t)/.test(l)).length
      return `Read ${plural(numbered, "line")}`
    }
    case "Glob":
      return text === "" || /^No files found/.test(text) ? "No files found" : `Found ${plural(text.split("\n").length, "file")}`
    case "Write":
    case "Edit":
    case "MultiEdit": {
      const created = /^File created successfully at: (.+)$/m.exec(text)
      if (created !== null) return `Created ${relative(created[1]!, cwd)}`
      const updated = /^The file (.+?) has been updated/.exec(text)
      if (updated !== null) return `Updated ${relative(updated[1]!, cwd)}`
      return firstLine(text)
    }
    case "Bash":
      return output(text)
    default:
      return text === "" ? "(no output)" : firstLine(text)
  }
}

/**
 * The line under a tool call: `Read 228 lines`, `Error: Exit code 3`, `Denied: ...`, from the CLI's typed
 * `tool_use_result` metadata (`ToolUseResult.classify`) where it has a known shape, from the result text
 * otherwise.
 *
 * @since 0.1.0
 * @category formatting
 */
export const result = (r: ResultInput): string => {
  const text = r.text.replace(/<\/?tool_use_error>/g, "").trim()
  // Read counts its numbered lines in the text as written: trimming would drop the empty last one
  // (`5\t`) that the CLI's `numLines` counts.
  if (!r.denied && !r.isError) return fromMeta(r.meta, r.cwd) ?? fromText(r.toolName, r.toolName === "Read" ? r.text : text, r.cwd)
  // Paths under the working directory are shown relative to it, as in the call line.
  const [first = "", ...rest] = relativeIn(text, r.cwd)
    .replace(/^Error: /, "")
    .split("\n")
    .filter((l) => l.trim() !== "")
  // `Exit code 1` alone says little: add the first line of what the command printed.
  const reason = /^Exit code \d+$/.test(first) && rest.length > 0 ? `${first} · ${rest[0]}` : first
  return `${r.denied ? "Denied" : "Error"}: ${oneLine(reason, 100)}`
}
