/**
 * The README's SDK parity table is generated (`npm run sdk:parity`) from the SDK's `sdk.d.ts` and
 * `scripts/sdk-parity.json`: this fails when the SDK declares a name the mapping does not list (an SDK
 * upgrade shows what is new) and when the README no longer says what the script would write.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as Parity from "../scripts/internal/parity.ts"

describe("SDK parity table", () => {
  const sdk = Parity.declared()
  const map = Parity.mapping()

  it("reads every option, method, request and hook event of sdk.d.ts", () => {
    assert.isAtLeast(sdk.options.length, 70)
    assert.include(sdk.options, "systemPrompt")
    assert.include(sdk.methods, "rewindFiles")
    assert.include(sdk.controlRequests, "mcp_toggle")
    assert.include(sdk.hookEvents, "PreToolUse")
  })

  it("lists exactly what the SDK declares", () => {
    assert.deepStrictEqual(Parity.differences(sdk, map), [])
  })

  it("finds a name the mapping does not list", () => {
    const newer = { ...sdk, options: [...sdk.options, "somethingNew"] }
    assert.deepStrictEqual(Parity.differences(newer, map), ["options.somethingNew: not in the mapping"])
  })

  it("gives a reason for every name not covered", () => {
    const bare = Parity.kinds.flatMap((kind) =>
      Object.entries(map[kind]).filter(([, answer]) => answer.trim() === "not yet" || answer.trim() === "").map(([name]) => `${kind}.${name}`)
    )
    assert.deepStrictEqual(bare, [])
  })

  it("is the README section the script writes", () => {
    const readme = fs.readFileSync(Parity.readmePath, "utf8")
    assert.strictEqual(Parity.currentSection(readme), Parity.section(sdk, map, Parity.sdkVersion()))
  })
})
