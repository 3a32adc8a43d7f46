/**
 * The files of an interrupted attempt, rewound before its retry: with file checkpointing on, the CLI backs a
 * file up before the Write and Edit tools change it, under the user message of the turn; the retry's CLI,
 * resumed from the same conversation, is asked `rewind_files` to the interrupted attempt's prompt (its uuid
 * kept in the {@link TurnLog} before it was sent). What came of it goes into the retry's note: the files
 * rewound, or why they could not be (never silently), and the files the attempt edited that no checkpoint
 * covers (a CLI cut between an edit and its record of the backup).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Message from "../../schema/Message.ts"
import type * as Session from "../../session/Session.ts"
import type * as RetryNote from "./retryNote.ts"

// The tools whose changes the CLI checkpoints, and the input naming the file each changes.
const editors: Readonly<Record<string, string>> = {
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
  NotebookEdit: "notebook_path"
}

/** The files the interrupted attempt's Write and Edit calls name, from its recorded tool calls. */
const edited = (interrupted: ReadonlyArray<Message.Message>): ReadonlyArray<string> => [
  ...new Set(interrupted.flatMap((m) =>
    m._tag !== "AssistantMessage" ? [] : m.toolUses.flatMap((call) => {
      const key = editors[call.name]
      const file = key === undefined ? undefined : (call.input as Record<string, unknown> | null)?.[key]
      return typeof file === "string" ? [file] : []
    })
  ))
]

/**
 * Rewinds the files the attempt that sent `promptId` changed, and says in a sentence of the retry's note what
 * came of it. A dry run first names the files (the rewind itself answers no list).
 */
export const files = (
  session: Session.Session,
  promptId: string | undefined,
  interrupted: ReadonlyArray<Message.Message>
): Effect.Effect<RetryNote.Files> =>
  promptId === undefined
    ? Effect.succeed(kept("Its files were not rewound: the log kept no prompt id of it (it may not have been sent)."))
    : Effect.gen(function*() {
      const planned = yield* session.rewindFiles(promptId, { dryRun: true })
      if (!planned.canRewind) return failed(planned.error ?? "the CLI cannot rewind to it")
      const changed = planned.filesChanged ?? []
      // A file is named as the tool was given it (relative or absolute), the CLI's list by absolute path.
      const uncovered = edited(interrupted).filter((file) => !changed.some((c) => c === file || c.endsWith(`/${file}`)))
      const unkept = uncovered.length === 0
        ? ""
        : ` Its checkpoints do not cover ${uncovered.join(", ")} (the CLI was cut before it kept the backup): as it left them.`
      if (changed.length === 0) return kept(`Its checkpoints name no file it changed to rewind.${unkept}`)
      const done = yield* session.rewindFiles(promptId)
      if (!done.canRewind) return failed(done.error ?? "the CLI could not rewind")
      const skipped = done.skippedLinks === undefined || done.skippedLinks === 0
        ? ""
        : ` (${done.skippedLinks} not: a link or another non-regular file stands at their path)`
      return {
        note: `The files it changed with Write or Edit were rewound to their state before it${skipped}: ${changed.join(", ")}.${unkept}`,
        rewound: true
      }
    }).pipe(Effect.catch((error) => Effect.succeed(failed(error.message))))

const kept = (note: string): RetryNote.Files => ({ note, rewound: false })

const failed = (why: string) => kept(`Rewinding its files failed (${why}): they are as it left them.`)
