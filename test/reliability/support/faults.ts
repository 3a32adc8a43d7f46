/**
 * Runs a fault plan through the real process layer and the `ClaudeCli` decoder, and collects what a
 * consumer saw: every item before the end, the exit, the pids of the fake CLI and their reports.
 */
import { assert } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClaudeCli from "../../../src/ClaudeCli.ts"
import type * as CliError from "../../../src/ClaudeCliError.ts"
import type * as Spawn from "../../../src/process/internal/spawn.ts"
import type { Message } from "../../../src/schema/Message.ts"
import * as Decode from "../../../src/stream/Decode.ts"
import { type DecodeError, isDecodeError } from "../../../src/stream/DecodeError.ts"
import * as Ndjson from "../../../src/stream/Ndjson.ts"
import * as FaultCli from "../../../src/testing/internal/FaultCli.ts"
import { fixturesDir } from "../../support/Corpus.ts"

export type Item = Message | DecodeError

/** The raw lines of a recorded fixture (system init ... result). */
export const fixtureLines = (name: string): ReadonlyArray<string> =>
  fs.readFileSync(path.join(fixturesDir, "recorded", `${name}.jsonl`), "utf8").split("\n").filter((l) => l !== "")

/** A file in `dir` holding the first line of the demo recording, then `lines`: input for the bin's view and stats. */
export const afterAGoodLine = (dir: string, lines: ReadonlyArray<string>): string => {
  const file = path.join(dir, "input.jsonl")
  fs.writeFileSync(file, [fixtureLines("demo")[0], ...lines].join("\n") + "\n")
  return file
}

/** What the decoder makes of `text` on its own: the expected items, line numbers included. */
export const decodeText = (text: string): Effect.Effect<ReadonlyArray<Item>> =>
  Ndjson.lines(Stream.make(new TextEncoder().encode(text)), { onBadLine: "emit" }).pipe(
    Stream.map((line): Item => {
      if (isDecodeError(line)) return line
      const decoded = Decode.decodeLine(line)
      return isDecodeError(decoded) ? decoded : decoded.message
    }),
    Stream.runCollect
  )

export interface Outcome {
  readonly items: ReadonlyArray<Item>
  readonly exit: Exit.Exit<void, CliError.ClaudeCliError>
  readonly pids: ReadonlyArray<number>
  /** The children the fake CLI started (`FaultCli.child`). */
  readonly children: ReadonlyArray<number>
  readonly reports: ReadonlyArray<FaultCli.Report | undefined>
}

export interface RunOptions {
  readonly config?: Omit<Spawn.Config, "executable"> | undefined
  readonly prompt?: string | undefined
  /** `onBadLine: "emit"`: bad lines in-band. */
  readonly lenient?: boolean | undefined
  /** Applied to the stream before it is run (take, throttle, ...). */
  readonly pipe?: ((stream: Stream.Stream<Item, CliError.ClaudeCliError>) => Stream.Stream<Item, CliError.ClaudeCliError>) | undefined
  /** Where items are collected as they arrive (to watch a run in progress). */
  readonly into?: Array<Item> | undefined
}

/** Runs one query against the installed fake CLI; the stream is over (and the CLI ended) when this returns. */
export const runWith = (
  options: RunOptions = {}
): Effect.Effect<Outcome, never, ClaudeCli.ClaudeCli | FaultCli.FaultCli> =>
  Effect.gen(function*() {
    const cli = yield* ClaudeCli.ClaudeCli
    const fault = yield* FaultCli.FaultCli
    const items = options.into ?? []
    const prompt = options.prompt ?? "hi"
    const stream: Stream.Stream<Item, CliError.ClaudeCliError> = options.lenient
      ? cli.query(prompt, { onBadLine: "emit" })
      : cli.query(prompt)
    const exit = yield* (options.pipe ?? ((s) => s))(stream).pipe(
      Stream.runForEach((item) => Effect.sync(() => items.push(item))),
      Effect.exit
    )
    const pids = yield* fault.pids
    const reports = yield* Effect.forEach(pids, fault.report)
    return { items, exit, pids, children: yield* fault.children, reports }
  })

/** The fake CLI of `plan` as `ClaudeCli`, with a short kill grace period. */
export const layer = (plan: FaultCli.Plan, config: RunOptions["config"] = {}) =>
  FaultCli.layer(plan, { killGracePeriod: "300 millis", ...config })

/** {@link runWith} on a fresh fake CLI following `plan`. */
export const run = (plan: FaultCli.Plan, options: RunOptions = {}): Effect.Effect<Outcome> =>
  runWith(options).pipe(Effect.provide(layer(plan, options.config)), Effect.orDie)

/** The reason of a failed exit. */
export const reasonOf = (exit: Exit.Exit<unknown, CliError.ClaudeCliError>): CliError.Reason => {
  assert.isTrue(Exit.isFailure(exit), "the stream should have failed")
  const error = Exit.findErrorOption(exit)
  assert.isTrue(error._tag === "Some", "the stream should have failed with a typed error")
  return (error as { readonly value: CliError.ClaudeCliError }).value.reason
}

/** Narrows a reason to one tag, failing the test otherwise. */
export const expectReason = <Tag extends CliError.Reason["_tag"]>(
  exit: Exit.Exit<unknown, CliError.ClaudeCliError>,
  tag: Tag
): Extract<CliError.Reason, { readonly _tag: Tag }> => {
  const reason = reasonOf(exit)
  assert.strictEqual(reason._tag, tag, reason.message)
  return reason as Extract<CliError.Reason, { readonly _tag: Tag }>
}

/** Polls (every 20 ms, for at most `within`) until none of `pids` runs; fails naming those still running. */
export const awaitGone = (pids: ReadonlyArray<number>, within: Duration.Input): Effect.Effect<void> =>
  Effect.gen(function*() {
    const deadline = Date.now() + Duration.toMillis(Duration.fromInputUnsafe(within))
    let left = pids.filter(FaultCli.isAlive)
    while (left.length > 0 && Date.now() < deadline) {
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      left = left.filter(FaultCli.isAlive)
    }
    assert.deepStrictEqual(left, [], "processes still running")
  })

/** Every fake CLI run started, and none of them still running. */
export const assertNoneLeft = (pids: ReadonlyArray<number>, runs = 1): void => {
  assert.strictEqual(pids.length, runs, "runs of the fake CLI")
  for (const pid of pids) assert.isFalse(FaultCli.isAlive(pid), `pid ${pid} is still running`)
}
