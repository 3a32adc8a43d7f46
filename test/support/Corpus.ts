/**
 * Locates the conformance corpus (real stream-json captures) and the recorded fixtures.
 * Every decoding test suite iterates all of them.
 */
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..", "..")

/** `../shared/corpus/public` beside the checkout, as CI lays it out. */
export const corpusDir = path.resolve(root, "..", "shared", "corpus", "public")

/** Recorded fixtures committed with the project. */
export const fixturesDir = path.resolve(root, "fixtures")

const listJsonl = (dir: string): ReadonlyArray<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".jsonl"))
      .sort()
      .map((name) => path.join(dir, name))
    : []

/** Every `.jsonl` file of the public corpus. */
export const corpusFiles: ReadonlyArray<string> = listJsonl(corpusDir)

/** Every `.jsonl` file under `fixtures/` (recursively). */
export const fixtureFiles: ReadonlyArray<string> = listJsonl(fixturesDir)

/** Both sets, corpus first. */
export const allStreamJsonFiles: ReadonlyArray<string> = [...corpusFiles, ...fixtureFiles]

/** The non-blank lines of a file with their 1-based line numbers. */
export const readLines = (file: string): ReadonlyArray<{ readonly line: number; readonly text: string }> =>
  fs.readFileSync(file, "utf8").split(/\r?\n/).flatMap((text, i) =>
    text.trim() === "" ? [] : [{ line: i + 1, text }]
  )
