/**
 * effect-claude-code: the Claude Code CLI as typed, resource-safe Effect streams.
 *
 * The entry point holds the service, its options and errors, and redaction; each folder has an entry point
 * of its own (`effect-claude-code/schema`, `/stream`, `/filter`, `/layers`, `/session`, `/testing`).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { ClaudeCli } from "effect-claude-code"
 * import { Filter, Item } from "effect-claude-code/filter"
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
export * as SparePool from "./SparePool.ts"
