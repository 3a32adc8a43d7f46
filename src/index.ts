/**
 * effect-claude-code: the Claude Code CLI as typed, resource-safe Effect streams.
 *
 * The entry point re-exports the modules most programs use; each folder has its own entry point with
 * everything (`effect-claude-code/schema`, `/stream`, `/filter`, `/layers`, `/session`, `/testing`).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli, Filter, Item } from "effect-claude-code"
 * import { Live } from "effect-claude-code/layers"
 *
 * const program = Effect.gen(function*() {
 *   const cli = yield* ClaudeCli.ClaudeCli
 *   return yield* cli.query("List the files here", { allowedTools: ["Bash(ls:*)"] }).pipe(
 *     Item.items,
 *     Stream.filter(Filter.toolUse("Bash")),
 *     Stream.map((item) => item.input.command),
 *     Stream.runCollect
 *   )
 * }).pipe(Effect.provide(Live.layer()))
 * ```
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as ClaudeCli from "./ClaudeCli.ts"
/** @since 0.1.0 */
export * as ClaudeCliError from "./ClaudeCliError.ts"
/** @since 0.1.0 */
export * as QueryOptions from "./QueryOptions.ts"
/** @since 0.1.0 */
export * as Redaction from "./Redaction.ts"

/** @since 0.1.0 */
export * as ContentBlock from "./schema/ContentBlock.ts"
/** @since 0.1.0 */
export * as Message from "./schema/Message.ts"

/** @since 0.1.0 */
export * as Decode from "./stream/Decode.ts"
/** @since 0.1.0 */
export * as DecodeError from "./stream/DecodeError.ts"
/** @since 0.1.0 */
export * as Ndjson from "./stream/Ndjson.ts"
/** @since 0.1.0 */
export * as Partial from "./stream/Partial.ts"
/** @since 0.1.0 */
export * as Summary from "./stream/Summary.ts"

/** @since 0.1.0 */
export * as Filter from "./filter/Filter.ts"
/** @since 0.1.0 */
export * as Item from "./filter/Item.ts"
/** @since 0.1.0 */
export * as Syntax from "./filter/Syntax.ts"
/** @since 0.1.0 */
export * as Views from "./filter/Views.ts"

/** @since 0.1.0 */
export * as Session from "./session/Session.ts"
/** @since 0.1.0 */
export * as SessionError from "./session/SessionError.ts"
