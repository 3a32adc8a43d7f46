/**
 * Rewrites the README's reliability section (between `<!-- reliability:start -->` and
 * `<!-- reliability:end -->`): one row per test of `test/reliability` with its category, case, defined
 * behaviour and outcome, and when and at which commit it was generated.
 *
 *   node scripts/reliability-table.ts                  # runs vitest run test/reliability (under a minute)
 *   node scripts/reliability-table.ts --report r.json  # reads a vitest JSON report instead
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Table from "../test/reliability/support/table.ts"

const given = process.argv.indexOf("--report")

// Runs the reliability suites into a JSON report in a temporary directory, removed once it is read.
const runSuites = (): unknown => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "reliability-"))
  try {
    const reportPath = path.join(dir, "report.json")
    const vitest = path.join(Table.root, "node_modules", ".bin", "vitest")
    // A failing test still writes the report; its outcome goes into the table.
    spawnSync(vitest, ["run", "test/reliability", "--reporter=default", "--reporter=json", `--outputFile.json=${reportPath}`], {
      cwd: Table.root,
      stdio: "inherit"
    })
    return JSON.parse(fs.readFileSync(reportPath, "utf8"))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const report = given === -1 ? runSuites() : JSON.parse(fs.readFileSync(process.argv[given + 1]!, "utf8"))
const outcomes = Table.outcomesOf(report)
const git = (...args: Array<string>) => execFileSync("git", args, { cwd: Table.root, encoding: "utf8" }).trim()
const commit = git("rev-parse", "--short", "HEAD")
const dirty = git("status", "--porcelain", "--", "src", "test/reliability") === "" ? "" : " plus uncommitted changes"
const generated = `at commit ${commit}${dirty} on ${new Date().toISOString().slice(0, 10)}`
const rows = Table.rows()
const body = Table.section(rows, (row) => outcomes.get(Table.keyOf(row)) ?? "not run", generated)
fs.writeFileSync(Table.readmePath, Table.replaceSection(fs.readFileSync(Table.readmePath, "utf8"), body))
const failed = rows.filter((row) => outcomes.get(Table.keyOf(row)) === "failed").length
console.log(`README.md: ${rows.length} rows, ${failed} failed (${generated})`)
