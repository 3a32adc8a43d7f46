/**
 * Claude Code's session transcripts (`~/.claude/projects/<project key>/<session id>.jsonl`): the entry
 * schemas, decoding, and the entries as stream-json messages.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Transcript from "./Transcript.ts"
/** @since 0.1.0 */
export * as TranscriptDecode from "./Decode.ts"
/** @since 0.1.0 */
export * as TranscriptMessages from "./Messages.ts"
/** @since 0.1.0 */
export * as TranscriptDetect from "./Detect.ts"
/** @since 0.1.0 */
export * as TranscriptPricing from "./Pricing.ts"
/** @since 0.1.0 */
export * as Stats from "./Stats.ts"
