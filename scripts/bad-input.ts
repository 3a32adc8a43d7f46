/**
 * Writes the committed hostile inputs: `fixtures/bad-input/<name>.ndjson` (one case per line) and
 * `fixtures/bad-input/expected.json` (per line: the case and what it must decode to), from the definitions
 * in `test/reliability/support/hostile.ts`. The big inputs (a 100 MiB line, 10^6 tiny lines, 100k levels of
 * nesting) are not committed: the tests generate them; `--big <dir>` writes them out for a look.
 *
 *   node scripts/bad-input.ts [--big <dir>]
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Hostile from "../test/reliability/support/hostile.ts"

for (const [name, cases] of Object.entries(Hostile.committed)) {
  fs.writeFileSync(path.join(Hostile.badInputDir, `${name}.ndjson`), Hostile.fileBytes(cases))
}
fs.writeFileSync(Hostile.expectedFile, Hostile.expectedJson())
console.log(`wrote ${Object.keys(Hostile.committed).length} files and expected.json to ${Hostile.badInputDir}`)

const big = process.argv.indexOf("--big")
if (big !== -1) {
  const dir = process.argv[big + 1] ?? "."
  const write = (name: string, chunks: Iterable<Uint8Array>) => {
    const fd = fs.openSync(path.join(dir, name), "w")
    for (const chunk of chunks) fs.writeSync(fd, chunk)
    fs.closeSync(fd)
  }
  write("line-100mib.ndjson", Hostile.bigLine(100 * 1024 * 1024))
  write("tiny-lines-1e6.ndjson", Hostile.tinyLines(1_000_000, 1000, 7))
  write("deep-100k.ndjson", [Hostile.fileBytes(Hostile.deepCases(100_000))])
  console.log(`wrote the big inputs to ${dir}`)
}
