/**
 * Deterministic (seeded) stream-json inputs shaped like real CLI output:
 * sessions of `system/init`, assistant turns (text, thinking, tool_use), user
 * tool results from 1 KB to 1 MB, `result`, and optionally the
 * `stream_event` lines of `--include-partial-messages`.
 *
 * The same seed gives byte-identical files, so figures compare across commits.
 */
import * as fs from "node:fs"

/** mulberry32: small, fast, good enough for shaping test data. */
export const rng = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const words = [
  "the", "function", "returns", "a", "stream", "of", "messages", "and", "each", "line", "is", "decoded",
  "Effect", "schema", "const", "import", "export", "=>", "{", "}", "(", ")", "\"quoted\"", "path/to/file.ts",
  "error", "résumé", "naïve", "日本語", "emoji🙂", "\\backslash", "tab\t", "done.", "42", "null", "undefined"
]

const makeText = (next: () => number, chars: number): string => {
  const parts: Array<string> = []
  let size = 0
  while (size < chars) {
    const w = next() < 0.04 ? "\n" : words[Math.floor(next() * words.length)]!
    parts.push(w)
    size += w.length + 1
  }
  return parts.join(" ")
}

const hex = (next: () => number, n: number): string => {
  let s = ""
  for (let i = 0; i < n; i++) s += Math.floor(next() * 16).toString(16)
  return s
}

const uuid = (next: () => number): string =>
  `${hex(next, 8)}-${hex(next, 4)}-4${hex(next, 3)}-a${hex(next, 3)}-${hex(next, 12)}`

const tools = ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "WebFetch", "TodoWrite", "WebSearch"]

const usage = (next: () => number) => ({
  input_tokens: Math.floor(next() * 100),
  cache_creation_input_tokens: Math.floor(next() * 20000),
  cache_read_input_tokens: Math.floor(next() * 20000),
  cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  output_tokens: Math.floor(next() * 2000),
  service_tier: "standard"
})

export interface Options {
  readonly seed: number
  /** Stop after about this many bytes (whole sessions only after the first). */
  readonly bytes: number
  readonly partial: boolean
}

/**
 * Yields the lines (without terminators) of a deterministic transcript of
 * about `bytes` bytes. Lazy: a 1 GB transcript is never held in memory.
 */
export function* lines(options: Options): Generator<string> {
  const next = rng(options.seed)
  let written = 0
  const emit = (value: unknown): string => {
    const line = JSON.stringify(value)
    written += line.length + 1
    return line
  }
  while (written < options.bytes) {
    const session_id = uuid(next)
    const model = "claude-sonnet-4-6"
    yield emit({
      type: "system",
      subtype: "init",
      cwd: "/home/user/project",
      session_id,
      tools,
      mcp_servers: [{ name: "filesystem", status: "connected" }],
      model,
      permissionMode: "acceptEdits",
      slash_commands: ["compact", "review"],
      apiKeySource: "ANTHROPIC_API_KEY",
      claude_code_version: "2.1.330",
      output_style: "default",
      agents: ["general-purpose"],
      skills: [],
      plugins: [],
      uuid: uuid(next)
    })
    const turns = 3 + Math.floor(next() * 8)
    for (let turn = 0; turn < turns && written < options.bytes; turn++) {
      const id = `msg_01${hex(next, 22)}`
      const last = turn === turns - 1
      const text = makeText(next, 80 + Math.floor(next() * 1500))
      const blocks: Array<unknown> = []
      if (next() < 0.3) {
        blocks.push({ type: "thinking", thinking: makeText(next, 200 + Math.floor(next() * 600)), signature: hex(next, 120) })
      }
      blocks.push({ type: "text", text })
      const toolId = `toolu_01${hex(next, 22)}`
      if (!last) {
        blocks.push({ type: "tool_use", id: toolId, name: "Read", input: { file_path: `/home/user/project/src/f${turn}.ts` } })
      }
      const message = (content: Array<unknown>) => ({
        model,
        id,
        type: "message",
        role: "assistant",
        content,
        stop_reason: null,
        stop_sequence: null,
        usage: usage(next),
        context_management: null
      })
      const envelope = { parent_tool_use_id: null, session_id }
      if (options.partial) {
        yield emit({ type: "stream_event", event: { type: "message_start", message: message([]) }, ...envelope, uuid: uuid(next) })
      }
      for (let index = 0; index < blocks.length; index++) {
        const block = blocks[index] as { type: string; text?: string; thinking?: string; signature?: string; input?: unknown }
        if (options.partial) {
          const start = block.type === "text"
            ? { type: "text", text: "" }
            : block.type === "thinking"
            ? { type: "thinking", thinking: "", signature: "" }
            : { ...block, input: {} }
          yield emit({ type: "stream_event", event: { type: "content_block_start", index, content_block: start }, ...envelope, uuid: uuid(next) })
          const body = block.type === "text" ? block.text! : block.type === "thinking" ? block.thinking! : JSON.stringify(block.input)
          // Deltas of a few tokens, as the API streams them.
          for (let at = 0; at < body.length;) {
            const size = 4 + Math.floor(next() * 40)
            const piece = body.slice(at, at + size)
            at += size
            const delta = block.type === "text"
              ? { type: "text_delta", text: piece }
              : block.type === "thinking"
              ? { type: "thinking_delta", thinking: piece }
              : { type: "input_json_delta", partial_json: piece }
            yield emit({ type: "stream_event", event: { type: "content_block_delta", index, delta }, ...envelope, uuid: uuid(next) })
          }
          if (block.type === "thinking") {
            yield emit({ type: "stream_event", event: { type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } }, ...envelope, uuid: uuid(next) })
          }
        }
        // The CLI writes one assistant message per content block.
        yield emit({ type: "assistant", message: message([block]), ...envelope, uuid: uuid(next) })
        if (options.partial) {
          yield emit({ type: "stream_event", event: { type: "content_block_stop", index }, ...envelope, uuid: uuid(next) })
        }
      }
      if (options.partial) {
        yield emit({ type: "stream_event", event: { type: "message_delta", delta: { stop_reason: last ? "end_turn" : "tool_use", stop_sequence: null }, usage: usage(next) }, ...envelope, uuid: uuid(next) })
        yield emit({ type: "stream_event", event: { type: "message_stop" }, ...envelope, uuid: uuid(next) })
      }
      if (!last) {
        // Log-uniform over 1 KB .. 1 MB, skewed towards small results.
        const size = Math.round(1024 * Math.pow(1024, Math.pow(next(), 6)))
        const content = makeText(next, size)
        yield emit({
          type: "user",
          message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolId, content, is_error: false }] },
          ...envelope,
          uuid: uuid(next),
          tool_use_result: { type: "text", file: { filePath: `/home/user/project/src/f${turn}.ts`, content, numLines: 1, startLine: 1, totalLines: 1 } }
        })
      }
    }
    yield emit({
      type: "result",
      subtype: "success",
      is_error: false,
      duration_ms: Math.floor(next() * 100000),
      duration_api_ms: Math.floor(next() * 100000),
      num_turns: turns,
      result: makeText(next, 200),
      stop_reason: "end_turn",
      session_id,
      total_cost_usd: next(),
      usage: usage(next),
      modelUsage: { [model]: { inputTokens: 100, outputTokens: 200, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, webSearchRequests: 0, costUSD: 0.1, contextWindow: 200000, maxOutputTokens: 32000 } },
      permission_denials: [],
      uuid: uuid(next)
    })
  }
}

/** Writes a generated transcript to `file`; returns its byte length and line count. */
export const writeTranscript = (file: string, options: Options): { readonly bytes: number; readonly lines: number } => {
  const fd = fs.openSync(file, "w")
  let bytes = 0
  let count = 0
  let batch: Array<string> = []
  let batchChars = 0
  const flush = () => {
    const buffer = Buffer.from(batch.join(""), "utf8")
    fs.writeSync(fd, buffer)
    bytes += buffer.length
    batch = []
    batchChars = 0
  }
  try {
    for (const line of lines(options)) {
      batch.push(line, "\n")
      batchChars += line.length + 1
      count++
      if (batchChars > 1 << 22) flush()
    }
    flush()
  } finally {
    fs.closeSync(fd)
  }
  return { bytes, lines: count }
}

/**
 * What fills the big line's tool result: ASCII (V8 keeps it as a one-byte
 * string, one byte per character) or mixed text with accents and an emoji (a
 * two-byte string, two bytes per UTF-16 unit: here 1.73 bytes of string per
 * byte of UTF-8, and 1.68 for the parsed value, whose `\n` escapes are one
 * character each).
 */
export const bigLineTexts = ["ascii", "mixed"] as const

export type BigLineText = typeof bigLineTexts[number]

const fillUnits: Record<BigLineText, Buffer> = {
  ascii: Buffer.from("0123456789abcdef ".repeat(64), "utf8"),
  mixed: Buffer.from("const x = 1 // naïve 🙂 résumé\\n".repeat(32), "utf8")
}

/**
 * A transcript with one line of `lineBytes` bytes (a `user` tool result) between
 * ordinary lines, for the memory check. The fill is whole units of `text`
 * padded with spaces, so no character or escape is cut.
 */
export const writeBigLine = (
  file: string,
  lineBytes: number,
  seed: number,
  text: BigLineText = "ascii"
): { readonly bytes: number; readonly lines: number } => {
  const head = Array.from(lines({ seed, bytes: 20_000, partial: false }))
  const prefix = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01big","content":"`
  const suffix = `"}]},"parent_tool_use_id":null,"session_id":"00000000-0000-4000-a000-000000000000","uuid":"00000000-0000-4000-a000-000000000001"}`
  const fillBytes = lineBytes - Buffer.byteLength(prefix) - Buffer.byteLength(suffix)
  const unit = fillUnits[text]
  const fd = fs.openSync(file, "w")
  let bytes = 0
  try {
    const before = Buffer.from(head.slice(0, 3).map((l) => l + "\n").join(""), "utf8")
    fs.writeSync(fd, before)
    fs.writeSync(fd, prefix)
    let left = fillBytes
    for (; left >= unit.length; left -= unit.length) fs.writeSync(fd, unit)
    fs.writeSync(fd, " ".repeat(left) + suffix + "\n")
    const after = Buffer.from(head.slice(3).map((l) => l + "\n").join(""), "utf8")
    fs.writeSync(fd, after)
    bytes = before.length + lineBytes + 1 + after.length
  } finally {
    fs.closeSync(fd)
  }
  return { bytes, lines: head.length + 1 }
}
