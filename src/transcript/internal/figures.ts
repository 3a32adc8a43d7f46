/**
 * The figures `Stats` counts, as types: those of one file, of its tools, models and results.
 */
/**
 * Calls of one tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolStats {
  calls: number
  /** Results flagged `is_error` (denials included). */
  errors: number
  /** Results the permission system refused. */
  denied: number
  /**
   * Time from the call to its result, summed over the results where it is known: the CLI's own duration
   * (`durationMs`, `totalDurationMs`) or else the difference of the two messages' timestamps, in ms.
   */
  durationMs: number
}

/**
 * Where a model's figures come from: the `result` lines' `modelUsage` (tokens and cost), or, for sessions no
 * result covers (a run cut short, a capture without its end), the usage of the assistant messages (tokens
 * only: the messages carry no cost). `mixed`: both, in a file or a total holding sessions of each kind.
 *
 * A result's `modelUsage` and `total_cost_usd` are running totals of its session (the CLI process), so a
 * session counts once, with its last result's figures; its `num_turns` and `duration_ms` are the run's own.
 *
 * @since 0.1.0
 * @category models
 */
export type ModelSource = "result" | "assistant" | "mixed"

/**
 * Cost and tokens of one model.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelStats {
  /**
   * From the results: assistant messages carry no cost, so it is `null` when {@link source} is `assistant`,
   * except in a transcript, where it is priced from the tokens at list prices when the model has one.
   */
  costUsd: number | null
  inputTokens: number
  outputTokens: number
  cacheReadInputTokens: number
  cacheCreationInputTokens: number
  source: ModelSource
}

/**
 * One `result` line's figures.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResultStats {
  readonly sessionId: string
  readonly subtype: string
  readonly isError: boolean
  /** The run's turns (`num_turns` counts per run, not per session). */
  readonly turns: number
  /** The run's wall time (`duration_ms`, per run as well). */
  readonly durationMs: number
  /** The run's cost: how much the session's running total grew since its previous result. */
  readonly costUsd: number
  /** The session's running total as the result wrote it (`total_cost_usd`). */
  readonly totalCostUsd: number
}

/**
 * A line that did not decode: its number, why, and (in a `Stats.total`) the file it is in.
 *
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly file?: string
  readonly line: number
  readonly reason: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface FileStats {
  readonly path: string
  /**
   * Lines up to the last one that is not blank, blank lines included, so that the numbers of failed lines
   * are within it (trailing blank lines carry nothing and are not counted).
   */
  lines: number
  /** Blank lines among {@link lines}: neither decoded nor failed. */
  blank: number
  /** Lines that decoded, unknown variants included. */
  decoded: number
  /** Lines that decoded to an unknown message variant. */
  unknown: number
  failed: number
  /**
   * Transcript lines of bookkeeping entries (session metadata, not the conversation) of a known type whose
   * fields do not fit its schema: counted in {@link decoded} and {@link kinds} by their type, told in
   * {@link unfitLines}, and no failure (a metadata line never fails a transcript).
   */
  unfit: number
  /** Messages per kind: `type` or `type/subtype`. */
  readonly kinds: Record<string, number>
  readonly tools: Record<string, ToolStats>
  /** Tool results with `is_error: true`. */
  errorResults: number
  /** Types this version does not know, with how often: messages (`type/subtype`), blocks and stream events. */
  readonly unknownTypes: Record<string, number>
  /**
   * Failed lines: number and reason, and in a `Stats.total` the file that holds the line. The first
   * 20 of a file only (the rest are counted, not shown: a file of garbage would otherwise
   * print a line per line of it): {@link failed} counts them all.
   */
  readonly failures: Array<Failure>
  /** The {@link unfit} lines, as {@link failures} tells failed ones: the first 20 of a file. */
  readonly unfitLines: Array<Failure>
  readonly models: Record<string, ModelStats>
  /** One entry per `result` message. */
  readonly results: Array<ResultStats>
}


/**
 * The assistant messages already counted in earlier files, by `message.id:requestId`: a forked or resumed
 * session's transcript copies its history, which then counts for the first file that holds it (as ccusage
 * deduplicates). Grows with the unique messages of the files counted with it.
 *
 * @since 0.1.0
 * @category models
 */
export type Seen = Set<string>

/**
 * How the lines of a transcript are checked. `"every"` (the library's default): every line through `JSON.parse`
 * and the full schema, as `Stats.transcriptSink` counts them. `"counted"` (the `stats` command's default): only
 * the lines that carry usage or tool calls and results, prompts, and those whose kind a walk over their bytes
 * cannot tell; any other line (an attachment, a summary, an API request record: over 90% of a real-shaped
 * transcript's bytes, none of its figures) is counted by its type alone, told from its bytes without decoding
 * them, so such a line broken inside (a required field missing, a bad value, a syntax error between its braces)
 * counts as decoded, not as failed or {@link FileStats.unfit}. `"every"` takes about 1.6 times the CPU of
 * `"counted"` on real-shaped transcripts.
 *
 * @since 0.1.0
 * @category models
 */
export type LineCheck = "counted" | "every"
