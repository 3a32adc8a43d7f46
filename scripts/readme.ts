/**
 * Generated sections of the README: the text between `<!-- NAME:start -->` and `<!-- NAME:end -->`.
 */
import * as path from "node:path"

export const root = path.resolve(import.meta.dirname, "..")
export const readmePath = path.join(root, "README.md")

export const markers = (name: string) => ({ start: `<!-- ${name}:start -->`, end: `<!-- ${name}:end -->` })

const bounds = (readme: string, name: string) => {
  const { start, end } = markers(name)
  const from = readme.indexOf(start)
  const to = readme.indexOf(end)
  if (from === -1 || to < from) throw new Error(`README.md has no ${start} ... ${end} section`)
  return { from: from + start.length, to }
}

/** The text between the markers, without the newlines that frame it. */
export const sectionOf = (readme: string, name: string): string => {
  const { from, to } = bounds(readme, name)
  return readme.slice(from, to).replace(/^\n/, "").replace(/\n$/, "")
}

/** The README with `body` between the markers. */
export const replaceSection = (readme: string, name: string, body: string): string => {
  const { from, to } = bounds(readme, name)
  return readme.slice(0, from) + "\n" + body + "\n" + readme.slice(to)
}
