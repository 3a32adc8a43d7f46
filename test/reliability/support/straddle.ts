/**
 * Secrets straddling each place where the library cuts a text before showing it: the start of the stderr
 * tail (where the held bytes start, and where the shown text starts, and where the held bytes start when
 * redaction leaves fewer than the limit, so that they are shown whole), the end of a bad line's raw cut
 * (plain text, and a JSON string where the secret is escaped), the raw cut of a line too long, a last line
 * cut by the CLI's exit (short, and long enough to be cut again), the last two also with the secret spelled
 * in other JSON escapes (\uXXXX, \/). Each case puts the cut `k` characters into the secret; the quote
 * JSON.parse makes of a syntax error is a cut at both ends, wherever the error is.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ClaudeCli from "../../../src/ClaudeCli.ts"
import * as Live from "../../../src/layers/Live.ts"
import { rawCutLength } from "../../../src/stream/internal/cut.ts"
import * as FakeSpawner from "../../../src/testing/FakeSpawner.ts"
import { runToEnd } from "../../layers/support.ts"
import * as Hostile from "./hostile.ts"
import * as Secrets from "./secrets.ts"
import { errorText, exitText } from "./observed.ts"

/** The filler around the secrets: a character none of them holds. */
const pad = (n: number) => "~".repeat(Math.max(0, n))

const tailBytes = 256
const maxLineBytes = 1024

export interface Case {
  readonly name: string
  readonly reply: FakeSpawner.Reply
  /** The part of the secret on the shown side of the cut, with what is next to it: shown only if it leaked. */
  readonly leak: string
}

// A secret as a JSON string's content with escapes JSON.stringify does not make: \uXXXX first, \/ for "/".
const spell = (secret: string): string =>
  secret === ""
    ? ""
    : "\\u" + secret.charCodeAt(0).toString(16).padStart(4, "0") + JSON.stringify(secret.slice(1)).slice(1, -1).replaceAll("/", "\\/")

/** Every case of a cut `k` characters into `secret` (as written, and JSON-escaped where the cut is in JSON). */
export const cases = (secret: string, k: number): ReadonlyArray<Case> => {
  const escaped = JSON.stringify(secret).slice(1, -1)
  const init = Hostile.helloLines.init + "\n"
  const rest = secret.slice(k)
  // The last `bytes` of stderr start `k` characters into the secret.
  const tail = (bytes: number): FakeSpawner.Reply => ({
    stdout: init,
    stderr: pad(600) + secret + "\n" + pad(bytes - rest.length - 1),
    exitCode: 3
  })
  // Key-shaped values after the secret, which redaction shrinks from 65 bytes to 11: the held bytes start
  // `k` characters into the secret, and once redacted they fit in the limit, so they are shown from there.
  // A clean exit without a result: MissingResult shows the tail as the stderr reader redacted it.
  const held = 2 * tailBytes - Buffer.byteLength(rest) - 1
  const keys = (Secrets.shaped.value + " ").repeat(Math.floor(held / (Secrets.shaped.value.length + 1)))
  const cases: Array<Case> = [
    { name: "the held stderr's start", reply: tail(2 * tailBytes), leak: rest + "\n~" },
    {
      name: "the held stderr's start, shown whole once redacted",
      reply: { stdout: init, stderr: pad(600) + secret + "\n" + keys + pad(held - keys.length), exitCode: 0 },
      leak: rest + "\n<redacted> "
    },
    { name: "the shown stderr tail's start", reply: tail(tailBytes), leak: rest + "\n~" },
    {
      name: "a plain-text line's raw cut",
      reply: { stdout: init + pad(rawCutLength - k) + secret + " and more\n" },
      leak: "~" + secret.slice(0, k)
    },
    {
      name: "a line too long's raw cut",
      reply: { stdout: init + pad(rawCutLength - k) + secret + pad(maxLineBytes) + "\n" },
      leak: "~" + secret.slice(0, k)
    },
    {
      name: "a last line cut by the exit",
      reply: { stdout: init + `{"type":"assistant","key":"${escaped.slice(0, k)}`, exitCode: 3 },
      leak: "\"key\":\"" + escaped.slice(0, k)
    },
    {
      name: "a long last line's cut, cut by the exit",
      reply: { stdout: init + pad(rawCutLength - k) + secret + pad(100), exitCode: 3 },
      leak: "~" + secret.slice(0, k)
    },
  ]
  // The first `k` characters in other JSON escapes: the first one as \uXXXX, every "/" as \/.
  const spelled = spell(secret.slice(0, k))
  const longHead = `{"type":"assistant","key":"`
  cases.push(
    {
      name: "a line too long's raw cut, the secret in \\u and \\/ escapes",
      reply: { stdout: init + longHead + pad(rawCutLength - longHead.length - spelled.length) + spell(secret) + pad(maxLineBytes) + "\"}\n" },
      leak: "~" + spelled
    },
    {
      name: "a last line cut by the exit, the secret in \\u and \\/ escapes",
      reply: { stdout: init + longHead + spelled, exitCode: 3 },
      leak: "\"key\":\"" + spelled
    }
  )
  if (k < escaped.length) {
    const head = `{"type":"assistant","message":"`
    cases.push({
      name: "a JSON line's raw cut, the secret escaped",
      reply: { stdout: init + head + pad(rawCutLength - k - head.length) + escaped + "\"}\n" },
      leak: "~" + escaped.slice(0, k)
    })
  }
  return cases
}

/**
 * A last line cut by the CLI's ending `b` bytes into the secret's UTF-8, inside a character when `b` falls
 * there (its bytes then decode to a replacement character, or fail as invalid UTF-8): by a failed exit, by a
 * kill and by a clean exit. `undefined` when the cut leaves no whole character of the secret to show.
 */
export const byteCases = (secret: string, b: number): ReadonlyArray<Case> | undefined => {
  const bytes = Buffer.from(secret).subarray(0, b)
  const whole = new TextDecoder().decode(bytes).replace(/\uFFFD+$/, "")
  if (whole === "") return undefined
  const stdout = [Hostile.helloLines.init + "\n", Buffer.concat([Buffer.from(`{"type":"assistant","key":"`), bytes])]
  const leak = "\"key\":\"" + JSON.stringify(whole).slice(1, -1)
  const at = `${b} bytes into the secret`
  return [
    { name: `a last line cut by the exit ${at}`, reply: { stdout, exitCode: 3 }, leak },
    { name: `a last line cut by a kill ${at}`, reply: { stdout, signal: "SIGKILL" }, leak },
    { name: `a last line cut by a clean exit ${at}`, reply: { stdout, exitCode: 0 }, leak }
  ]
}

/** JSON.parse quotes 10 characters around a syntax error: here the start of the secret, past the raw cut. */
export const syntaxQuote = (secret: string): Case => ({
  name: "the quote of a JSON syntax error",
  reply: { stdout: Hostile.helloLines.init + "\n" + `{"type":"assistant","pad":"${pad(rawCutLength)}","message":${secret}}\n` },
  leak: "\":" + secret.slice(0, 3)
})

/** Runs a case strictly and leniently with `secret` in the query's env; returns everything but the messages. */
export const errorsOf = (c: Case, name: string, secret: string): Effect.Effect<string> =>
  Effect.gen(function*() {
    const layer = Live.layerWith({ stderrTailBytes: tailBytes, maxLineBytes }).pipe(Layer.provide(FakeSpawner.layer(c.reply)))
    const options = { env: { [name]: secret } }
    const strict = yield* runToEnd(Stream.provide(ClaudeCli.query("hi", options), layer))
    const lenient = yield* runToEnd(Stream.provide(ClaudeCli.query("hi", { ...options, onBadLine: "emit" }), layer))
    const inBand = lenient.items.filter((item) => item instanceof Error).map(errorText)
    return [exitText(strict.exit), exitText(lenient.exit), ...inBand].join("\n")
  })
