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
 * Cut (the default): a transcript larger than what a file has left is cut between two lines (the line that
 * crosses the file's share ends the file where that keeps it nearer its share), its rest left out, so every file
 * starts as a real one does and the set has the size asked for (most real transcripts are larger than 100 KB:
 * written whole, 2,000 files of "200 MB" held 395 MB; a file made larger by a long line makes the next ones
 * smaller). Not cut: each file whole transcripts until it has its share, at least one.
 */
export const build = (configDir: string, files: number, bytes: number, maxSourceBytes = Infinity, cut = true): void => {
  const texts = sources(maxSourceBytes)
  let written = 0
  let copy = 0
  for (let i = 0; i < files; i++) {
    const dir = path.join(configDir, "projects", `-home-bench-real-${i % 10}`)
    fs.mkdirSync(dir, { recursive: true })
    const file = path.join(dir, `${freshIds("00000000-0000-4000-8000-000000000000", i)}.jsonl`)
    const fd = fs.openSync(file, "w")
    const perFile = Math.max(1, (bytes - written) / (files - i))
    try {
      let size = 0
      while (size < perFile) {
        let text = freshIds(texts[copy % texts.length]!, copy)
        if (!text.endsWith("\n")) text += "\n"
        copy++
        const room = perFile - size
        const whole = Buffer.byteLength(text) <= room || !cut
        if (!whole) {
          // Whole lines while they fit; the line that crosses the share where it keeps the file nearer it.
          let end = 0
          let kept = 0
          while (true) {
            const next = text.indexOf("\n", end) + 1
            const grown = kept + Buffer.byteLength(text.slice(end, next))
            if (grown >= room) {
              if (end === 0 || grown - room < room - kept) end = next
              break
            }
            end = next
            kept = grown
          }
          text = text.slice(0, end)
        }
        fs.writeSync(fd, text)
        size += Buffer.byteLength(text)
        if (!whole) break
      }
      written += size
    } finally {
      fs.closeSync(fd)
    }
  }
}
