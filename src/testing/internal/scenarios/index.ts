/**
 * Every bundled scenario, by name.
 *
 * @since 0.1.0
 */
import type * as Scenario from "../../Scenario.ts"
import { demo } from "./demo.ts"
import { streamJsonSession, subagent } from "./agents.ts"
import { mathCalculation, simpleHello, thinking } from "./basic.ts"
import { errorCase, errorInvalidRequest, errorMaxTurns } from "./errors.ts"
import {
  permissionAcceptEdits,
  permissionBypass,
  permissionBypassRefused,
  permissionDefault,
  permissionPlan
} from "./permissions.ts"
import { complexToolChain, createFile, failingBash, fileListing, largeToolResult, readFile } from "./tools.ts"

/**
 * @since 0.1.0
 */
export * from "./agents.ts"

/**
 * @since 0.1.0
 */
export * from "./basic.ts"

/**
 * @since 0.1.0
 */
export * from "./demo.ts"

/**
 * @since 0.1.0
 */
export * from "./errors.ts"

/**
 * @since 0.1.0
 */
export * from "./permissions.ts"

/**
 * @since 0.1.0
 */
export * from "./tools.ts"


/**
 * All scenarios in recording order.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const all: ReadonlyArray<Scenario.Scenario> = [
  simpleHello,
  mathCalculation,
  thinking,
  fileListing,
  readFile,
  createFile,
  complexToolChain,
  failingBash,
  largeToolResult,
  errorCase,
  errorInvalidRequest,
  errorMaxTurns,
  permissionDefault,
  permissionAcceptEdits,
  permissionPlan,
  permissionBypass,
  permissionBypassRefused,
  subagent,
  streamJsonSession,
  demo
]

/**
 * A scenario by its name.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const byName = (name: string): Scenario.Scenario | undefined => all.find((s) => s.name === name)
