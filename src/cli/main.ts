#!/usr/bin/env node
/**
 * The `effect-claude-code` executable: Node's compile cache on, so that a run after the first loads the
 * program's modules without compiling them again, then the program.
 *
 * @since 0.1.0
 */
import * as Module from "node:module"

// Before the program's modules load: the cache holds only what is compiled after this call.
Module.enableCompileCache()
const Program = await import("./Program.ts")
Program.run()
