/**
 * Prototypes of faster decode paths, measured beside the real pipeline
 * (variant `d-jit`). Nothing here is used by the library; each prototype is a
 * suggested change to src/, measured before it is proposed.
 */
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import * as Message from "../src/schema/Message.ts"

let enabled = false

/**
 * Turns on Effect's JIT-compiled decoders for every message schema. Must run
 * before the first decode: `Schema.decodeUnknownResult` resolves its parser on
 * first call. The proposed change is the same loop inside `src/schema/Message.ts`.
 */
export const enableJit = (): void => {
  if (enabled) return
  enabled = true
  for (const variant of Message.variants) SchemaJITCompiler.enable(variant.ast)
}
