/**
 * Child processes of a test that write JSON lines (the durable job's runner): started with their lines
 * collected and their process tree marked, and ended with whatever of the tree is left (see
 * `examples/cluster-kit.ts`).
 */
import type * as ClaudeSandbox from "../../../src/testing/ClaudeSandbox.ts"
import * as Kit from "../../../examples/cluster-kit.ts"

export type JsonChild = Kit.Child

export const { leftBehind, stop } = Kit

/**
 * Runs `script` on this Node with `env`; the sandbox it hands its CLIs as JSON in `sandboxVariable` carries the
 * child's mark, so that their tools are found too.
 */
export const spawn = (
  script: string,
  env: Record<string, string>,
  sandbox: { readonly variable: string; readonly value: ClaudeSandbox.Sandbox }
): JsonChild => {
  const mark = Kit.newMark()
  const marked = { ...sandbox.value, env: { ...sandbox.value.env, [Kit.markVariable]: mark } }
  return Kit.spawnNode(script, { ...env, [sandbox.variable]: JSON.stringify(marked) }, mark)
}
