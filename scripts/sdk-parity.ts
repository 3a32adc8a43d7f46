/**
 * Rewrites the README's SDK parity section (between `<!-- sdk-parity:start -->` and `<!-- sdk-parity:end -->`):
 * every `Options` field, `Query` method, control request, top-level function and hook event the official SDK's
 * `sdk.d.ts` declares, with this library's counterpart from `scripts/sdk-parity.json`. Fails, writing nothing,
 * when the two disagree on which names exist, or when a signature or an SDK type it reaches is no longer the one
 * recorded in `scripts/sdk-parity.signatures.json`: each is listed, old and new.
 *
 *   node scripts/sdk-parity.ts                       # check, then write the README section
 *   node scripts/sdk-parity.ts --sdk path/to/sdk.d.ts # only list what a newer SDK changed
 *   node scripts/sdk-parity.ts --accept              # once code and answers match: record the signatures
 */
import * as fs from "node:fs"
import { parseArgs } from "node:util"
import * as Parity from "./internal/parity.ts"

const { values } = parseArgs({ options: { sdk: { type: "string" }, accept: { type: "boolean" } } })
const declarations = values.sdk ?? Parity.declarationsPath
const sdk = Parity.declared(fs.readFileSync(declarations, "utf8"))
const map = Parity.mapping()
const checked = values.accept === true ? Parity.recorded(sdk) : Parity.signatures()
const differences = Parity.differences(sdk, map, checked)
if (differences.length > 0) {
  console.error(`sdk.d.ts (${declarations}) differs from what the mapping was checked against:\n  ${differences.join("\n  ")}`)
  process.exit(1)
}
if (values.sdk !== undefined) {
  console.log(`${declarations}: nothing changed`)
  process.exit(0)
}
if (values.accept === true) fs.writeFileSync(Parity.signaturesPath, JSON.stringify(checked, null, 2) + "\n")
const readme = fs.readFileSync(Parity.readmePath, "utf8")
fs.writeFileSync(Parity.readmePath, Parity.replaceSection(readme, Parity.section(sdk, map, Parity.sdkVersion())))
const total = Parity.kinds.reduce((n, kind) => n + sdk.entries[kind].length, 0)
const notYet = Parity.kinds.reduce(
  (n, kind) => n + Parity.names(sdk, kind).filter((name) => Parity.isNotYet(map[kind][name]!)).length,
  0
)
console.log(`README.md: ${total} SDK names, ${notYet} not yet`)
