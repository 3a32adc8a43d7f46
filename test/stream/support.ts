/**
 * Helpers for the stream tests: byte chunkings and a reference line splitter
 * written independently of the library (string split on "\n").
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

/** Cuts `bytes` at the given offsets (sorted, deduplicated, clamped). */
export const chunkAt = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(bytes.length, c))))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const p of points) {
    if (p > start) chunks.push(bytes.subarray(start, p))
    start = Math.max(start, p)
  }
  if (start < bytes.length) chunks.push(bytes.subarray(start))
  return chunks
}

/** The byte chunks as a stream that delivers each one in a pull of its own. */
export const byteStream = (chunks: ReadonlyArray<Uint8Array>): Stream.Stream<Uint8Array> =>
  Stream.fromIterable(chunks, { chunkSize: 1 })

/** Whether a cut at `at` falls inside a multi-byte character (`bytes[at]` is a UTF-8 continuation byte). */
export const isInsideCharacter = (bytes: Uint8Array, at: number): boolean => at < bytes.length && (bytes[at]! & 0xc0) === 0x80

/**
 * Random cut points inside `bytes` (or a buffer of that many bytes). When the bytes hold multi-byte characters,
 * half the points fall inside one (before a continuation byte): uniform points would rarely land there.
 */
export const cutsArb = (input: Uint8Array | number): fc.Arbitrary<Array<number>> => {
  const length = typeof input === "number" ? input : input.length
  const anywhere = fc.integer({ min: 0, max: Math.max(0, length) })
  const inside: Array<number> = []
  if (typeof input !== "number") for (let at = 0; at < length; at++) if (isInsideCharacter(input, at)) inside.push(at)
  const point = inside.length === 0
    ? anywhere
    : fc.oneof(anywhere, fc.integer({ min: 0, max: inside.length - 1 }).map((i) => inside[i]!))
  return fc.array(point, { maxLength: Math.min(64, length + 1) })
}

/** Runs a synchronous stream; returns the collected values or the failure. */
export const collect = <A, E>(stream: Stream.Stream<A, E>): Exit.Exit<Array<A>, E> =>
  Effect.runSyncExit(Stream.runCollect(stream))

/** Runs a synchronous stream and returns the values emitted before the end or the failure. */
export const collectUntilFailure = <A, E>(
  stream: Stream.Stream<A, E>
): { readonly values: Array<A>; readonly failure: E | undefined } => {
  const values: Array<A> = []
  const exit = Effect.runSyncExit(Stream.runForEach(stream, (a) => Effect.sync(() => values.push(a))))
  if (Exit.isSuccess(exit)) return { values, failure: undefined }
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (failure === undefined || failure._tag !== "Fail") throw new Error(`stream died: ${String(exit.cause)}`)
  return { values, failure: failure.error }
}

/** Reference splitter: lines by "\n", CR stripped, blank (JSON whitespace only) lines skipped, numbers 1-based. */
export const referenceLines = (text: string): Array<{ line: number; text: string }> =>
  text.replace(/^\uFEFF/, "").split("\n").flatMap((raw, i) => {
    const t = raw.endsWith("\r") ? raw.slice(0, -1) : raw
    return /^[ \t\r]*$/.test(t) ? [] : [{ line: i + 1, text: t }]
  })
