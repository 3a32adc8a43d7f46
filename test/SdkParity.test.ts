/**
 * The README's SDK parity table is generated (`npm run sdk:parity`) from the SDK's `sdk.d.ts`,
 * `scripts/sdk-parity.json` and the signatures its answers were checked against: this fails when the SDK
 * declares a name the mapping does not list, when a parameter, an answer or an SDK type they reach changed
 * since (an SDK upgrade shows what is new), and when the README no longer says what the script would write.
 */
import type { HookEvent, SDKStartupFailureReason } from "@anthropic-ai/claude-agent-sdk"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as Parity from "../scripts/internal/parity.ts"
import type * as Result from "../src/schema/Result.ts"
import type * as HookEvents from "../src/schema/HookEvents.ts"

describe("SDK parity table", () => {
  const source = fs.readFileSync(Parity.declarationsPath, "utf8")
  const sdk = Parity.declared(source)
  const map = Parity.mapping()
  const checked = Parity.signatures()
  // The SDK's declarations with one piece of text replaced (which must be there).
  const edited = (from: string, to: string) => {
    assert.include(source, from)
    return Parity.declared(source.replace(from, to))
  }

  it("reads every option, method, request, function and hook event of sdk.d.ts", () => {
    assert.isAtLeast(sdk.entries.options.length, 70)
    assert.include(Parity.names(sdk, "options"), "systemPrompt")
    assert.include(Parity.names(sdk, "methods"), "rewindFiles")
    assert.include(Parity.names(sdk, "controlRequests"), "mcp_toggle")
    assert.include(Parity.names(sdk, "functions"), "listSessions")
    assert.include(Parity.names(sdk, "hookEvents"), "PreSkillShellCommand")
  })

  it("reads parameters and answers, and the types they reach", () => {
    const method = sdk.entries.methods.find((e) => e.name === "setPermissionMode")!
    assert.strictEqual(
      method.signature,
      "setPermissionMode(mode: PermissionMode): Promise<SDKControlSetPermissionModeResponse | undefined>;"
    )
    assert.includeMembers([...method.uses], ["PermissionMode", "SDKControlSetPermissionModeResponse"])
    const request = sdk.entries.controlRequests.find((e) => e.name === "interrupt")!
    assert.strictEqual(request.signature, "(request: SDKControlInterruptRequest) => SDKControlInterruptResponse")
  })

  it("lists exactly what the SDK declares, as checked", () => {
    assert.deepStrictEqual(Parity.differences(sdk, map, checked), [])
  })

  it("finds a name the mapping does not list", () => {
    const newer = { ...sdk, entries: { ...sdk.entries, options: [...sdk.entries.options, { name: "somethingNew", signature: "somethingNew?: string;", uses: [] }] } }
    assert.deepStrictEqual(Parity.differences(newer, map, checked), [
      "options.somethingNew: not in the mapping",
      "options.somethingNew: not checked yet: somethingNew?: string;"
    ])
  })

  it("finds a changed return type", () => {
    const newer = edited("backgroundTasks(toolUseId?: string): Promise<boolean>;", "backgroundTasks(toolUseId?: string): Promise<void>;")
    assert.deepStrictEqual(Parity.differences(newer, map, checked), [
      "methods.backgroundTasks: was backgroundTasks(toolUseId?: string): Promise<boolean>;, is now backgroundTasks(toolUseId?: string): Promise<void>;",
      // `Query` is what `query` answers.
      "type Query: changed, reached by functions.prewarm, functions.query, functions.startup"
    ])
  })

  it("finds a changed field of a type an answer reaches", () => {
    const newer = edited("    still_queued: string[];", "    still_queued: string[];\n    settled?: boolean;")
    assert.deepStrictEqual(Parity.differences(newer, map, checked), [
      "type SDKControlInterruptResponse: changed, reached by methods.interrupt, controlRequests.interrupt, functions.prewarm, functions.query, functions.startup"
    ])
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

  it("types the SDK's hook events and startup failure reasons", () => {
    expectTypeOf<HookEvents.HookEvent>().toEqualTypeOf<HookEvent>()
    expectTypeOf<Result.StartupFailureReason>().toEqualTypeOf<SDKStartupFailureReason>()
  })
})
