#!/usr/bin/env node
/**
 * The `effect-claude-code` executable: the Node version checked, Node's compile cache on, so that a run after
 * the first loads the program's modules without compiling them again, then the program.
 *
 * @since 0.1.0
 */
import * as Module from "node:module"

// The oldest Node the package runs on (`engines` in package.json). Checked before anything that needs a newer
// one loads (the program is imported below, not statically), so that an old Node gets one line saying so, not
// a TypeError from deep inside.
const needed = [22, 19] as const
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
if (major < needed[0] || (major === needed[0] && minor < needed[1])) {
  process.stderr.write(`effect-claude-code needs Node.js ${needed.join(".")} or later; this is Node.js ${process.versions.node}.\n`)
  process.exit(1)
}

// Before the program's modules load: the cache holds only what is compiled after this call.
Module.enableCompileCache()
const Program = await import("./Program.ts")
Program.run()
