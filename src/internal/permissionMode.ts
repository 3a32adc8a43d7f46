/**
 * The CLI's permission modes as a schema: the one list `QueryOptions.PermissionMode` and the cluster's RPCs
 * are both made from.
 */
import * as Schema from "effect/Schema"

export const PermissionMode = Schema.Literals(["default", "acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan"])
