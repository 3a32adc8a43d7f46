/**
 * Hostile stream-json input, built deterministically from a recorded run: the small cases committed under
 * `fixtures/bad-input/` (written by `scripts/bad-input.ts`, checked against this module by the tests) and
 * the big ones, generated as chunks at test time (a 100 MiB line, 10^6 tiny lines, 100k levels of nesting).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { Reason } from "../../../src/stream/DecodeError.ts"
import { fixturesDir } from "../../support/Corpus.ts"

export const badInputDir = path.join(fixturesDir, "bad-input")
export const expectedFile = path.join(badInputDir, "expected.json")

/** What one hostile line must decode to: a `DecodeError` reason, or the `_tag` of the message. */
export type Expect = Reason["_tag"] | "UnknownMessage" | "AssistantMessage" | "ResultSuccess" | "ResultError" | "UserMessage"

export interface Case {
  /** What the line is, for the README and failure messages. */
  readonly case: string
  /** The line without its newline. */
  readonly bytes: Uint8Array
  readonly expect: Expect
}

const [init, assistant, result] = fs.readFileSync(path.join(fixturesDir, "recorded", "simple_hello.jsonl"), "utf8")
  .split("\n")
  .filter((line) => line !== "")

export const helloLines = { init, assistant, result } as const

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)
const concat = (...parts: ReadonlyArray<string | ReadonlyArray<number>>): Uint8Array =>
  Uint8Array.from(parts.flatMap((part) => typeof part === "string" ? Array.from(utf8(part)) : part))

// The assistant line with raw bytes where its text ("Hello! How can I help you today?") says "Hello".
const [textBefore, textAfter] = assistant.split("Hello")
const inText = (bytes: ReadonlyArray<number>): Uint8Array => concat(textBefore, bytes, textAfter)
const replace = (line: string, pattern: RegExp, by: string): string => {
  const out = line.replace(pattern, by)
  if (out === line) throw new Error(`hostile: ${pattern} does not occur in the line`)
  return out
}
const withHead = (line: string, head: string): string => line.replace(/^\{/, `{${head}`)
const text = (value: string, expect: Expect, description: string): Case => ({ case: description, bytes: utf8(value), expect })

const toolUse = (input: string) =>
  `{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[` +
  `{"type":"tool_use","id":"toolu_1","name":"Bash","input":${input}}],"stop_reason":null,"stop_sequence":null,` +
  `"usage":{"input_tokens":1,"output_tokens":1}},"parent_tool_use_id":null,"session_id":"s"}`

/** The committed files: name (without `.ndjson`) to cases, one line each. */
export const committed: Readonly<Record<string, ReadonlyArray<Case>>> = {
  truncated: [
    text(assistant.slice(0, 60), "InvalidJson", "an assistant line cut inside a string"),
    text(replace(result, /"total_cost_usd":[^,]*,.*$/, `"total_cost_usd":`), "InvalidJson", "a result line cut after a key's colon"),
    text(result.slice(0, -1), "InvalidJson", "a result line missing its closing brace"),
    text(`${textBefore}Hel\\`, "InvalidJson", "cut right after a backslash inside a string"),
    text(`${textBefore}Hel\\u00`, "InvalidJson", "cut inside a \\u escape"),
    text("{", "InvalidJson", "a lone opening brace"),
    text(`"`, "InvalidJson", "a lone quote"),
    text(`{"type":"keep_alive"}{"type":"keep_alive"}`, "InvalidJson", "two objects on one line (a lost newline)"),
    text("Warning: something went wrong", "InvalidJson", "a plain-text warning between the JSON lines")
  ],
  "invalid-utf8": [
    { case: "a lone continuation byte 0x80 in a string", bytes: inText([0x80]), expect: "InvalidUtf8" },
    { case: "an overlong encoding (C0 AF for '/')", bytes: inText([0xc0, 0xaf]), expect: "InvalidUtf8" },
    { case: "a 3-byte sequence cut short (E2 82)", bytes: inText([0xe2, 0x82]), expect: "InvalidUtf8" },
    { case: "a UTF-16 surrogate encoded as UTF-8 (ED A0 80)", bytes: inText([0xed, 0xa0, 0x80]), expect: "InvalidUtf8" },
    { case: "a code point above U+10FFFF (F4 90 80 80)", bytes: inText([0xf4, 0x90, 0x80, 0x80]), expect: "InvalidUtf8" },
    { case: "the byte 0xFF", bytes: inText([0xff]), expect: "InvalidUtf8" },
    { case: "Latin-1 'é' (0xE9) instead of UTF-8", bytes: inText([0x43, 0x61, 0x66, 0xe9]), expect: "InvalidUtf8" },
    { case: "control: valid multi-byte text (emoji, CJK, combining marks)", bytes: inText(Array.from(utf8("👋 你好 é"))), expect: "AssistantMessage" },
    { case: "a BOM in the middle of the stream (data, not whitespace)", bytes: concat([0xef, 0xbb, 0xbf], assistant), expect: "InvalidJson" }
  ],
  "nul-bytes": [
    { case: "a raw NUL inside a string", bytes: inText([0x00]), expect: "InvalidJson" },
    { case: "a line of one NUL", bytes: concat([0x00]), expect: "InvalidJson" },
    { case: "a NUL before the opening brace", bytes: concat([0x00], assistant), expect: "InvalidJson" },
    { case: "a NUL after the closing brace", bytes: concat(assistant, [0x00]), expect: "InvalidJson" },
    { case: "1000 NULs", bytes: new Uint8Array(1000), expect: "InvalidJson" },
    text(`${textBefore}\\u0000${textAfter}`, "AssistantMessage", "control: an escaped \\u0000 inside a string is valid JSON")
  ],
  numbers: [
    // JSON.parse reads them as ±Infinity, which no JSON text can hold: a message's numbers are finite.
    text(replace(result, /"total_cost_usd":[^,]*/, `"total_cost_usd":1e400`), "SchemaMismatch", "total_cost_usd 1e400 (Infinity)"),
    text(replace(result, /"duration_ms":[^,]*/, `"duration_ms":-1e400`), "SchemaMismatch", "duration_ms -1e400 (-Infinity)"),
    text(replace(result, /"duration_api_ms":[^,]*/, `"duration_api_ms":1e-400`), "ResultSuccess", "duration_api_ms 1e-400 (underflows to 0)"),
    text(replace(result, /"num_turns":[^,]*/, `"num_turns":123456789012345678901234567890`), "ResultSuccess", "num_turns beyond 2^53 (nearest double)"),
    text(replace(result, /"num_turns":[^,]*/, `"num_turns":-0`), "ResultSuccess", "num_turns -0"),
    text(replace(result, /"total_cost_usd":[^,]*/, `"total_cost_usd":NaN`), "InvalidJson", "a NaN literal"),
    text(replace(result, /"total_cost_usd":[^,]*/, `"total_cost_usd":Infinity`), "InvalidJson", "an Infinity literal"),
    text(replace(result, /"num_turns":[^,]*/, `"num_turns":0x10`), "InvalidJson", "a hexadecimal literal"),
    text(replace(result, /"num_turns":[^,]*/, `"num_turns":007`), "InvalidJson", "leading zeros"),
    text(replace(result, /"num_turns":[^,]*/, `"num_turns":"3"`), "SchemaMismatch", "a number written as a string")
  ],
  "duplicate-keys": [
    text(withHead(assistant, `"type":"banana",`).replace(`"type":"banana","type":"assistant"`, `"type":"assistant","type":"banana"`), "UnknownMessage", "type twice, the last one unknown (the last wins)"),
    text(withHead(assistant, `"type":"banana",`), "AssistantMessage", "type twice, the last one assistant"),
    text(assistant.replace(/\}$/, `,"message":"overwritten"}`), "SchemaMismatch", "message twice, the last one a string"),
    text(result.replace(/\}$/, `,"subtype":"error_during_execution","is_error":true}`), "ResultError", "subtype twice, the last one an error subtype"),
    text(result.replace(/\}$/, `,"session_id":"second"}`), "ResultSuccess", "session_id twice")
  ],
  "prototype-pollution": [
    text(withHead(assistant, `"__proto__":{"polluted":true},`), "AssistantMessage", "__proto__ at the top of a known message"),
    text(withHead(assistant, `"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true},`), "AssistantMessage", "constructor.prototype and prototype keys"),
    text(toolUse(`{"__proto__":{"polluted":true},"command":"ls"}`), "AssistantMessage", "__proto__ inside a tool input"),
    text(`{"__proto__":{"type":"assistant"}}`, "SchemaMismatch", "a type hidden in __proto__ (not an own field)"),
    text(`{"type":"banana","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}`, "UnknownMessage", "an unknown message with pollution keys"),
    text(`{"type":"__proto__"}`, "UnknownMessage", "type \"__proto__\""),
    text(`{"type":"system","subtype":"__proto__","session_id":"s"}`, "UnknownMessage", "subtype \"__proto__\""),
    text(`{"type":"toString"}`, "UnknownMessage", "type \"toString\" (an Object.prototype member)"),
    text(replace(result, /"modelUsage":\{/, `"modelUsage":{"__proto__":{"inputTokens":1,"outputTokens":1,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"webSearchRequests":0,"costUSD":0,"contextWindow":1,"maxOutputTokens":1},`), "ResultSuccess", "__proto__ as a model name in modelUsage")
  ]
}

/** The bytes of a committed file: its cases, one per line. */
export const fileBytes = (cases: ReadonlyArray<Case>): Uint8Array =>
  Buffer.concat(cases.flatMap((c) => [c.bytes, Buffer.from("\n")]))

/** `expected.json`: per file, per line, the case and what it decodes to. */
export const expectedJson = (): string =>
  JSON.stringify(
    Object.fromEntries(
      Object.entries(committed).map(([name, cases]) => [`${name}.ndjson`, cases.map((c) => ({ case: c.case, expect: c.expect }))])
    ),
    null,
    2
  ) + "\n"

// --- generated at test time ---

/** `levels` nested arrays (or objects) around `1`, as JSON text. */
export const nested = (levels: number, kind: "array" | "object"): string =>
  kind === "array" ? "[".repeat(levels) + "1" + "]".repeat(levels) : `{"a":`.repeat(levels) + "1" + "}".repeat(levels)

/** Hostile deep lines: nesting where the schema keeps opaque values, at the top, and where it expects a string. */
export const deepCases = (levels: number): ReadonlyArray<Case> => [
  text(toolUse(nested(levels, "object")), "AssistantMessage", `${levels} levels in a tool input`),
  text(`{"type":"banana","value":${nested(levels, "array")}}`, "UnknownMessage", `${levels} levels in an unknown message`),
  text(withHead(assistant, `"extra":${nested(levels, "object")},`), "AssistantMessage", `${levels} levels in an extra field`),
  text(nested(levels, "array"), "SchemaMismatch", `${levels} levels at the top (not an object)`),
  text(replace(result, /"result":"[^"]*"/, `"result":${nested(levels, "array")}`), "SchemaMismatch", `${levels} levels where a string belongs`),
  text(nested(levels, "object").slice(0, -1), "InvalidJson", `${levels} levels, one closing brace short`)
]

/**
 * One line of `bytes` bytes (a keep_alive padded with spaces inside a string, valid JSON if it were
 * accepted) as chunks of `chunkBytes`, without its newline. The chunk is reused, as a pipe reader may.
 */
export function* bigLine(bytes: number, chunkBytes = 1 << 20): Generator<Uint8Array> {
  const head = utf8(`{"type":"keep_alive","pad":"`)
  const tail = utf8(`"}`)
  const pad = new Uint8Array(chunkBytes).fill(0x20)
  yield head
  let left = bytes - head.length - tail.length
  while (left > 0) {
    const n = Math.min(left, chunkBytes)
    yield n === chunkBytes ? pad : pad.subarray(0, n)
    left -= n
  }
  yield tail
}

/**
 * `count` tiny lines in chunks of about 64 KiB: `{"type":"keep_alive"}`, with every `badEvery`-th line a
 * lone `{` (invalid JSON) and every `unknownEvery`-th line `{"type":"x"}` (unknown).
 */
export function* tinyLines(count: number, badEvery: number, unknownEvery: number): Generator<Uint8Array> {
  const lines = [`{"type":"keep_alive"}\n`, "{\n", `{"type":"x"}\n`].map(utf8)
  const chunk = new Uint8Array(64 * 1024 + 32)
  let used = 0
  for (let i = 1; i <= count; i++) {
    const line = i % badEvery === 0 ? lines[1] : i % unknownEvery === 0 ? lines[2] : lines[0]
    chunk.set(line, used)
    used += line.length
    if (used >= 64 * 1024) {
      yield chunk.slice(0, used)
      used = 0
    }
  }
  if (used > 0) yield chunk.slice(0, used)
}
