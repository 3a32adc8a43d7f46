/**
 * Real-shaped transcript sets for `bench/transcripts.ts`: the real session transcripts of the shared corpus
 * and the fixtures, copied with fresh ids (uuids, session, message, request and tool use ids) so that no copy
 * deduplicates against another, into a config directory as the CLI lays it out
 * (`projects/<project>/<session>.jsonl`).
 */
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")

const sourceDirs = [
  path.resolve(root, "..", "shared", "corpus", "transcripts"),
  path.join(root, "fixtures", "transcripts"),
  path.join(root, "fixtures", "transcripts-recorded")
]

/**
 * The real transcripts found, each once (the corpus and the fixtures hold some of the same files); with
 * `maxBytes`, those of at most that size.
 */
export const sources = (maxBytes = Infinity): ReadonlyArray<string> => {
  const seen = new Map<string, string>()
  for (const dir of sourceDirs) {
    if (!fs.existsSync(dir)) continue
    for (const name of fs.readdirSync(dir).sort()) {
      if (!name.endsWith(".jsonl")) continue
      const text = fs.readFileSync(path.join(dir, name), "utf8")
      if (text.trim() !== "" && Buffer.byteLength(text) <= maxBytes) seen.set(text, name)
    }
  }
  return [...seen.keys()]
}

// Ids as the CLI writes them: v4 uuids and the API's prefixed ids.
const ids = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b(?:msg|req|toolu|srvtoolu)_[0-9A-Za-z]+/g

/** A transcript's text with every id made unique to `copy` (the same id within a copy stays the same). */
export const freshIds = (text: string, copy: number): string => {
  const tag = copy.toString(16).padStart(8, "0")
  return text.replace(ids, (id) => id.includes("_") ? `${id}x${tag}` : `${tag}${id.slice(8)}`)
}

/**
 * Writes `files` transcripts of about `bytes` in all under `configDir/projects` (ten projects): each file the
 * real transcripts (of at most `maxSourceBytes` each) one after another with fresh ids, repeated until the file
 * has its share of the bytes.
 */
export const build = (configDir: string, files: number, bytes: number, maxSourceBytes = Infinity): void => {
  const texts = sources(maxSourceBytes)
  const perFile = bytes / files
  let copy = 0
  for (let i = 0; i < files; i++) {
    const dir = path.join(configDir, "projects", `-home-bench-real-${i % 10}`)
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `${freshIds("00000000-0000-4000-8000-000000000000", i)}.jsonl`)
    const fd = fs.openSync(file, "w")
    try {
      let size = 0
      do {
        const text = freshIds(texts[copy % texts.length]!, copy)
        copy++
        fs.writeSync(fd, text.endsWith("\n") ? text : text + "\n")
        size += Buffer.byteLength(text)
      } while (size < perFile)
    } finally {
      fs.closeSync(fd)
    }
  }
}
