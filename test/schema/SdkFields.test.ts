/**
 * Every field the official SDK declares on the lines the CLI writes, at any depth, has a place in our
 * schemas: the SDK's types (read with the TypeScript compiler from sdk.d.ts and the Anthropic SDK it
 * imports) are walked beside the encoded side of our `Message` schema. A declared field that an object of
 * ours lacks (and does not keep as unknown keys) would be dropped on encode; a value kind the SDK allows
 * and ours does not (a `null`, a number) or a field the SDK makes optional and ours requires would fail
 * to decode. Variants the SDK declares and we do not type are fine when they land in a kept-raw fallback.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import ts from "typescript"
import * as Control from "../../src/schema/Control.ts"
import { Message } from "../../src/schema/Message.ts"
import { checker, program, sdkFile } from "../support/SdkProgram.ts"

const sdkExports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(sdkFile)!)!)
const sdkType = (name: string) => checker.getDeclaredTypeOfSymbol(sdkExports.find((s) => s.name === name)!)

/** Every line the SDK says the CLI writes (`StdoutMessage`, not exported by name): what `Transport.readMessages` yields. */
const stdoutMessage = (() => {
  const readMessages = checker.getTypeOfSymbol(sdkType("Transport").getProperty("readMessages")!)
  const generator = readMessages.getCallSignatures()[0]!.getReturnType() as ts.TypeReference
  return checker.getTypeArguments(generator)[0]!
})()

type Ast = SchemaAST.AST

const alternatives = (ast: Ast): Array<Ast> =>
  ast._tag === "Suspend" ? alternatives(ast.thunk()) : ast._tag === "Union" ? ast.types.flatMap(alternatives) : [ast]
const literalsOf = (ast: Ast): Array<unknown> => alternatives(ast).flatMap((a) => a._tag === "Literal" ? [a.literal] : [])
const isOptional = (ast: Ast) => ast.context?.isOptional === true
// An object that keeps every key it is given (a record, or a fallback keeping the raw object).
const keepsAll = (o: SchemaAST.Objects) => o.indexSignatures.length > 0 && o.propertySignatures.length <= 1

const sdkAlternatives = (t: ts.Type): Array<ts.Type> =>
  (t.isUnion() ? t.types : [t]).filter((m) => (m.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void)) === 0)
const sdkLiterals = (t: ts.Type): Array<unknown> =>
  (t.isUnion() ? t.types : [t]).flatMap((m): Array<unknown> =>
    m.isStringLiteral() || m.isNumberLiteral()
      ? [m.value]
      : m.flags & ts.TypeFlags.BooleanLiteral
      ? [m === checker.getTrueType()]
      : []
  )
const sdkFields = (t: ts.Type) =>
  checker.getPropertiesOfType(t).filter((p) =>
    sdkAlternatives(checker.getTypeOfSymbol(p)).every((m) => m.getCallSignatures().length === 0)
  )
const isSdkObject = (t: ts.Type) => (t.flags & ts.TypeFlags.Object) !== 0 && t.getCallSignatures().length === 0

const valueKind = (t: ts.Type): string | undefined =>
  t.flags & ts.TypeFlags.Null
    ? "null"
    : t.flags & ts.TypeFlags.StringLike
    ? "string"
    : t.flags & ts.TypeFlags.NumberLike
    ? "number"
    : t.flags & ts.TypeFlags.BooleanLike
    ? "boolean"
    : undefined
const ourKinds = (ast: Ast): Set<string> =>
  new Set(alternatives(ast).flatMap((a) => {
    switch (a._tag) {
      case "Unknown":
      case "Any":
        return ["string", "number", "boolean", "null"]
      case "String":
      case "TemplateLiteral":
        return ["string"]
      case "Number":
        return ["number"]
      case "Boolean":
        return ["boolean"]
      case "Null":
        return ["null"]
      case "Literal":
        return [a.literal === null ? "null" : typeof a.literal]
      default:
        return []
    }
  }))

const where = (symbol: ts.Symbol) => {
  const declaration = symbol.declarations?.[0]
  if (declaration === undefined) return ""
  const file = declaration.getSourceFile()
  const line = file.getLineAndCharacterOfPosition(declaration.getStart()).line + 1
  return ` (${file.fileName.replace(/.*node_modules\//, "")}:${line})`
}

/**
 * What the SDK declares that `ours` cannot carry, as `path: problem` lines. Objects are paired by their
 * literal fields (`type`, `subtype`, `kind`...): the SDK variant goes to the object of ours whose literals
 * agree with it, and which does not require a literal the variant lacks.
 */
const gaps = (sdk: ts.Type, ours: Ast, path = ""): Array<string> => {
  const found: Array<string> = []
  const seen = new Set<string>()
  const ids = new Map<object, number>()
  const id = (o: object) => ids.get(o) ?? ids.set(o, ids.size).get(o)!
  const walk = (sdk: ts.Type, ours: Ast, path: string): void => {
    const key = `${id(sdk)}:${id(ours)}`
    if (seen.has(key)) return
    seen.add(key)
    const mine = alternatives(ours)
    if (mine.some((a) => a._tag === "Unknown" || a._tag === "Any")) return
    const kinds = ourKinds(ours)
    const lacking = new Set(sdkAlternatives(sdk).flatMap((t) => valueKind(t) ?? []).filter((k) => !kinds.has(k)))
    if (lacking.size > 0) found.push(`${path}: the SDK allows ${[...lacking].join(", ")}, ours does not`)
    for (const member of sdkAlternatives(sdk)) {
      if (checker.isArrayType(member) || checker.isTupleType(member)) {
        const arrays = mine.filter((a): a is SchemaAST.Arrays => a._tag === "Arrays")
        if (arrays.length === 0) found.push(`${path}: an array in the SDK, not in ours`)
        for (const element of checker.getTypeArguments(member as ts.TypeReference)) {
          for (const a of arrays) for (const e of [...a.elements, ...a.rest]) walk(element, e, `${path}[]`)
        }
        continue
      }
      if (!isSdkObject(member)) continue
      const objects = mine.filter((a): a is SchemaAST.Objects => a._tag === "Objects")
      if (objects.length === 0) {
        found.push(`${path}: an object in the SDK, not in ours`)
        continue
      }
      const fields = sdkFields(member)
      const literals = new Map(fields.flatMap((f) => {
        const values = sdkLiterals(checker.getTypeOfSymbol(f))
        return values.length > 0 ? [[f.name, values] as const] : []
      }))
      const agrees = (o: SchemaAST.Objects) =>
        o.propertySignatures.every((p) => {
          const values = literalsOf(p.type)
          const theirs = literals.get(String(p.name))
          return values.length === 0 || (theirs === undefined ? isOptional(p.type) : theirs.some((v) => values.includes(v)))
        })
      const discriminants = (o: SchemaAST.Objects) =>
        o.propertySignatures.filter((p) => literals.has(String(p.name)) && literalsOf(p.type).length > 0)
      const [match] = objects.filter((o) => !keepsAll(o) && agrees(o))
        .sort((a, b) => discriminants(b).length - discriminants(a).length)
      if (match === undefined) {
        const tags = [...literals].map(([k, v]) => `${k}=${v.join("|")}`).join(", ")
        if (!objects.some(keepsAll)) found.push(`${path}: the SDK's {${tags}} is not accepted`)
        continue
      }
      const here = path + discriminants(match).map((p) => `{${String(p.name)}=${literals.get(String(p.name))!.join("|")}}`).join("")
      for (const info of checker.getIndexInfosOfType(member)) {
        for (const signature of match.indexSignatures) walk(info.type, signature.type, `${here}[*]`)
      }
      for (const field of fields) {
        const property = match.propertySignatures.find((p) => p.name === field.name)
        if (property === undefined) {
          if (match.indexSignatures.length === 0) found.push(`${here}.${field.name}: missing${where(field)}`)
          continue
        }
        if ((field.flags & ts.SymbolFlags.Optional) !== 0 && !isOptional(property.type)) {
          found.push(`${here}.${field.name}: optional in the SDK, required in ours${where(field)}`)
        }
        walk(checker.getTypeOfSymbol(field), property.type, `${here}.${field.name}`)
      }
    }
  }
  walk(sdk, ours, path)
  return found
}

describe("the SDK's declarations, at every depth, against our schemas", () => {
  it("every field of every line the CLI writes has a place in ours", () => {
    assert.deepStrictEqual(gaps(stdoutMessage, SchemaAST.toEncoded(Message.ast)), [
      // The SDK types `message` as the API's MessageParam, whose role may be any; it documents role "user".
      "{type=user}{client_composed=true}.message: the SDK's {role=assistant} is not accepted",
      "{type=user}{client_composed=true}.message: the SDK's {role=system} is not accepted"
    ])
  })

  const startsWith = (found: ReadonlyArray<string>, prefix: string) =>
    assert.isTrue(found.some((line) => line.startsWith(prefix)), `no "${prefix}..." in:\n${found.join("\n")}`)

  it("sees a nested field ours lacks and SDK variants ours rejects", () => {
    const { default_to_no: _, ...fields } = Control.CanUseToolRequest.fields
    const lacking = Schema.Struct({
      type: Schema.Literal("control_request"),
      request_id: Schema.String,
      request: Schema.Union([Schema.Struct(fields), Control.SetModelRequest])
    })
    const found = gaps(sdkType("SDKControlRequest"), SchemaAST.toEncoded(lacking.ast))
    startsWith(found, "{type=control_request}.request{subtype=can_use_tool}.default_to_no: missing (@anthropic-ai/claude-agent-sdk/sdk.d.ts:")
    startsWith(found, "{type=control_request}.request: the SDK's {subtype=interrupt, cancel_queued=false|true} is not accepted")
  })

  it("sees a value ours rejects and an optional field ours requires", () => {
    const strict = Schema.Struct({ subtype: Schema.Literal("interrupt"), cancel_queued: Schema.Number })
    const requests = checker.getTypeOfSymbol(sdkType("SDKControlRequest").getProperty("request")!)
    const found = gaps(requests, SchemaAST.toEncoded(strict.ast))
    startsWith(found, "{subtype=interrupt}.cancel_queued: optional in the SDK, required in ours")
    assert.include(found, "{subtype=interrupt}.cancel_queued: the SDK allows boolean, ours does not")
  })
})
