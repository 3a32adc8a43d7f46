/**
 * Every field the official SDK declares on a control request's answer has a place in the schema this library
 * decodes that answer with (`Controls`): the SDK's types are read with the TypeScript compiler from sdk.d.ts.
 * A field the SDK adds and ours lacks would be kept only as an unknown key, not typed.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as Schema from "effect/Schema"
import ts from "typescript"
import * as ControlAnswer from "../../src/schema/ControlAnswer.ts"
import { checker, program, sdkFile } from "../support/SdkProgram.ts"

// Exported or not: some answers are declared without `export`.
const declared = new Map<string, ts.Type>()
program.getSourceFile(sdkFile)!.forEachChild((node) => {
  if (ts.isTypeAliasDeclaration(node)) declared.set(node.name.text, checker.getTypeAtLocation(node.name))
})

// The SDK's answer type, and our schema of it.
const answers: ReadonlyArray<readonly [string, Schema.Top]> = [
  ["SDKControlInterruptResponse", ControlAnswer.InterruptReceipt],
  ["RewindFilesResult", ControlAnswer.RewindFilesResult],
  ["McpSetServersResult", ControlAnswer.McpSetServersResult],
  ["McpServerStatus", ControlAnswer.McpServerStatus],
  ["SDKControlGetContextUsageResponse", ControlAnswer.ContextWindowUsage],
  ["SDKControlGetUsageResponse", ControlAnswer.SessionUsage],
  ["SDKControlReloadPluginsResponse", ControlAnswer.ReloadPluginsResult],
  ["SDKControlReloadSkillsResponse", ControlAnswer.ReloadSkillsResult],
  ["SDKControlReloadOutputStylesResponse", ControlAnswer.ReloadOutputStylesResult],
  ["SDKControlMcpReadResourceResponse", ControlAnswer.McpResourceContents],
  ["SDKControlReadFileResponse", ControlAnswer.FileContents],
  ["SDKControlListPermissionRulesResponse", ControlAnswer.PermissionRules],
  ["SDKControlGetHooksListingResponse", ControlAnswer.HooksListing],
  ["SDKControlGetTaskOutputResponse", ControlAnswer.TaskOutput],
  ["SDKControlInitializeResponse", ControlAnswer.Initialization]
]

const fieldsOf = (schema: Schema.Top): ReadonlyArray<string> =>
  schema.ast._tag === "Objects" ? schema.ast.propertySignatures.map((p) => String(p.name)) : []

describe("control answers against the SDK's types", () => {
  it("every field the SDK declares has a place in ours", () => {
    const missing = answers.flatMap(([name, schema]) => {
      const type = declared.get(name)
      if (type === undefined) return [`${name}: not declared by the SDK`]
      const ours = fieldsOf(schema)
      return checker.getPropertiesOfType(type).map((p) => p.name).filter((field) => !ours.includes(field)).map((field) =>
        `${name}.${field}`
      )
    })
    assert.deepStrictEqual(missing, [])
  })
})
