/**
 * Synchronous fast-path decoders derived from schema ASTs, for the hot path
 * of transcript decoding.
 *
 * Effect's interpreter (and its JIT, which leaves `Schema.Class` declarations
 * and unions of them to the interpreter) allocates an Effect per node and
 * searches union candidates per value; the message schemas are mostly tagged
 * classes in tagged unions. A fast decoder follows the same AST: a struct
 * becomes generated code (named property loads, inline leaf tests), unions
 * dispatch on their literal discriminator through a `Map`, a class whose
 * instances are just its fields is built in place by its struct's code (others
 * by the schema's own transformation), checks run as Effect's filters. A node it
 * does not know (other encodings) is decoded by Effect for that node alone.
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
import * as SchemaAST from "effect/SchemaAST"

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

/**
 * How many times Effect's decoder ran for a node or a whole input instead of
 * the fast path (tests check that known shapes never need it).
 *
 * @internal
 */
export const fallbacks = { count: 0 }

// Effect's own decoder for one node, as a fast decoder.
const byEffect = (ast: SchemaAST.AST): Fast => {
  let decode: ((input: unknown) => Result.Result<unknown, unknown>) | undefined
  return (input) => {
    fallbacks.count++
    const result = (decode ??= Schema.decodeUnknownResult(Schema.make<Schema.Top>(ast) as Schema.Codec<unknown>))(input)
    return Result.isSuccess(result) ? result.success : invalid
  }
}

// Whether `value` passes every filter of `checks`, as Effect would run them.
const passes = (checks: ReadonlyArray<SchemaAST.Check<unknown>>, value: unknown, ast: SchemaAST.AST): boolean => {
  for (const check of checks) {
    if (check._tag === "FilterGroup" ? !passes(check.checks, value, ast) : check.run(value, ast, noOptions) !== undefined) {
      return false
    }
  }
  return true
}

// A node with checks: the node itself, then its filters (synchronous, like Effect's).
const build = (ast: SchemaAST.AST): Fast => {
  if (isFiniteNumber(ast)) return (i) => (typeof i === "number" && i - i === 0 ? i : invalid)
  const decode = buildUnchecked(ast)
  const checks = ast.checks
  if (checks === undefined) return decode
  return (input) => {
    const value = decode(input)
    return value === invalid || !passes(checks, value, ast) ? invalid : value
  }
}

const buildUnchecked = (ast: SchemaAST.AST): Fast => {
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

// Effect's description of a class declaration: `isConstructed` is the instance
// test the declaration's own check runs. A runtime export of SchemaAST that its
// public types leave out; without it, the check runs as an Effect.
const constructorDescriptor = (SchemaAST as unknown as {
  readonly getConstructorDescriptor?: (ast: SchemaAST.AST) =>
    | { readonly isConstructed: (u: unknown) => boolean; readonly link: SchemaAST.Link }
    | undefined
}).getConstructorDescriptor

// A class: its fields' struct, the schema's transformation, then the declaration's own check; or, for a
// class of its own fields (see `instancePrototype`), the instance built in place.
const declaration = (ast: SchemaAST.Declaration): Fast => {
  const links = ast.encoding!
  const transformation = links[0]!.transformation as { readonly decode?: { readonly _tag?: string; readonly transform?: (a: unknown) => unknown } }
  const transform = transformation.decode?._tag === "Transform" ? transformation.decode.transform : undefined
  if (links.length !== 1 || transform === undefined) return byEffect(ast)
  const to = links[0]!.to
  const descriptor = constructorDescriptor?.(ast)
  const own = descriptor !== undefined && descriptor.link.transformation === links[0]!.transformation
  const prototype = own && to._tag === "Objects" && to.checks === undefined && to.encoding === undefined
    ? instancePrototype(transform)
    : undefined
  const inPlace = prototype === undefined ? undefined : struct(to as SchemaAST.Objects, prototype)
  if (inPlace !== undefined) return inPlace
  const from = compile(to)
  const run = ast.run(ast.typeParameters)
  const check: Fast = own
    ? (value) => (descriptor.isConstructed(value) ? value : invalid)
    : (value) => {
      const exit = run(value, ast, noOptions)
      return Exit.isExit(exit) && Exit.isSuccess(exit) ? exit.value : invalid
    }
  return (input) => {
    const fields = from(input)
    return fields === invalid ? invalid : check(transform(fields))
  }
}

// The prototype of a class whose instances are its fields and nothing else, or undefined. A `Schema.Class`
// instance is made by its constructor copying the fields onto it; building it in place (an object of that
// prototype, the fields stored as the struct decodes them) gives the same object without the fields' own
// object, the constructor chain and its option objects: most of the schema step's time on messages. The
// transformation is probed: built from no fields, the instance must hold no key of its own, and from one
// field, exactly that field, extensible, with the same prototype.
const instancePrototype = (transform: (fields: unknown) => unknown): object | undefined => {
  try {
    const empty = transform({}) as object
    const probe = transform({ probe: 1 }) as { readonly probe?: unknown }
    const prototype = Object.getPrototypeOf(empty) as object | null
    return prototype !== null && prototype !== Object.prototype && Reflect.ownKeys(empty).length === 0 &&
        Object.getPrototypeOf(probe) === prototype && Object.isExtensible(probe) &&
        Reflect.ownKeys(probe).length === 1 && probe.probe === 1
      ? prototype
      : undefined
  } catch {
    return undefined
  }
}

// `Schema.tagDefaultOmit(L)`: the literal L, decoded from an optional key holding L.
const literalDefault = (ast: SchemaAST.AST): SchemaAST.Literal | undefined => {
  const link = ast.encoding?.length === 1 ? ast.encoding[0]! : undefined
  const to = link?.to
  return ast._tag === "Literal" && ast.checks === undefined && to !== undefined && to._tag === "Literal" &&
      to.literal === ast.literal && to.encoding === undefined && to.checks === undefined && isOptional(to) &&
      (link!.transformation as { readonly decode?: { readonly _tag?: string } }).decode?._tag === "TransformOptionalEffect"
    ? ast
    : undefined
}

// `Schema.Finite`: a number node whose only check is Effect's `isFinite`.
const isFiniteNumber = (ast: SchemaAST.AST): boolean => {
  const check = ast.checks?.length === 1 ? ast.checks[0] : undefined
  return ast._tag === "Number" && ast.encoding === undefined && check?._tag === "Filter" &&
    (check.annotations as { readonly representation?: { readonly id?: string } } | undefined)?.representation?.id ===
      "effect/schema/isFinite"
}

// A JavaScript test of `v` for a leaf that decodes to itself, or undefined.
const inlineTest = (ast: SchemaAST.AST): string | undefined => {
  // `v - v` is 0 for a finite number, NaN for NaN and the infinities.
  if (isFiniteNumber(ast)) return `typeof v === "number" && v - v === 0`
  if (ast.checks !== undefined || ast.encoding !== undefined) return undefined
  switch (ast._tag) {
    case "String":
    case "Number":
    case "Boolean":
      return `typeof v === "${ast._tag.toLowerCase()}"`
    case "Null":
      return "v === null"
    case "Unknown":
    case "Any":
      return "true"
    case "Literal":
      return typeof ast.literal === "bigint" ? undefined : `v === ${JSON.stringify(ast.literal)}`
    default:
      return undefined
  }
}

const assign = (out: Record<string, unknown>, key: string, value: unknown) => {
  if (key === "__proto__") Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true })
  else out[key] = value
}

let canGenerate: boolean | undefined

const objects = (ast: SchemaAST.Objects): Fast => struct(ast, undefined) ?? byEffect(ast)

// A struct (with at most a string-keyed rest) becomes generated code: named property loads and inline leaf
// tests, calls only for nested nodes. Its output is a plain object, or an instance of `prototype` (made by a
// constructor of its own, so that V8 sizes the instances for their fields). Undefined for a struct it cannot
// generate.
const struct = (ast: SchemaAST.Objects, prototype: object | undefined): Fast | undefined => {
  const signature = ast.indexSignatures[0]
  const names = ast.propertySignatures.map((p) => p.name)
  if (
    names.some((name) => typeof name !== "string" || name === "__proto__") || ast.indexSignatures.length > 1 ||
    (names.length === 0 && signature === undefined) ||
    (signature !== undefined &&
      (signature.parameter._tag !== "String" || signature.parameter.checks !== undefined ||
        signature.parameter.encoding !== undefined))
  ) return undefined
  const decoders: Array<Fast> = []
  const lines = [
    `if (typeof i !== "object" || i === null || Array.isArray(i)) return invalid`,
    prototype === undefined ? "const out = {}" : "const out = new Instance()",
    "let v"
  ]
  for (const property of ast.propertySignatures) {
    const key = JSON.stringify(property.name)
    const absent = literalDefault(property.type)
    if (absent !== undefined) {
      if (typeof absent.literal === "bigint") return undefined
      const literal = JSON.stringify(absent.literal)
      lines.push(`if (${key} in i && i[${key}] !== ${literal}) return invalid`, `out[${key}] = ${literal}`)
      continue
    }
    const test = inlineTest(property.type)
    let body: string
    if (test !== undefined) {
      body = `v = i[${key}]; if (!(${test})) return invalid; out[${key}] = v`
    } else {
      decoders.push(compile(property.type))
      body = `v = d[${decoders.length - 1}](i[${key}]); if (v === invalid) return invalid; out[${key}] = v`
    }
    // A required key must be present; a leaf test that rejects `undefined` says so already.
    const tested = test !== undefined && test !== "true"
    lines.push(
      isOptional(property.type) ? `if (${key} in i) { ${body} }` : tested ? body : `if (!(${key} in i)) return invalid; ${body}`
    )
  }
  if (signature !== undefined) {
    lines.push(
      "const keys = Object.keys(i)",
      "for (let k = 0; k < keys.length; k++) { const key = keys[k]; if (fixed.has(key)) continue; v = rest(i[key]); if (v === invalid) return invalid; assign(out, key, v) }"
    )
  }
  lines.push("return out")
  const rest = signature === undefined ? undefined : compile(signature.type)
  try {
    const make = new Function(
      "invalid",
      "d",
      "rest",
      "fixed",
      "assign",
      "prototype",
      // Strict, as the constructor's own stores are: a store the prototype forbids throws rather than being lost.
      `"use strict"\nfunction Instance() {}\nInstance.prototype = prototype\nreturn function (i) {\n${lines.join("\n")}\n}`
    )
    canGenerate = true
    return make(invalid, decoders, rest, new Set(names), assign, prototype) as Fast
  } catch (error) {
    // Where code generation is blocked (a content security policy), Effect decodes the node.
    if (canGenerate === true) throw error
    canGenerate = false
    return undefined
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
  // Both built on first use: modules make decoders for every variant as they load, and a program that loads
  // them (the bin's `stats` on transcripts) may decode a few of them, or none.
  let fast: Fast | undefined
  let full: ((input: unknown) => Result.Result<S["Type"], Schema.SchemaError>) | undefined
  return (input) => {
    const value = (fast ??= compile(schema.ast))(input)
    if (value !== invalid) return Result.succeed(value as S["Type"])
    fallbacks.count++
    return (full ??= Schema.decodeUnknownResult(schema as unknown as Schema.Codec<S["Type"], unknown>))(input)
  }
}
