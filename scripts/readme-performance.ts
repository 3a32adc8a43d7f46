/**
 * Rewrites the README's benchmark figures (between `<!-- performance-run:start -->` and
 * `<!-- performance-run:end -->`) from the JSON of one bench run: the real-data headline with its goals,
 * then the generated inputs, with the run's date, commit and machine.
 *
 *   npm run bench -- --json bench/results/latest.json
 *   node scripts/readme-performance.ts bench/results/latest.json
 */
import * as fs from "node:fs"
import { performance } from "../bench/markdown.ts"
import type { Results } from "../bench/report.ts"
import { readmePath, replaceSection } from "./readme.ts"

const file = process.argv[2]
if (file === undefined) {
  process.stderr.write("usage: node scripts/readme-performance.ts RESULTS.json (from npm run bench -- --json RESULTS.json)\n")
  process.exit(2)
}
const results = JSON.parse(fs.readFileSync(file, "utf8")) as Results
if (results.real === undefined || results.real.rows.length === 0) {
  process.stderr.write(`${file}: no real-data figures (a run with --real 0, or from before they existed)\n`)
  process.exit(1)
}
fs.writeFileSync(readmePath, replaceSection(fs.readFileSync(readmePath, "utf8"), "performance-run", performance(results)))
process.stdout.write(`README.md: performance figures of the run of ${results.date} (${file})\n`)
