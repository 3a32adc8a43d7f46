/**
 * The Claude Code CLI as a service: `query(prompt, options)` is a typed stream of stream-json messages whose
 * lifetime is the CLI process's lifetime, and `session(options)` a long-lived CLI driven over stdin. Layers in
 * `effect-claude-code/layers` provide it from the real CLI, a recording, or the scripted model server.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as CliError from "./ClaudeCliError.ts"
import type * as Options from "./QueryOptions.ts"
import type { Message } from "./schema/Message.ts"
import type * as Session from "./session/Session.ts"
import type * as SessionError from "./session/SessionError.ts"
import type { DecodeError } from "./stream/DecodeError.ts"
import type * as Ndjson from "./stream/Ndjson.ts"

/**
 * The options of a query: the CLI's (see `QueryOptions`) and what a bad line does, `"fail"` (the default:
 * the stream fails with `DecodeFailed` or `LineTooLong` after every message before it) or `"emit"` (the
 * line's `DecodeError` is an element of the stream, and the stream goes on).
 *
 * @since 0.1.0
 * @category models
 */
export interface QueryOptions extends Options.QueryOptions {
  readonly onBadLine?: Ndjson.OnBadLine | undefined
}

/**
 * A query: decoded messages, with `DecodeError` elements when `onBadLine` is `"emit"`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Query<R = never> {
  (prompt: string, options: QueryOptions & { readonly onBadLine: "emit" }): Stream.Stream<Message | DecodeError, CliError.ClaudeCliError, R>
  (prompt: string, options?: QueryOptions & { readonly onBadLine?: "fail" | undefined }): Stream.Stream<Message, CliError.ClaudeCliError, R>
  (prompt: string, options?: QueryOptions): Stream.Stream<Message | DecodeError, CliError.ClaudeCliError, R>
}

/**
 * Starts a session (see `Session.make`); it ends with the Scope.
 *
 * @since 0.1.0
 * @category models
 */
export type StartSession = <O extends Session.Options<any>>(
  options?: O
) => Effect.Effect<
  Session.Session,
  CliError.ClaudeCliError | SessionError.SessionError,
  Scope.Scope | Session.Services<O>
>

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Decoded messages. The first bad line fails the stream (after every message before it); with
   * `onBadLine: "emit"` bad lines are `DecodeError` elements and the stream goes on.
   */
  readonly query: Query
  /** A long-lived CLI over stream-json stdin (several turns, permission callbacks, hooks, MCP tools). */
  readonly session: StartSession
}

/**
 * @since 0.1.0
 * @category services
 */
export class ClaudeCli extends Context.Service<ClaudeCli, Service>()("effect-claude-code/ClaudeCli") {}

/**
 * Runs a query with the `ClaudeCli` in context (see `Service.query`).
 *
 * @since 0.1.0
 * @category accessors
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 *
 * const program = ClaudeCli.query("Say hi").pipe(Stream.runCollect, Effect.provide(Live.layer()))
 * ```
 */
export const query: Query<ClaudeCli> = ((prompt: string, options?: QueryOptions) =>
  Stream.unwrap(Effect.map(Effect.service(ClaudeCli), (cli) => cli.query(prompt, options)))) as Query<ClaudeCli>

/**
 * Starts a session with the `ClaudeCli` in context, using the layer's executable and environment.
 *
 * @since 0.1.0
 * @category accessors
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 *
 * const program = Effect.gen(function*() {
 *   const session = yield* ClaudeCli.session({ model: "sonnet" })
 *   yield* Stream.runCollect(session.turn("Remember the number 7"))
 *   return yield* Stream.runCollect(session.turn("Which number?"))
 * }).pipe(Effect.scoped, Effect.provide(Live.layer()))
 * ```
 */
export const session = <O extends Session.Options<any>>(
  options?: O
): Effect.Effect<
  Session.Session,
  CliError.ClaudeCliError | SessionError.SessionError,
  ClaudeCli | Scope.Scope | Session.Services<O>
> => Effect.flatMap(Effect.service(ClaudeCli), (cli) => cli.session(options))
