/**
 * Synchronous fast-path decoders derived from schema ASTs, for the hot path
 * of transcript decoding.
 *
 * Effect's interpreter (and its JIT, which leaves `Schema.Class` declarations
 * and unions of them to the interpreter) allocates an Effect per node and
 * searches union candidates per value; the message schemas are mostly tagged
 * classes in tagged unions. A fast decoder walks the same AST with plain
 * closures: unions dispatch on their literal discriminator through a `Map`,
 * classes are built by the schema's own transformation. A node it does not
 * know (checks, other encodings) is decoded by Effect for that node alone.
 *
 * A fast decoder never reports errors: it returns {@link invalid} and the
 * caller runs the schema's own decoder, so every failure (and its issue) is
 * exactly Effect's. Success values equal Effect's; test/stream/FastDecode.test.ts
 * checks both over every corpus line and over mutated lines.
 *
 * @internal
 */
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"

/** What a fast decoder returns for input it does not accept. @internal */
export const invalid: unique symbol = Symbol.for("effect-claude-code/fastDecode/invalid")

/** @internal */
export type Fast = (input: unknown) => unknown

const cache = new WeakMap<SchemaAST.AST, Fast>()
const noOptions: SchemaAST.ParseOptions = {}

const isOptional = (ast: SchemaAST.AST): boolean => ast.context?.isOptional === true

/**
 * The fast decoder of `ast` (memoized per AST node).
 *
 * @internal
 */
export const compile = (ast: SchemaAST.AST): Fast => {
  const cached = cache.get(ast)
  if (cached !== undefined) return cached
  // A forwarding stub first, so a schema that refers to itself terminates.
  let built: Fast | undefined
  cache.set(ast, (input) => built!(input))
  built = build(ast)
  cache.set(ast, built)
  return built
}

// Effect's own decoder for one node, as a fast decoder.
const byEffect = (ast: SchemaAST.AST): Fast => {
  let decode: ((input: unknown) => Result.Result<unknown, unknown>) | undefined
  return (input) => {
    const result = (decode ??= Schema.decodeUnknownResult(Schema.make<Schema.Top>(ast) as Schema.Codec<unknown>))(input)
    return Result.isSuccess(result) ? result.success : invalid
  }
}

const build = (ast: SchemaAST.AST): Fast => {
  if (ast.checks !== undefined) return byEffect(ast)
  if (ast.encoding !== undefined) return ast._tag === "Declaration" ? declaration(ast) : byEffect(ast)
  switch (ast._tag) {
    case "String":
      return (i) => (typeof i === "string" ? i : invalid)
    case "Number":
      return (i) => (typeof i === "number" ? i : invalid)
    case "Boolean":
      return (i) => (typeof i === "boolean" ? i : invalid)
    case "Null":
      return (i) => (i === null ? i : invalid)
    case "Unknown":
    case "Any":
      return (i) => i
    case "Literal": {
      const literal = ast.literal
      return (i) => (i === literal ? i : invalid)
    }
    case "Objects":
      return objects(ast)
    case "Arrays":
      return arrays(ast)
    case "Union":
      return union(ast)
    default:
      return byEffect(ast)
  }
}

// A class: its fields' struct, the schema's transformation, then the declaration's own check.
const declaration = (ast: SchemaAST.Declaration): Fast => {
  const links = ast.encoding!
  const transformation = links[0]!.transformation as { readonly decode?: { readonly _tag?: string; readonly transform?: (a: unknown) => unknown } }
  const transform = transformation.decode?._tag === "Transform" ? transformation.decode.transform : undefined
  if (links.length !== 1 || transform === undefined) return byEffect(ast)
  const from = compile(links[0]!.to)
  const check = ast.run(ast.typeParameters)
  return (input) => {
    const fields = from(input)
    if (fields === invalid) return invalid
    const value = transform(fields)
    const exit = check(value, ast, noOptions)
    return Exit.isExit(exit) && Exit.isSuccess(exit) ? exit.value : invalid
  }
}

interface Field {
  readonly name: string
  readonly decode: Fast
  readonly optional: boolean
  /** Not `__proto__`: a plain assignment stores it. */
  readonly plain: boolean
  /** For a key with a decoding default of its own literal (`Schema.tagDefaultOmit`): the literal. */
  readonly absent: { readonly value: unknown } | undefined
}

// `Schema.tagDefaultOmit(L)`: the literal L, decoded from an optional key holding L.
const literalDefault = (ast: SchemaAST.AST): { readonly value: unknown } | undefined => {
  const link = ast.encoding?.length === 1 ? ast.encoding[0]! : undefined
  const to = link?.to
  return ast._tag === "Literal" && ast.checks === undefined && to !== undefined && to._tag === "Literal" &&
      to.literal === ast.literal && to.encoding === undefined && to.checks === undefined && isOptional(to) &&
      (link!.transformation as { readonly decode?: { readonly _tag?: string } }).decode?._tag === "TransformOptionalEffect"
    ? { value: ast.literal }
    : undefined
}

const field = (property: SchemaAST.PropertySignature): Field | undefined => {
  if (typeof property.name !== "string") return undefined
  const absent = literalDefault(property.type)
  const decode: Fast = absent === undefined
    ? compile(property.type)
    : (i) => (i === absent.value ? i : invalid)
  return { name: property.name, decode, optional: isOptional(property.type), plain: property.name !== "__proto__", absent }
}

const assign = (out: Record<string, unknown>, key: string, value: unknown) => {
  if (key === "__proto__") Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
  else out[key] = value
}

const objects = (ast: SchemaAST.Objects): Fast => {
  const fields = ast.propertySignatures.map(field)
  const signature = ast.indexSignatures[0]
  if (
    fields.some((f) => f === undefined) || ast.indexSignatures.length > 1 ||
    (fields.length === 0 && signature === undefined) ||
    (signature !== undefined &&
      (signature.parameter._tag !== "String" || signature.parameter.checks !== undefined ||
        signature.parameter.encoding !== undefined))
  ) return byEffect(ast)
  const known = fields as ReadonlyArray<Field>
  const fixed = new Set(known.map((f) => f.name))
  const rest = signature === undefined ? undefined : compile(signature.type)
  return (input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return invalid
    const i = input as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (let k = 0; k < known.length; k++) {
      const f = known[k]!
      if (f.name in i) {
        const value = f.decode(i[f.name])
        if (value === invalid) return invalid
        if (f.plain) out[f.name] = value
        else assign(out, f.name, value)
      } else if (f.absent !== undefined) {
        out[f.name] = f.absent.value
      } else if (!f.optional) {
        return invalid
      }
    }
    if (rest !== undefined) {
      const keys = Object.keys(i)
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k]!
        if (fixed.has(key)) continue
        const value = rest(i[key])
        if (value === invalid) return invalid
        assign(out, key, value)
      }
    }
    return out
  }
}

const arrays = (ast: SchemaAST.Arrays): Fast => {
  if (ast.elements.length !== 0 || ast.rest.length !== 1) return byEffect(ast)
  const element = compile(ast.rest[0]!)
  return (input) => {
    if (!Array.isArray(input)) return invalid
    const out = new Array<unknown>(input.length)
    for (let k = 0; k < input.length; k++) {
      const value = element(input[k])
      if (value === invalid) return invalid
      out[k] = value
    }
    return out
  }
}

// The required, plain literal fields of a union member (through a class to its struct).
const sentinels = (ast: SchemaAST.AST): Map<string, unknown> => {
  const found = new Map<string, unknown>()
  const struct = ast._tag === "Declaration" && ast.encoding?.length === 1 ? ast.encoding[0]!.to : ast
  if (struct._tag !== "Objects") return found
  for (const p of struct.propertySignatures) {
    const t = p.type
    if (typeof p.name === "string" && t._tag === "Literal" && !isOptional(t) && t.encoding === undefined && t.checks === undefined) {
      found.set(p.name, t.literal)
    }
  }
  return found
}

// Tries members in declared order (the first success wins, as in Effect's `anyOf`
// unions); members whose discriminator literal differs from the input's are skipped,
// as they cannot succeed.
const union = (ast: SchemaAST.Union): Fast => {
  if (ast.options?.mode === "oneOf") return byEffect(ast)
  const members = ast.types.map(compile)
  const all = ast.types.map((_, k) => k)
  const tagged = ast.types.map(sentinels)
  const counts = new Map<string, number>()
  for (const s of tagged) for (const key of s.keys()) counts.set(key, (counts.get(key) ?? 0) + 1)
  let key: string | undefined
  for (const [k, n] of counts) if (n >= 2 && (key === undefined || n > counts.get(key)!)) key = k
  const run = (candidates: ReadonlyArray<number>, input: unknown) => {
    for (let k = 0; k < candidates.length; k++) {
      const value = members[candidates[k]!]!(input)
      if (value !== invalid) return value
    }
    return invalid
  }
  if (key === undefined) return (input) => run(all, input)
  const discriminator = key
  const untagged = all.filter((k) => !tagged[k]!.has(discriminator))
  const byValue = new Map<unknown, ReadonlyArray<number>>()
  for (const k of all) {
    if (!tagged[k]!.has(discriminator)) continue
    const value = tagged[k]!.get(discriminator)
    if (!byValue.has(value)) byValue.set(value, all.filter((j) => !tagged[j]!.has(discriminator) || tagged[j]!.get(discriminator) === value))
  }
  return (input) =>
    typeof input === "object" && input !== null
      ? run(byValue.get((input as Record<string, unknown>)[discriminator]) ?? untagged, input)
      : run(all, input)
}

/**
 * `Schema.decodeUnknownResult(schema)` with the fast path in front: the same
 * results, and Effect's own decoder (hence its issues) for any input the fast
 * path does not accept.
 *
 * @internal
 */
export const decodeUnknownResult = <S extends Schema.Top>(
  schema: S
): (input: unknown) => Result.Result<S["Type"], Schema.SchemaError> => {
  const fast = compile(schema.ast)
  const full = Schema.decodeUnknownResult(schema as unknown as Schema.Codec<S["Type"], unknown>)
  return (input) => {
    const value = fast(input)
    return value === invalid ? full(input) : Result.succeed(value as S["Type"])
  }
}
