/**
 * Locates the conformance corpus (real stream-json captures) and the recorded fixtures.
 * Every decoding test suite iterates all of them.
 */
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..", "..")

/** `../shared/corpus/public` beside the checkout, where the shared corpus lives (it may grow). */
export const sharedCorpusDir = path.resolve(root, "..", "shared", "corpus", "public")

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

/**
 * Every `.jsonl` file of the public corpus: the committed copy plus any file the shared corpus
 * gained since (by name), so new captures are tested as soon as they appear.
 */
export const corpusFiles: ReadonlyArray<string> = (() => {
  const committed = listJsonl(corpusDir)
  const names = new Set(committed.map((file) => path.basename(file)))
  const added = listJsonl(sharedCorpusDir).filter((file) => !names.has(path.basename(file)))
  return [...committed, ...added]
})()

/** Every `.jsonl` file under `fixtures/` (recursively) that is not part of the corpus copy. */
export const fixtureFiles: ReadonlyArray<string> = listJsonl(fixturesDir).filter((file) =>
  !file.startsWith(corpusDir + path.sep)
)

/** Both sets, corpus first. */
export const allStreamJsonFiles: ReadonlyArray<string> = [...corpusFiles, ...fixtureFiles]

/** The non-blank lines of a file with their 1-based line numbers. */
export const readLines = (file: string): ReadonlyArray<{ readonly line: number; readonly text: string }> =>
  fs.readFileSync(file, "utf8").split(/\r?\n/).flatMap((text, i) =>
    text.trim() === "" ? [] : [{ line: i + 1, text }]
  )
