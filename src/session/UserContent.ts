/**
 * What a session sends as the user: text, or content blocks (text and images, or any block the Messages API
 * accepts), written to the CLI as one stream-json `user` line.
 *
 * @since 0.1.0
 */

/**
 * A content block of a user message: `{ type: "text", text }`, `{ type: "image", source }`, ...
 *
 * @since 0.1.0
 * @category models
 */
export type Block = Readonly<Record<string, unknown>> & { readonly type: string }

/**
 * @since 0.1.0
 * @category models
 */
export type UserContent = string | ReadonlyArray<Block>

/**
 * Image types the Messages API accepts.
 *
 * @since 0.1.0
 * @category models
 */
export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp"

/**
 * @since 0.1.0
 * @category constructors
 */
export const text = (text: string): Block => ({ type: "text", text })

/**
 * An inline image: bytes (encoded here) or base64 text.
 *
 * @since 0.1.0
 * @category constructors
 * @example
 * ```ts
 * import { readFileSync } from "node:fs"
 * import { UserContent } from "effect-claude-code/session"
 *
 * const content = [UserContent.text("What is in this picture?"), UserContent.image(readFileSync("cat.png"), "image/png")]
 * // session.send(content) or session.turn(content)
 * ```
 */
export const image = (data: Uint8Array | string, mediaType: ImageMediaType): Block => ({
  type: "image",
  source: {
    type: "base64",
    media_type: mediaType,
    data: typeof data === "string" ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64")
  }
})
