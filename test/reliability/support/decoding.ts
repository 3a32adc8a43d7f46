/**
 * Runs bytes through the library's decode pipeline (bytes → Ndjson → decode) in strict and lenient mode and
 * reduces what came out to comparable outlines: `{ line, tag }` for messages (with the raw line) and
 * `{ line, reason }` for errors. A defect or an uncaught exception fails the test.
 */
import { assert } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as Decode from "../../../src/stream/Decode.ts"
import type * as Ndjson from "../../../src/stream/Ndjson.ts"
import { DecodeError } from "../../../src/stream/DecodeError.ts"
import { rawCutLength } from "../../../src/stream/internal/cut.ts"
import type { Expect } from "./hostile.ts"

export type Outline =
  | { readonly line: number; readonly tag: string; readonly raw: string }
  | { readonly line: number; readonly reason: DecodeError["reason"]["_tag"] }

export const outline = (item: Decode.DecodedLine | DecodeError): Outline =>
  item instanceof DecodeError
    ? { line: item.line, reason: item.reason._tag }
    : { line: item.line, tag: item.message._tag, raw: item.raw }

/** What an outline says, in the vocabulary of `Expect`. */
export const kindOf = (o: Outline): Expect => "reason" in o ? o.reason : o.tag as Expect

/** `bytes` cut into chunks of `size` (the last may be shorter). */
export const chunked = (bytes: Uint8Array, size: number): Array<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size))
  return chunks
}

/** Fails the test when the exit is a defect or an interruption rather than success or a typed failure. */
export const assertNoDefect = (exit: Exit.Exit<unknown, unknown>, what: string): void => {
  if (Exit.isSuccess(exit)) return
  assert.isFalse(Cause.hasDies(exit.cause), `${what}: a defect: ${Cause.pretty(exit.cause)}`)
  assert.isFalse(Cause.hasInterrupts(exit.cause), `${what}: interrupted`)
}

/** The typed failure of an exit, `undefined` on success. */
export const failureOf = <E>(exit: Exit.Exit<unknown, E>): E | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const found = Exit.findErrorOption(exit)
  return found._tag === "Some" ? found.value : undefined
}

export interface Decoded {
  /** Lenient: every line, in order. */
  readonly lenient: ReadonlyArray<Outline>
  /** Strict: the lines before the end, and the error it failed with (if any). */
  readonly strict: ReadonlyArray<Outline>
  readonly strictError: DecodeError | undefined
  /** The lenient errors themselves, to check their raw cuts. */
  readonly errors: ReadonlyArray<DecodeError>
}

/** Decodes `chunks()` both ways through `Decode.records`, failing and with `onBadLine: "emit"`. */
export const decodeBoth = (
  chunks: () => Iterable<Uint8Array>,
  options?: Ndjson.Options
): Effect.Effect<Decoded> =>
  Effect.gen(function*() {
    const lenientItems: Array<Decode.DecodedLine | DecodeError> = []
    const lenientExit = yield* Stream.fromIterable(chunks()).pipe(
      Decode.records({ ...options, onBadLine: "emit" }),
      Stream.runForEach((item) => Effect.sync(() => lenientItems.push(item))),
      Effect.exit
    )
    assertNoDefect(lenientExit, "lenient decoding")
    assert.isTrue(Exit.isSuccess(lenientExit), "lenient decoding never fails")
    const strictItems: Array<Decode.DecodedLine> = []
    const strictExit = yield* Stream.fromIterable(chunks()).pipe(
      Decode.records({ ...options, onBadLine: "fail" }),
      Stream.runForEach((item) => Effect.sync(() => strictItems.push(item))),
      Effect.exit
    )
    assertNoDefect(strictExit, "strict decoding")
    return {
      lenient: lenientItems.map(outline),
      strict: strictItems.map(outline),
      strictError: failureOf(strictExit),
      errors: lenientItems.filter((item): item is DecodeError => item instanceof DecodeError)
    }
  })

/** Strict decoding is lenient decoding cut at its first error, which it fails with. */
export const assertStrictIsLenientPrefix = (decoded: Decoded): void => {
  const first = decoded.lenient.findIndex((o) => "reason" in o)
  if (first === -1) {
    assert.isUndefined(decoded.strictError, "no bad line: strict decoding succeeds")
    assert.deepStrictEqual(decoded.strict, decoded.lenient)
    return
  }
  const error = decoded.lenient[first] as Extract<Outline, { reason: unknown }>
  assert.deepStrictEqual(decoded.strict, decoded.lenient.slice(0, first), "strict: every line before the first bad one")
  assert.isDefined(decoded.strictError, "strict decoding fails at the first bad line")
  assert.deepStrictEqual({ line: decoded.strictError!.line, reason: decoded.strictError!.reason._tag }, error)
}

const lossy = new TextDecoder("utf-8", { ignoreBOM: true })

/** An error names its line and carries a bounded cut of it that starts like the line. */
export const assertRawCut = (error: DecodeError, lineBytes: Uint8Array): void => {
  assert.include(error.message, `line ${error.line}:`)
  assert.isAtMost(error.raw.length, rawCutLength + 40, "the raw cut is bounded")
  const start = lossy.decode(lineBytes.subarray(0, 64)).slice(0, 16)
  assert.isTrue(error.raw.startsWith(start), `raw cut ${JSON.stringify(error.raw.slice(0, 40))} starts like the line`)
}

/** Splits bytes into lines on 0x0A (the last piece is what follows the last newline, maybe empty). */
export const splitLines = (bytes: Uint8Array): Array<Uint8Array> => {
  const pieces: Array<Uint8Array> = []
  let start = 0
  for (let nl = bytes.indexOf(0x0a); nl !== -1; nl = bytes.indexOf(0x0a, start)) {
    pieces.push(bytes.subarray(start, nl))
    start = nl + 1
  }
  pieces.push(bytes.subarray(start))
  return pieces
}

/** Joins lines with newlines (the inverse of {@link splitLines}). */
export const joinLines = (pieces: ReadonlyArray<Uint8Array>): Uint8Array => {
  const newline = Uint8Array.of(0x0a)
  return Buffer.concat(pieces.flatMap((piece, i) => i === 0 ? [piece] : [newline, piece]))
}

/** Outlines of `base` with `inserted` placed at line `at` (1-based) and every later line moved down. */
export const insertOutlines = (
  base: ReadonlyArray<Outline>,
  at: number,
  inserted: ReadonlyArray<Outline>
): Array<Outline> => [
  ...base.filter((o) => o.line < at),
  ...inserted,
  ...base.filter((o) => o.line >= at).map((o) => ({ ...o, line: o.line + inserted.length }))
]
