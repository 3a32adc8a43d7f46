/**
 * `transcript_mirror` frames of one session of a made-up config directory, and a mirror of them into a store
 * that appends each frame on its own (`eager`), its `mirror_error`s' texts collected.
 */
import * as Effect from "effect/Effect"
import * as SessionEvent from "../../../src/schema/SessionEvent.ts"
import * as SessionMirror from "../../../src/store/SessionMirror.ts"
import type * as SessionStore from "../../../src/store/SessionStore.ts"

export const configDir = "/home/me/.claude"
export const key = { projectKey: "-work-app", sessionId: "5c1e7d1a-7e0f-4b8e-9d7b-0c1f8e2b6a11" }
export const file = `${configDir}/projects/${key.projectKey}/${key.sessionId}.jsonl`

/** A frame of user entries with these uuids. */
export const frame = (uuids: ReadonlyArray<string>) =>
  new SessionEvent.TranscriptMirror({ type: "transcript_mirror", filePath: file, entries: uuids.map((uuid) => ({ type: "user", uuid })) })

/** The mirror into `store`, one append per frame, in the scope; `errors` fills with its `mirror_error`s. */
export const eager = (store: SessionStore.Shape) =>
  Effect.gen(function*() {
    const errors: Array<string> = []
    const mirroring = yield* SessionMirror.start(
      { store, configDir, cwd: "/work/app", flush: "eager" },
      (error) => Effect.sync(() => errors.push(error.error))
    )
    return { mirroring, errors }
  })
