/**
 * The real CLI against the scripted model server, for session tests.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Stream from "effect/Stream"
import type * as ContentBlock from "../../../src/schema/ContentBlock.ts"
import * as Session from "../../../src/session/Session.ts"
import * as ClaudeSandbox from "../../../src/testing/ClaudeSandbox.ts"
import * as MessagesRequest from "../../../src/testing/MessagesRequest.ts"
import * as Script from "../../../src/testing/Script.ts"
import * as ScriptedServer from "../../../src/testing/ScriptedServer.ts"

/**
 * A scripted server (its main conversation's turns, or a whole script), a sandbox pointing at it, and the
 * session options that run the CLI in the sandbox.
 */
export const setup = (script: ReadonlyArray<Script.Turn> | Script.Script) =>
  Effect.gen(function*() {
    const server = yield* ScriptedServer.make("conversations" in script ? script : Script.make(script))
    const sandbox = yield* ClaudeSandbox.make({ baseUrl: server.url })
    const base: Session.Options = {
      executable: sandbox.executable,
      cwd: sandbox.cwd,
      env: sandbox.env,
      envMode: "replace"
    }
    return { server, sandbox, base }
  })

export { collect } from "./Collect.ts"

/** The tool results the CLI wrote back, in order. */
export const toolResults = (messages: ReadonlyArray<Session.Message>): ReadonlyArray<ContentBlock.ToolResultBlock> =>
  messages.flatMap((m) => m._tag === "UserMessage" ? m.toolResults : [])

/** The last message, which a turn guarantees is its result. */
export const resultOf = (messages: ReadonlyArray<Session.Message>) => {
  const last = messages.at(-1)
  if (last?._tag !== "ResultSuccess") throw new Error(`the turn did not end with a success result: ${last?._tag}`)
  return last
}

/** The model requests of the conversation turns, decoded. */
export const turnBodies = (server: ScriptedServer.Shape) =>
  Effect.map(server.requests, (requests) =>
    ScriptedServer.turnRequests(requests).map((r) => {
      const decoded = MessagesRequest.decode(r.body)
      if (decoded._tag === "None") throw new Error(`not a Messages request: ${JSON.stringify(r.body).slice(0, 200)}`)
      return decoded.value
    }))

export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Polls until the condition holds (the caller's test timeout bounds it). */
export const waitUntil = (condition: Effect.Effect<boolean>): Effect.Effect<void> =>
  Effect.flatMap(condition, (holds) => holds ? Effect.void : Effect.andThen(Effect.sleep("50 millis"), waitUntil(condition)))

// Shows each whole line of `stream` to `watch` as it passes.
// Numbers every chunk tapped, across streams: lines given the same number came in one write.
let chunks = 0

const tapLines = <E, R>(stream: Stream.Stream<Uint8Array, E, R>, watch: (line: string, chunk: number) => void) => {
  const decoder = new TextDecoder()
  let pending = ""
  return Stream.tap(stream, (chunk) =>
    Effect.sync(() => {
      const lines = (pending + decoder.decode(chunk, { stream: true })).split("\n")
      pending = lines.pop()!
      const number = ++chunks
      lines.forEach((line) => watch(line, number))
    }))
}

/**
 * Node's spawner, showing each whole stdout line of the processes it starts to `watch` as well: the lines a
 * session keeps to itself (the CLI's acknowledgements of its messages) become visible to a test. With
 * `stdin`, each whole line written to a process (given as a stream) is shown to it as it goes in. Each line
 * comes with the number of the chunk it ended in (one write), unique across processes.
 */
export const watchingSpawner = (
  watch: (line: string, chunk: number) => void,
  options: { readonly stdin?: ((line: string, chunk: number) => void) | undefined } = {}
): Layer.Layer<ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effect(
    ChildProcessSpawner.ChildProcessSpawner,
    ChildProcessSpawner.ChildProcessSpawner.useSync((node) =>
      ChildProcessSpawner.make((command) =>
        Effect.map(node.spawn(watchingStdin(command, options.stdin)), (handle) =>
          ChildProcessSpawner.makeHandle({ ...handle, stdout: tapLines(handle.stdout, watch) }))
      ))
  ).pipe(Layer.provide(NodeServices.layer))

const watchingStdin = (command: ChildProcess.Command, watch: ((line: string, chunk: number) => void) | undefined): ChildProcess.Command => {
  if (watch === undefined || !ChildProcess.isStandardCommand(command)) return command
  const stdin = command.options.stdin
  const config = typeof stdin === "object" && "stream" in stdin ? stdin : { stream: stdin }
  if (!Stream.isStream(config.stream)) return command
  return ChildProcess.make(command.command, command.args, {
    ...command.options,
    stdin: { ...config, stream: tapLines(config.stream, watch) }
  })
}
