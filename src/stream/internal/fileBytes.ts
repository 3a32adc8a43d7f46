/**
 * A file's bytes for the line decoders, read in {@link readSize} reads. Effect's default, 64 KiB, costs each read
 * a pull through the stream and the file system's thread: over 200 MB of real captures `Decode.messages` took
 * about a fifth more CPU time with it; 1 MiB reads were no faster than 256 KiB and peaked 140 to 200 MB higher (the
 * reads' buffers outlive their lines until the collector runs). `node bench/readSize.ts` measures the three.
 */
import type * as FileSystem from "effect/FileSystem"
import type * as PlatformError from "effect/PlatformError"
import type * as Stream from "effect/Stream"

/** The size of each read. */
export const readSize = 256 * 1024

/** The bytes of `file` from `offset` (0), in reads of {@link readSize}. */
export const stream = (
  fs: FileSystem.FileSystem,
  file: string,
  offset?: number
): Stream.Stream<Uint8Array, PlatformError.PlatformError> =>
  fs.stream(file, offset === undefined ? { chunkSize: readSize } : { chunkSize: readSize, offset })
