/**
 * The CLI's permission modes as a schema, for the modules above `schema/` that validate a mode: the list is
 * `Permission.PermissionMode` of the schemas, so that there is one.
 */
export { PermissionMode } from "../schema/Permission.ts"
