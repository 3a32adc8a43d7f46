/**
 * The files under a directory, walked so that it ends: a symbolic link to a directory is followed once per
 * real path (a link back up the tree, or to a directory already listed, is skipped, with a note), and special
 * files (named pipes, sockets, devices) are skipped with a note rather than opened (a named pipe would wait for
 * a writer). Node's recursive `readdir` follows directory links without end: two loops in a tree list the same
 * file dozens of times and take minutes and gigabytes. The bin, `SessionFiles` and the session stores walk
 * with this.
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"

/**
 * What a path is, where it is not a regular file, for messages.
 */
export const kinds: Readonly<Record<FileSystem.File.Type, string>> = {
  File: "a file",
  Directory: "a directory",
  SymbolicLink: "a symbolic link",
  BlockDevice: "a block device",
  CharacterDevice: "a character device",
  FIFO: "a named pipe (FIFO)",
  Socket: "a socket",
  Unknown: "a special file of unknown kind"
}

/**
 * A path the walk left out, relative to the root, and why.
 */
export interface Skipped {
  readonly path: string
  readonly why: string
}

/**
 * The regular files the walk found whose names were accepted (relative to the root, sorted), and what it
 * left out.
 */
export interface Walked {
  readonly files: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<Skipped>
}

/**
 * Walks `root`: every regular file (or link to one) whose name `accept`s, at any depth. A special file or a
 * broken link is noted only when its name is accepted (it would have been read); a directory link already
 * walked always is.
 */
export const walk = (
  fs: FileSystem.FileSystem,
  path: Path.Path,
  root: string,
  accept: (name: string) => boolean
): Effect.Effect<Walked, PlatformError.PlatformError> =>
  Effect.gen(function*() {
    const files: Array<string> = []
    const skipped: Array<Skipped> = []
    // Real paths of the directories walked: each is walked once, however many links lead to it.
    const walked = new Set<string>([yield* fs.realPath(root)])
    const directory = (relative: string): Effect.Effect<void, PlatformError.PlatformError> =>
      Effect.gen(function*() {
        const entries = yield* fs.readDirectoryEntries(relative === "" ? root : path.join(root, relative))
        for (const entry of entries) {
          const name = relative === "" ? entry.name : path.join(relative, entry.name)
          const full = path.join(root, name)
          let type = entry.type
          if (type === "SymbolicLink" || type === "Unknown") {
            const target = yield* Effect.option(fs.stat(full))
            if (target._tag === "None") {
              if (accept(entry.name)) skipped.push({ path: name, why: "a broken symbolic link" })
              continue
            }
            type = target.value.type
          }
          if (type === "Directory") {
            const real = yield* fs.realPath(full)
            if (walked.has(real)) {
              const why = entry.type === "Directory" ? "a directory already walked through a link" : `a link to ${real}, a directory already walked`
              skipped.push({ path: name, why })
              continue
            }
            walked.add(real)
            yield* directory(name)
          } else if (accept(entry.name)) {
            if (type === "File") files.push(name)
            else skipped.push({ path: name, why: `${kinds[type]}, not a file` })
          }
        }
      })
    yield* directory("")
    return { files: files.sort(), skipped: skipped.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0) }
  })

/**
 * The files of {@link walk}, what it left out logged as a warning (a library has no standard error of its
 * own): for the stores and `SessionFiles`, where a loop under a session is a mistake to be told of, not a
 * reason to fail.
 */
export const files = (
  fs: FileSystem.FileSystem,
  path: Path.Path,
  root: string,
  accept: (name: string) => boolean
): Effect.Effect<ReadonlyArray<string>, PlatformError.PlatformError> =>
  Effect.tap(walk(fs, path, root, accept), ({ skipped }) =>
    skipped.length === 0
      ? Effect.void
      : Effect.logWarning(`${root}: skipped ${skipped.map((s) => `${s.path} (${s.why})`).join(", ")}`)).pipe(
      Effect.map(({ files }) => files)
    )
