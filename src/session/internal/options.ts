/**
 * The CLI arguments of a session, and the checks that reject options that cannot work together.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as QueryOptions from "../../QueryOptions.ts"
import * as DerivedOptions from "../../internal/queryOptions.ts"
import * as Initialize from "./initialize.ts"
import * as SessionError from "../SessionError.ts"

/** What the checks and the arguments read of a session's options (`Session.Options` is one). */
export interface Options extends QueryOptions.QueryOptions, Initialize.Options {
  readonly canUseTool?: unknown
  readonly onAskUserQuestion?: unknown
  readonly onUserDialog?: unknown
  readonly mcpServers?: ReadonlyArray<{ readonly name: string }> | undefined
}

const invalid = (description: string) => Effect.fail(SessionError.make(new SessionError.InvalidOptions({ description })))

// Flags the session sets itself; given again through `extraArgs` they would contradict it.
const reservedFlags = ["-p", "--print", "--input-format", "--output-format"]

const replayFlag = "--replay-user-messages"

// Modes in which the CLI never asks, so a permission callback would silently never run.
const askingNever = ["bypassPermissions", "dontAsk"]

const flagOf = (arg: string) => arg.split("=")[0]

/** The permission bypass `extraArgs` asks for, as written, if any. */
const bypassIn = (extra: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < extra.length; i++) {
    const arg = extra[i]
    if (flagOf(arg) === "--dangerously-skip-permissions") return arg
    if (flagOf(arg) !== "--permission-mode") continue
    const mode = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : extra[i + 1]
    if (mode !== undefined && askingNever.includes(mode)) return arg.includes("=") ? arg : `${arg} ${mode}`
  }
  return undefined
}

// The permission requests come to the session when it answers some of them.
const answersPermissions = (options: Options) =>
  options.canUseTool !== undefined || options.onAskUserQuestion !== undefined

const check = (options: Options): Effect.Effect<void, SessionError.SessionError> => {
  const problem = DerivedOptions.invalid(options)
  if (problem !== undefined) return invalid(problem)
  const extra = options.extraArgs ?? []
  const reserved = extra.find((a) => reservedFlags.includes(flagOf(a)))
  if (reserved !== undefined) return invalid(`${reserved} is set by the session and cannot be given in extraArgs`)
  if (answersPermissions(options)) {
    if (extra.some((a) => a.startsWith("--permission-prompt-tool"))) {
      return invalid("canUseTool cannot be combined with --permission-prompt-tool in extraArgs")
    }
    if (options.permissionPromptTool !== undefined) {
      return invalid("canUseTool and onAskUserQuestion cannot be combined with permissionPromptTool")
    }
    if (options.permissionMode !== undefined && askingNever.includes(options.permissionMode)) {
      return invalid(`canUseTool is never called with permissionMode "${options.permissionMode}"`)
    }
    const bypass = bypassIn(extra)
    if (bypass !== undefined) return invalid(`canUseTool is never called with ${bypass} in extraArgs`)
  }
  if ((options.supportedDialogKinds ?? []).length > 0 && options.onUserDialog === undefined) {
    return invalid("supportedDialogKinds needs onUserDialog")
  }
  const names = (options.mcpServers ?? []).map((s) => s.name)
  const duplicate = names.find((n, i) => names.indexOf(n) !== i)
  return duplicate === undefined ? Effect.void : invalid(`two MCP servers are named "${duplicate}"`)
}

/** Whether the caller wants the CLI's replays of its user messages in the output. */
export const asksForReplays = (options: Options): boolean => (options.extraArgs ?? []).includes(replayFlag)

export const toArgs = (options: Options): Effect.Effect<ReadonlyArray<string>, SessionError.SessionError> =>
  Effect.map(check(options), () => {
    const delivered = Initialize.forArgv(options)
    const base = QueryOptions.toArgs(delivered.options)
    const at = base.indexOf("--input-format")
    const args = [...base.slice(0, at + 1), "stream-json", ...base.slice(at + 2)]
    // The replays tell which turn each user message went to.
    if (!asksForReplays(options)) args.push(replayFlag)
    if (answersPermissions(options)) args.push("--permission-prompt-tool", "stdio")
    if (delivered.await) args.push("--await-initialize")
    const names = (options.mcpServers ?? []).map((s) => s.name)
    if (names.length > 0) {
      args.push("--mcp-config", JSON.stringify({ mcpServers: Object.fromEntries(names.map((n) => [n, { type: "sdk", name: n }])) }))
    }
    return args
  })
