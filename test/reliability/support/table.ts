/**
 * The README's reliability table: its rows come from the titles of the reliability suites, read from their
 * sources (`describe("<category>")` > `describe("<case>")` > `it.*("<defined behaviour>")`), and their outcomes from a
 * vitest JSON report. `scripts/reliability-table.ts` writes it; a test checks the README against the titles.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"
import * as Readme from "../../../scripts/readme.ts"

export const { readmePath, root } = Readme
export const { end, start } = Readme.markers("reliability")

/** The categories, in table order, and the suite that holds each. */
export const suites = [
  { category: "Faults", file: "test/reliability/Faults.test.ts" },
  { category: "Bad input", file: "test/reliability/BadInput.test.ts" },
  { category: "Load", file: "test/reliability/Load.test.ts" },
  { category: "Sessions", file: "test/reliability/Sessions.test.ts" },
  { category: "Host", file: "test/reliability/Host.test.ts" },
  { category: "Cluster", file: "test/reliability/Cluster.test.ts" },
  { category: "Secrets", file: "test/reliability/Secrets.test.ts" }
] as const

export interface Row {
  readonly category: string
  readonly case: string
  readonly behaviour: string
}

export type Outcome = "passed" | "failed" | "skipped" | "not run"

const testCallee = /^it(\.(effect|live|scoped|scopedLive|prop))?$/

/** The rows of a suite's source: `describe("<category>")` > `describe("<case>")` > `it("<behaviour>")`. */
export const rowsOf = (file: string): Array<Row> => {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(root, file), "utf8"), ts.ScriptTarget.Latest)
  const out: Array<Row> = []
  const literal = (node: ts.Node | undefined) =>
    node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined
  const visit = (node: ts.Node, titles: ReadonlyArray<string>): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source)
      const title = literal(node.arguments[0])
      if (callee === "describe" && titles.length < 2) {
        if (title === undefined) throw new Error(`${file}: a describe title that is not a plain string`)
        return node.arguments.forEach((arg) => visit(arg, [...titles, title]))
      }
      if (testCallee.test(callee) && titles.length > 0) {
        if (title === undefined) throw new Error(`${file}: a test title that is not a plain string`)
        if (titles.length !== 2) throw new Error(`${file}: "${title}" is not inside a describe("<case>")`)
        out.push({ category: titles[0]!, case: titles[1]!, behaviour: title })
        return
      }
    }
    ts.forEachChild(node, (child) => visit(child, titles))
  }
  visit(source, [])
  return out
}

/** Every row, from the sources. */
export const rows = (): Array<Row> =>
  suites.flatMap(({ category, file }) =>
    rowsOf(file).map((row) => {
      if (row.category !== category) throw new Error(`${file}: top-level describe "${row.category}", expected "${category}"`)
      return row
    })
  )

/** The key of a row's outcome: its describe titles and its test title. */
export const keyOf = (row: Row): string => [row.category, row.case, row.behaviour].join(" > ")

/** Outcomes by {@link keyOf} from a vitest JSON report. */
export const outcomesOf = (report: {
  readonly testResults: ReadonlyArray<{
    readonly assertionResults: ReadonlyArray<{ readonly ancestorTitles: ReadonlyArray<string>; readonly title: string; readonly status: string }>
  }>
}): Map<string, Outcome> =>
  new Map(report.testResults.flatMap((file) =>
    file.assertionResults.map((r) => [
      [...r.ancestorTitles, r.title].join(" > "),
      r.status === "passed" || r.status === "failed" ? r.status : "skipped"
    ] as const)
  ))

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ")

const header = "| Category | Case | Defined behaviour | Outcome |"

/** The table rows as Markdown lines. */
export const tableLines = (all: ReadonlyArray<Row>, outcome: (row: Row) => Outcome): Array<string> => [
  header,
  "| --- | --- | --- | --- |",
  ...all.map((r) => `| ${cell(r.category)} | ${cell(r.case)} | ${cell(r.behaviour)} | ${outcome(r)} |`)
]

/** The whole section between the markers. */
export const section = (all: ReadonlyArray<Row>, outcome: (row: Row) => Outcome, generated: string): string => {
  const count = (o: Outcome) => all.filter((r) => outcome(r) === o).length
  return [
    "How the library behaves under faults of the CLI process, hostile input, load, and with secrets around. Each",
    "row is one test of `test/reliability` (the category is its suite, the case its `describe`, the behaviour its",
    "title); the outcome is from the last run of the suite. \"fail\" and \"emit\" are the two `onBadLine` modes: fail",
    "at the first bad line, or report bad lines in-band and go on. Each test's comment has the details.",
    "",
    "Secrets are never shown in errors, logs, spans or recordings. A secret is a `Redacted` value; the value of a",
    "variable, JSON key or flag whose name has a secret word (KEY, TOKEN, SECRET, PASSWORD, PASS, PWD,",
    "PASSPHRASE, AUTH, CREDENTIALS, COOKIE, DSN, PRIVATE, SESSION, PAT, JWT, WEBHOOK, ...), whatever its shape,",
    "unless the name is a setting's (MAX, LIMIT, TIMEOUT, DISABLE, TOKENS, ...) and the value a number or a word,",
    "or a location's (FILE, PATH, SOCK, URL, ...; a webhook's URL is a secret); the key-like parts of such a value",
    "(the token of `Bearer <token>`); a URL's password; the values of header lines with secret names",
    "(`ANTHROPIC_CUSTOM_HEADERS`); and, anywhere, whatever has the shape of a provider's token: Anthropic and",
    "OpenAI (`sk-ant-…`, `sk-…`), Stripe (`sk_live_…`), AWS (`AKIA…`), GitHub (`ghp_…`, `github_pat_…`), Google",
    "(`AIza…`, `ya29.…`), Slack (`xoxb-…`, `hooks.slack.com/services/…`), Hugging Face (`hf_…`), JWTs (`eyJ…`)",
    "and URL passwords (`https://user:…@`). It is redacted in any spelling (as written, or with JSON escapes such",
    "as `\\/` and `\\u0073`), and where a text was cut (at a character or inside one), so is the part of one at the",
    "cut. Values shorter than 6 characters (8 for variables inherited from the parent process) are not redacted",
    "(see `src/Redaction.ts`). The bin redacts the same way, with the secrets of its own environment, what it",
    "prints of a file's bad lines (`view`, `stats`) and every error.",
    "",
    ...tableLines(all, outcome),
    "",
    `${count("passed")} passed, ${count("failed")} failed` +
    (count("skipped") + count("not run") > 0 ? `, ${count("skipped") + count("not run")} not run` : "") +
    `, ${generated}.`,
    "",
    "Regenerate with `npm run reliability:table` (runs `vitest run test/reliability`, under a minute), or",
    "`npm run reliability:table -- --report <vitest JSON report>`. Do not edit by hand:",
    "`test/reliability/ReadmeTable.test.ts` fails when the table no longer matches the test titles."
  ].join("\n")
}

/** The README with `body` as its reliability section. */
export const replaceSection = (readme: string, body: string): string => Readme.replaceSection(readme, "reliability", body)

/** The (category, case, behaviour) rows of the table in a README. */
export const readmeRows = (readme: string): Array<readonly [string, string, string]> => {
  return Readme.sectionOf(readme, "reliability").split("\n")
    .filter((line) => line.startsWith("| ") && line !== header && !line.startsWith("| ---"))
    .map((line) => {
      const cells = line.slice(2, -2).split(/ (?<!\\)\| /).map((c) => c.replaceAll("\\|", "|"))
      return [cells[0]!, cells[1]!, cells[2]!] as const
    })
}
