/**
 * The same Write under each permission mode.
 *
 * @since 0.1.0
 */
import type * as Scenario from "../../Scenario.ts"
import * as Script from "../../Script.ts"

const writeScript = ({ cwd }: Scenario.Context) =>
  Script.make([
    Script.turn([Script.text("Writing the file."), Script.toolUse("Write", { file_path: `${cwd}/out.txt`, content: "written\n" })]),
    Script.turn("Finished.")
  ])

const mode = (name: string, flag: string, description: string): Scenario.Scenario => ({
  name,
  description,
  prompt: "Write 'written' to out.txt.",
  args: ["--permission-mode", flag],
  script: writeScript
})

/**
 * @since 0.1.0
 * @category scenarios
 */
export const permissionDefault = mode("permission_default", "default", "Write in default mode: denied.")

/**
 * @since 0.1.0
 * @category scenarios
 */
export const permissionAcceptEdits = mode("permission_accept_edits", "acceptEdits", "Write in acceptEdits mode: allowed.")

/**
 * @since 0.1.0
 * @category scenarios
 */
export const permissionPlan = mode("permission_plan", "plan", "Write in plan mode: not executed.")

/**
 * `IS_SANDBOX=1` is the CLI's own switch for a deliberate sandbox: with it, root may use
 * bypassPermissions too, so this fixture records the same run for every user.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const permissionBypass: Scenario.Scenario = {
  ...mode("permission_bypass", "bypassPermissions", "Write in bypassPermissions mode (IS_SANDBOX=1): allowed."),
  env: { IS_SANDBOX: "1" }
}

/**
 * Without `IS_SANDBOX`, root is refused bypassPermissions before anything is printed (exit 1, a line
 * on stderr); an ordinary user gets the same run as {@link permissionBypass}.
 *
 * @since 0.1.0
 * @category scenarios
 */
export const permissionBypassRefused = mode(
  "permission_bypass_refused",
  "bypassPermissions",
  "bypassPermissions without IS_SANDBOX: refused when run as root."
)
