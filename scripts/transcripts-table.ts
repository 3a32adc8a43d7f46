/**
 * `node scripts/transcripts-table.ts FILE`: puts the output of `node bench/transcripts.ts --out FILE` (its date,
 * machine, and the ratios with their goals) into the README, between the `transcripts-bench` markers, as it is.
 */
import * as fs from "node:fs"
import * as path from "node:path"

const file = process.argv[2]
if (file === undefined) throw new Error("usage: node scripts/transcripts-table.ts FILE (the output of bench/transcripts.ts --out FILE)")
const output = fs.readFileSync(file, "utf8").trim()
if (!output.includes("| input |")) throw new Error(`${file}: not the output of bench/transcripts.ts (no table)`)

const readme = path.resolve(import.meta.dirname, "..", "README.md")
const start = "<!-- transcripts-bench:start -->"
const end = "<!-- transcripts-bench:end -->"
const text = fs.readFileSync(readme, "utf8")
const from = text.indexOf(start)
const to = text.indexOf(end)
if (from === -1 || to < from) throw new Error(`README.md: no ${start} ... ${end} section`)
fs.writeFileSync(readme, `${text.slice(0, from + start.length)}\n${output}\n${text.slice(to)}`)
