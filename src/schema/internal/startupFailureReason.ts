/**
 * The reasons SDK 0.3.332 gives for a refused start (`SDKStartupFailureReason`), as a schema.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

export const StartupFailureReason = Schema.Literals([
  "org_pin_api_key_conflict",
  "provider_not_allowed",
  "org_verify_failed",
  "org_pin_mismatch",
  "managed_settings_invalid",
  "remote_settings_required_unavailable",
  "gateway_signin_required",
  "gateway_access_denied",
  "proxy_invalid",
  "temp_dir_unusable",
  "cwd_unavailable",
  "shell_tool_missing",
  "session_held_by_background",
  "worktree_resume_refused",
  "worktree_unverified",
  "cli_version_too_old",
  "bypass_root",
  "org_config_required_unavailable",
  "org_config_refused",
  "sandbox_required_unavailable",
  "initialize_not_first",
  "config_file_invalid",
  "managed_settings_not_delivered",
  "initialize_fields_not_delivered",
  "sideload_flags_disabled"
])
