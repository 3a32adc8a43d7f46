/**
 * The real CLI against the scripted model server, for session tests.
 */
import * as Effect from "effect/Effect"
import type * as ContentBlock from "../../../src/schema/ContentBlock.ts"
import * as Session from "../../../src/session/Session.ts"
import * as ClaudeSandbox from "../../../src/testing/ClaudeSandbox.ts"
import * as MessagesRequest from "../../../src/testing/MessagesRequest.ts"
import * as Script from "../../../src/testing/Script.ts"
import * as ScriptedServer from "../../../src/testing/ScriptedServer.ts"

/** A scripted server, a sandbox pointing at it, and the session options that run the CLI in the sandbox. */
export const setup = (turns: ReadonlyArray<Script.Turn>) =>
  Effect.gen(function*() {
    const server = yield* ScriptedServer.make(Script.make(turns))
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
