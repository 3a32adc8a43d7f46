/**
 * Rewrites the README's SDK parity section (between `<!-- sdk-parity:start -->` and `<!-- sdk-parity:end -->`):
 * every `Options` field, `Query` method, control request and hook event the official SDK's `sdk.d.ts`
 * declares, with this library's counterpart from `scripts/sdk-parity.json`. Fails, writing nothing, when
 * the two disagree on which names exist.
 *
 *   node scripts/sdk-parity.ts
 */
import * as fs from "node:fs"
import * as Parity from "./internal/parity.ts"

const sdk = Parity.declared()
const map = Parity.mapping()
const differences = Parity.differences(sdk, map)
if (differences.length > 0) {
  console.error(`scripts/sdk-parity.json does not match sdk.d.ts:\n  ${differences.join("\n  ")}`)
  process.exit(1)
}
const readme = fs.readFileSync(Parity.readmePath, "utf8")
fs.writeFileSync(Parity.readmePath, Parity.replaceSection(readme, Parity.section(sdk, map, Parity.sdkVersion())))
const total = Parity.kinds.reduce((n, kind) => n + sdk[kind].length, 0)
const notYet = Parity.kinds.reduce(
  (n, kind) => n + sdk[kind].filter((name) => Parity.isNotYet(map[kind][name]!)).length,
  0
)
console.log(`README.md: ${total} SDK names, ${notYet} not yet`)
