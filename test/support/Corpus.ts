/**
 * Locates the conformance corpus (real stream-json captures) and the recorded fixtures.
 * Every decoding test suite iterates all of them.
 */
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..", "..")

/**
 * The shared corpus (it may grow): `../shared` beside the checkout, where CI clones it; else `/work/shared`,
 * for a checkout that has no `../shared` (a worktree on the development machine). Neither is an error: the
 * suites would otherwise test less than the corpus without saying so.
 */
const sharedRoot = ((): string => {
  const candidates = [path.resolve(root, "..", "shared"), "/work/shared"]
  const found = candidates.find((dir) => fs.existsSync(dir))
  if (found === undefined) {
    throw new Error(`The shared corpus is missing: neither ${candidates.join(" nor ")} exists (clone it beside the checkout as ../shared)`)
  }
  return found
})()

const sharedDir = (name: string): string => {
  const dir = path.join(sharedRoot, "corpus", name)
  if (!fs.existsSync(dir)) throw new Error(`The shared corpus has no ${name}/: ${dir} is missing`)
  return dir
}

/** `corpus/public` of the shared corpus: stream-json captures. */
export const sharedCorpusDir = sharedDir("public")

/** `corpus/transcripts` of the shared corpus: real session transcripts (see its README). */
export const sharedTranscriptsDir = sharedDir("transcripts")

/** The committed copy of the corpus (see fixtures/corpus/README.md), so a clean clone tests the same files. */
export const corpusDir = path.resolve(root, "fixtures", "corpus")

/** Recorded fixtures committed with the project. */
export const fixturesDir = path.resolve(root, "fixtures")

const listJsonl = (dir: string): ReadonlyArray<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".jsonl"))
      .sort()
      .map((name) => path.join(dir, name))
    : []

const committed = listJsonl(corpusDir)
const copies = new Map(committed.map((file) => [path.basename(file), file]))
const shared = listJsonl(sharedCorpusDir)

/**
 * Shared corpus files whose committed copy (the file of the same name in `fixtures/corpus`) holds other
 * bytes: the capture changed upstream. Both are tested; `test/schema/Corpus.test.ts` fails until the copy
 * is refreshed, so that a clean clone tests what the shared corpus holds.
 */
export const staleCopies: ReadonlyArray<{ readonly shared: string; readonly copy: string }> = shared.flatMap((file) => {
  const copy = copies.get(path.basename(file))
  return copy !== undefined && !fs.readFileSync(copy).equals(fs.readFileSync(file)) ? [{ shared: file, copy }] : []
})

/**
 * Every `.jsonl` file of the public corpus: the committed copy, plus the shared corpus's files it lacks
 * (new captures are tested as soon as they appear) or holds other bytes of (see {@link staleCopies}).
 */
export const corpusFiles: ReadonlyArray<string> = [
  ...committed,
  ...shared.filter((file) => !copies.has(path.basename(file)) || staleCopies.some((s) => s.shared === file))
]

/**
 * A file's name for test titles and snapshots, without `.jsonl`: unique, the shared version of a stale copy
 * being `NAME@shared`.
 */
export const nameOf = (file: string): string =>
  path.basename(file, ".jsonl") + (staleCopies.some((s) => s.shared === file) ? "@shared" : "")

/** The committed copy of the transcript corpus (real transcripts from public repositories; see its README). */
export const transcriptsDir = path.resolve(root, "fixtures", "transcripts")

/** The transcripts the pinned CLI wrote while recording `fixtures/recorded` (`npm run fixtures:record`). */
export const recordedTranscriptsDir = path.resolve(root, "fixtures", "transcripts-recorded")

const committedTranscripts = listJsonl(transcriptsDir)
const transcriptNames = new Set(committedTranscripts.map((file) => path.basename(file)))

/**
 * Every file of the transcript corpus: the committed copy and the recorded transcripts, plus shared files the
 * copy lacks or holds other bytes of.
 */
export const transcriptFiles: ReadonlyArray<string> = [
  ...committedTranscripts,
  ...listJsonl(recordedTranscriptsDir),
  ...listJsonl(sharedTranscriptsDir).filter((file) => {
    const name = path.basename(file)
    return !transcriptNames.has(name) || !fs.readFileSync(file).equals(fs.readFileSync(path.join(transcriptsDir, name)))
  })
]

/** Every `.jsonl` file under `fixtures/` (recursively) that is not part of the corpus copy nor a transcript. */
export const fixtureFiles: ReadonlyArray<string> = listJsonl(fixturesDir).filter((file) =>
  !file.startsWith(corpusDir + path.sep) && !file.startsWith(transcriptsDir + path.sep) &&
  !file.startsWith(recordedTranscriptsDir + path.sep)
)

/** Both sets, corpus first. */
export const allStreamJsonFiles: ReadonlyArray<string> = [...corpusFiles, ...fixtureFiles]

/** The non-blank lines of a file with their 1-based line numbers. */
export const readLines = (file: string): ReadonlyArray<{ readonly line: number; readonly text: string }> =>
  fs.readFileSync(file, "utf8").split(/\r?\n/).flatMap((text, i) =>
    text.trim() === "" ? [] : [{ line: i + 1, text }]
  )
