/**
 * The files of an interrupted attempt, rewound before its retry: with file checkpointing on, the CLI backs a
 * file up before the Write and Edit tools change it, under the user message of the turn; the retry's CLI,
 * resumed from the same conversation, is asked `rewind_files` to the interrupted attempt's prompt (its uuid
 * kept in the {@link TurnLog} before it was sent). What came of it goes into the retry's note: the files
 * rewound, or why they could not be (never silently).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Session from "../../session/Session.ts"

/**
 * Rewinds the files the attempt that sent `promptId` changed, and says in a sentence of the retry's note what
 * came of it. A dry run first names the files (the rewind itself answers no list).
 */
export const files = (session: Session.Session, promptId: string | undefined): Effect.Effect<string> =>
  promptId === undefined
    ? Effect.succeed("Its files were not rewound: the log kept no prompt id of it (it may not have been sent).")
    : Effect.gen(function*() {
      const planned = yield* session.rewindFiles(promptId, { dryRun: true })
      if (!planned.canRewind) return failed(planned.error ?? "the CLI cannot rewind to it")
      const changed = planned.filesChanged ?? []
      if (changed.length === 0) return "Its files were checked: it left no file changed by Write or Edit to rewind."
      const done = yield* session.rewindFiles(promptId)
      if (!done.canRewind) return failed(done.error ?? "the CLI could not rewind")
      const skipped = done.skippedLinks === undefined || done.skippedLinks === 0
        ? ""
        : ` (${done.skippedLinks} not: a link or another non-regular file stands at their path)`
      return `The files it changed with Write or Edit were rewound to their state before it${skipped}: ${changed.join(", ")}.`
    }).pipe(Effect.catch((error) => Effect.succeed(failed(error.message))))

const failed = (why: string) => `Rewinding its files failed (${why}): they are as it left them.`
