/**
 * A file's format from its head: the first read of a file tells whether it is a session transcript.
 */
import * as TranscriptDetect from "../Detect.ts"

/** How much of a file the detection looks at. */
export const bytes = 64 * 1024

const decoder = new TextDecoder()

/** The format of a file from its first bytes (only the first {@link bytes} of them count). */
export const formatOf = (head: Uint8Array): TranscriptDetect.Format =>
  TranscriptDetect.detect(decoder.decode(head.length > bytes ? head.subarray(0, bytes) : head))
