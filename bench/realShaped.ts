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
 * Writes `files` transcripts of `bytes` in all under `configDir/projects` (ten projects): the real transcripts
 * (of at most `maxSourceBytes` each) one after another with fresh ids, each file holding its share of the bytes.
 * Cut (the default): a transcript larger than what a file has left goes on in the next file, cut between two
 * lines (the line that crosses the file's share ends this file or starts the next, whichever keeps the file
 * nearer its share), so the set has the size asked for (a file made larger by a long line makes the next ones smaller) (most real transcripts are larger than 100 KB:
 * written whole, 2,000 files of "200 MB" held 395 MB). Not cut: each file whole transcripts until it has its
 * share, at least one.
 */
export const build = (configDir: string, files: number, bytes: number, maxSourceBytes = Infinity, cut = true): void => {
  const texts = sources(maxSourceBytes)
  let written = 0
  let copy = 0
  // The transcript being written, and where the next file takes it up when a file ended inside it.
  let text = ""
  let at = 0
  for (let i = 0; i < files; i++) {
    const dir = path.join(configDir, "projects", `-home-bench-real-${i % 10}`)
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `${freshIds("00000000-0000-4000-8000-000000000000", i)}.jsonl`)
    const fd = fs.openSync(file, "w")
    // The share of what is left: a file made larger by a long line makes the next ones smaller.
    const perFile = Math.max(1, (bytes - written) / (files - i))
    try {
      let size = 0
      while (size < perFile) {
        if (at === text.length) {
          text = freshIds(texts[copy % texts.length]!, copy)
          if (!text.endsWith("\n")) text += "\n"
          copy++
          at = 0
        }
        let end = text.length
        if (cut && Buffer.byteLength(text.slice(at)) > perFile - size) {
          // Whole lines while they fit; the line that crosses the share where it keeps the file nearer it.
          end = at
          while (true) {
            const next = text.indexOf("\n", end) + 1
            const grown = size + Buffer.byteLength(text.slice(at, next))
            if (grown >= perFile) {
              if (end === at || grown - perFile < perFile - (size + Buffer.byteLength(text.slice(at, end)))) end = next
              break
            }
            end = next
          }
        }
        const part = text.slice(at, end)
        fs.writeSync(fd, part)
        size += Buffer.byteLength(part)
        written += Buffer.byteLength(part)
        at = end
        if (cut && at < text.length) break
      }
    } finally {
      fs.closeSync(fd)
    }
  }
}
