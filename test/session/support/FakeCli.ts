/**
 * A fake CLI behind the lowest seam, `ChildProcessSpawner`: the session under test spawns it as it would the
 * real one, writes stream-json frames to its stdin and reads its stdout, but the "process" is a fiber that
 * follows a {@link Behaviour}. Time is the Effect clock, so deadlines are tested with `TestClock`.
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { readFileSync } from "node:fs"
import { plainEnv } from "../../../src/testing/internal/plainEnv.ts"

/** A frame the session wrote (parsed JSON). */
export type Frame = Record<string, any>

export interface Io {
  readonly args: ReadonlyArray<string>
  /** The environment the session gave the process (its own variables; the parent's are not merged in). */
  readonly env: Readonly<Record<string, string>>
  /** The next frame from stdin; fails with `Done` once stdin is closed. */
  readonly read: Effect.Effect<Frame, Cause.Done>
  /** Writes one stdout line: an object as JSON, a string as it is. */
  readonly write: (line: unknown) => Effect.Effect<void>
  /** Writes text to stdout as it is (no newline added: half a line, for example). */
  readonly writeRaw: (text: string) => Effect.Effect<void>
  /** Writes text to stderr. */
  readonly writeStderr: (text: string) => Effect.Effect<void>
}

/** What the fake does; its success is the exit code, reading past the end of stdin exits 0. */
export type Behaviour = (io: Io) => Effect.Effect<number, Cause.Done>

export interface Fake {
  readonly layer: Layer.Layer<ChildProcessSpawner.ChildProcessSpawner>
  /** Every frame the session wrote to stdin, in order. */
  readonly received: ReadonlyArray<Frame>
  /** Signals the session sent. */
  readonly signals: ReadonlyArray<string>
  /** Whether the fake process has exited. */
  readonly exited: () => boolean
  /** How many times it was spawned. */
  readonly spawned: () => number
  /** Lines written but not yet read by the session (what a pipe would hold, or block the CLI on). */
  readonly unread: () => number
}

export const pid = 4242

const signalCodes: Record<string, number> = { SIGTERM: 143, SIGKILL: 137, SIGINT: 130 }

const toLines = (stream: Stream.Stream<Uint8Array, unknown>) =>
  stream.pipe(Stream.decodeText, Stream.splitLines, Stream.filter((line) => line.trim() !== ""))

export const make = (behaviour: Behaviour, options: {
  readonly ignoreSigterm?: boolean
  /** Stops reading stdin after this many lines (the pipe then fills up); default never. */
  readonly stdinLines?: number
} = {}): Fake => {
  const received: Array<Frame> = []
  const signals: Array<string> = []
  let exited = false
  let spawned = 0
  let unread = () => 0
  const spawn = (command: ChildProcess.Command) =>
    Effect.gen(function*() {
      const cmd = command as ChildProcess.StandardCommand
      spawned++
      const scope = yield* Effect.scope
      const stdout = yield* Queue.unbounded<Uint8Array, Cause.Done>()
      const stderr = yield* Queue.unbounded<Uint8Array, Cause.Done>()
      const stdin = yield* Queue.unbounded<Frame, Cause.Done>()
      const exit = yield* Deferred.make<ChildProcessSpawner.ExitCode>()
      const input = (cmd.options.stdin as ChildProcess.StdinConfig).stream as Stream.Stream<Uint8Array>
      yield* toLines(input).pipe(
        Stream.take(options.stdinLines ?? Infinity),
        Stream.runForEach((line) => {
          const frame = JSON.parse(line) as Frame
          received.push(frame)
          return Queue.offer(stdin, frame)
        }),
        Effect.ensuring(Queue.end(stdin)),
        Effect.ignore,
        Effect.forkIn(scope)
      )
      unread = () => Queue.sizeUnsafe(stdout)
      // One line per pull, as a pipe hands over what was written: the reader's pace shows in `unread`.
      const stdoutStream = Stream.fromPull(Effect.succeed(Effect.map(Queue.take(stdout), (chunk) => [chunk] as const)))
      const encoder = new TextEncoder()
      const io: Io = {
        args: cmd.args as ReadonlyArray<string>,
        env: plainEnv(cmd.options.env),
        read: Queue.take(stdin),
        write: (line) => io.writeRaw((typeof line === "string" ? line : JSON.stringify(line)) + "\n"),
        writeRaw: (text) => Effect.asVoid(Queue.offer(stdout, encoder.encode(text))),
        writeStderr: (text) => Effect.asVoid(Queue.offer(stderr, encoder.encode(text)))
      }
      const finish = (code: number) =>
        Effect.suspend(() => {
          exited = true
          return Effect.all([Queue.end(stdout), Queue.end(stderr), Deferred.succeed(exit, ChildProcessSpawner.ExitCode(code))])
        })
      const running = yield* behaviour(io).pipe(Effect.orElseSucceed(() => 0), Effect.flatMap(finish), Effect.forkIn(scope))
      const die = (signal: string) => Effect.andThen(Fiber.interrupt(running), finish(signalCodes[signal] ?? 1))
      const kill = (opts?: ChildProcess.KillOptions) =>
        Effect.suspend(() => {
          if (exited) return Effect.void
          const signal = opts?.killSignal ?? "SIGTERM"
          signals.push(String(signal))
          if (signal !== "SIGTERM" || options.ignoreSigterm !== true) return die(String(signal))
          // SIGTERM ignored: only the follow-up SIGKILL ends it (or nothing, without one).
          return opts?.forceKillAfter === undefined
            ? Deferred.await(exit)
            : Effect.sleep(opts.forceKillAfter).pipe(Effect.andThen(Effect.sync(() => signals.push("SIGKILL"))), Effect.andThen(die("SIGKILL")))
        })
      yield* Scope.addFinalizer(scope, kill({ killSignal: "SIGTERM", forceKillAfter: cmd.options.forceKillAfter }))
      return ChildProcessSpawner.makeHandle({
        pid: ChildProcessSpawner.ProcessId(pid),
        exitCode: Deferred.await(exit),
        isRunning: Effect.sync(() => !exited),
        kill,
        stdin: Sink.drain,
        stdout: stdoutStream,
        stderr: Stream.fromQueue(stderr),
        all: stdoutStream,
        getInputFd: () => Sink.drain,
        getOutputFd: () => Stream.empty,
        unref: Effect.succeed(Effect.void)
      })
    })
  return {
    layer: Layer.succeed(ChildProcessSpawner.ChildProcessSpawner, ChildProcessSpawner.make(spawn)),
    received,
    signals,
    exited: () => exited,
    spawned: () => spawned,
    unread: () => unread()
  }
}

/** What a session-speaking fake does besides the `initialize` handshake, which it always answers. */
export interface Script {
  /** For each user message. */
  readonly onUser?: (frame: Frame, io: Io) => Effect.Effect<void, Cause.Done>
  /** For each control request other than `initialize`; answered with success `{}` by default. */
  readonly onRequest?: (frame: Frame, io: Io) => Effect.Effect<void, Cause.Done>
  /** For each other frame (answers to the fake's own requests, cancellations). */
  readonly onOther?: (frame: Frame, io: Io) => Effect.Effect<void, Cause.Done>
  /** When stdin closes: exit 0 (default), or keep running. */
  readonly onStdinEnd?: "exit" | "hang"
  /** The answer to `initialize`; default `{ commands: [], models: [] }`. */
  readonly initialize?: unknown
  /** Replays (when asked for them) each user message as it arrives (default), or leaves that to `onUser`. */
  readonly replay?: "onArrival" | "byScript"
}

export const success = (frame: Frame, response: unknown = {}) => ({
  type: "control_response",
  response: { subtype: "success", request_id: frame.request_id, response }
})

/** The CLI's error answer to a control request. */
export const failure = (frame: Frame, error: string) => ({
  type: "control_response",
  response: { subtype: "error", request_id: frame.request_id, error }
})

/** The replay the CLI writes when it takes up a user message (`--replay-user-messages`). */
export const replayOf = (frame: Frame) => ({
  type: "user",
  isReplay: true,
  message: frame.message,
  parent_tool_use_id: null,
  uuid: frame.uuid,
  session_id: frame.session_id
})

/**
 * A behaviour that speaks the control protocol like the CLI, driven by a {@link Script}. Asked for replays,
 * it replays each user message before the script answers it.
 */
export const serve = (script: Script): Behaviour => (io) => {
  const replays = io.args.includes("--replay-user-messages") && script.replay !== "byScript"
  const step = (frame: Frame): Effect.Effect<void, Cause.Done> => {
    if (frame.type === "user") {
      return Effect.andThen(replays ? io.write(replayOf(frame)) : Effect.void, script.onUser?.(frame, io) ?? Effect.void)
    }
    if (frame.type !== "control_request") return script.onOther?.(frame, io) ?? Effect.void
    if (frame.request.subtype === "initialize") return io.write(success(frame, script.initialize ?? { commands: [], models: [] }))
    return script.onRequest?.(frame, io) ?? io.write(success(frame))
  }
  const loop: Effect.Effect<number, Cause.Done> = io.read.pipe(
    Effect.matchEffect({
      onFailure: () => script.onStdinEnd === "hang" ? Effect.never : Effect.succeed(0),
      onSuccess: (frame) => Effect.andThen(step(frame), loop)
    })
  )
  return loop
}

/** The event CLI 2.1.330 writes as a user message moves through its queue: queued, started, completed. */
export const lifecycle = (frame: Frame, state: "queued" | "started" | "completed" | "cancelled") => ({
  type: "command_lifecycle",
  command_uuid: frame.uuid,
  state,
  uuid: crypto.randomUUID(),
  session_id: frame.session_id
})

/** A short real transcript (init, assistant, result), as the CLI writes a turn. */
export const helloLines: ReadonlyArray<string> = readFileSync(
  new URL("../../../fixtures/corpus/guess__claude_code__test__fixtures__cli_messages__simple_hello.jsonl", import.meta.url),
  "utf8"
).split("\n").filter((line) => line.trim() !== "")

/** The hello turn with its result text replaced. */
export const helloAnswering = (result: string): ReadonlyArray<unknown> => [
  ...helloLines.slice(0, 2),
  { ...JSON.parse(helloLines[2]), result }
]

/** Writes lines, one each. */
export const writeAll = (io: Io, lines: ReadonlyArray<unknown>) => Effect.forEach(lines, io.write, { discard: true })

/** The session's answer to the fake's request `id`. */
export const responseTo = (fake: Fake, id: string) =>
  fake.received.find((f) => f.type === "control_response" && f.response.request_id === id)?.response

/** The control requests of a subtype the session sent. */
export const requestsOf = (fake: Fake, subtype: string) =>
  fake.received.filter((f) => f.type === "control_request" && f.request.subtype === subtype)
