/**
 * Control-protocol frames (`--input-format stream-json`): requests in both
 * directions, their responses, cancellations and keep-alives. Request bodies
 * dispatch on `subtype`; unknown subtypes decode to {@link UnknownRequest}.
 *
 * Published as types (`effect-claude-code/schema`): the session writes and answers these frames, users read
 * them. The frame classes are in `Message.variants` (for `Schema.is`), the request bodies in the members
 * of `ControlRequest.fields.request`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import {
  JsonObject,
  rawObject,
  optionalBoolean,
  optionalNullableNumber,
  optionalNullableString,
  optionalString,
  optionalStrings,
  optionalUnknown,
  unknownFallback
} from "./internal/fields.ts"

/**
 * The `permissions.ask` rule that forced a permission prompt whose
 * `decision_reason` is the tool's own (producer-authored: sanitize before display).
 *
 * @since 0.1.0
 * @category schemas
 */
export const MatchedAskRule = Schema.Struct({
  source: Schema.String,
  tool_name: Schema.String,
  rule_content: optionalString
})

/**
 * @since 0.1.0
 * @category models
 */
export type MatchedAskRule = typeof MatchedAskRule.Type

/**
 * The CLI asks whether a tool may run. The last five fields say what a host
 * rendering the prompt must honour.
 *
 * @since 0.1.0
 * @category schemas
 */
export class CanUseToolRequest extends Schema.Class<CanUseToolRequest>("effect-claude-code/CanUseToolRequest")({
  _tag: Schema.tagDefaultOmit("CanUseToolRequest"),
  subtype: Schema.tag("can_use_tool"),
  tool_name: Schema.String,
  input: JsonObject,
  tool_use_id: optionalString,
  permission_suggestions: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  blocked_path: optionalString,
  decision_reason: optionalString,
  decision_reason_type: optionalString,
  title: optionalString,
  display_name: optionalString,
  description: optionalString,
  agent_id: optionalString,
  mcp_server: optionalUnknown,
  /** Every safety check may be approved by the classifier. */
  classifier_approvable: optionalBoolean,
  /** Offer no persistent "don't ask again". */
  suppress_always_allow_rule: optionalBoolean,
  /** Do not pre-select approve. */
  default_to_no: optionalBoolean,
  /** An ask rule forced the prompt: treat it as a person's prompt. */
  matched_ask_rule: Schema.optionalKey(MatchedAskRule),
  /** No one-tap answer: the user must open the session. */
  requires_user_interaction: optionalBoolean
}) {}

/**
 * The CLI runs a hook callback registered at `initialize`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class HookCallbackRequest extends Schema.Class<HookCallbackRequest>("effect-claude-code/HookCallbackRequest")({
  _tag: Schema.tagDefaultOmit("HookCallbackRequest"),
  subtype: Schema.tag("hook_callback"),
  callback_id: Schema.String,
  input: JsonObject,
  tool_use_id: optionalString
}) {}

/**
 * A JSON-RPC message for an SDK-hosted MCP server.
 *
 * @since 0.1.0
 * @category schemas
 */
export class McpMessageRequest extends Schema.Class<McpMessageRequest>("effect-claude-code/McpMessageRequest")({
  _tag: Schema.tagDefaultOmit("McpMessageRequest"),
  subtype: Schema.tag("mcp_message"),
  server_name: Schema.String,
  message: JsonObject
}) {}

/**
 * Opens a control session: hooks, SDK MCP servers (names, per-server
 * policies, pre-fetched manifests), system prompt, agents, skills, plugins,
 * MCP servers, and what the client can render (dialog kinds, per-task stop).
 * Nested configurations are kept as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class InitializeRequest extends Schema.Class<InitializeRequest>("effect-claude-code/InitializeRequest")({
  _tag: Schema.tagDefaultOmit("InitializeRequest"),
  subtype: Schema.tag("initialize"),
  hooks: Schema.optionalKey(JsonObject),
  sdkMcpServers: optionalStrings,
  sdkMcpServerConfigs: Schema.optionalKey(JsonObject),
  sdkMcpServerManifests: Schema.optionalKey(JsonObject),
  sdkMcpServerManifestsOrigin: optionalString,
  jsonSchema: Schema.optionalKey(JsonObject),
  systemPrompt: optionalStrings,
  appendSystemPrompt: optionalString,
  systemPromptSnapshot: optionalBoolean,
  planModeInstructions: optionalString,
  toolAliases: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  excludeDynamicSections: optionalBoolean,
  agents: Schema.optionalKey(JsonObject),
  title: optionalString,
  skills: optionalStrings,
  promptSuggestions: optionalBoolean,
  agentProgressSummaries: optionalBoolean,
  forwardSubagentText: optionalBoolean,
  supportedDialogKinds: optionalStrings,
  perTaskStopAffordance: optionalBoolean,
  plugins: Schema.optionalKey(Schema.Array(JsonObject)),
  mcpServers: Schema.optionalKey(JsonObject)
}) {}

/**
 * Interrupts the running turn (`cancel_queued` also drops queued prompts).
 *
 * @since 0.1.0
 * @category schemas
 */
export class InterruptRequest extends Schema.Class<InterruptRequest>("effect-claude-code/InterruptRequest")({
  _tag: Schema.tagDefaultOmit("InterruptRequest"),
  subtype: Schema.tag("interrupt"),
  cancel_queued: optionalBoolean
}) {}

/**
 * Switches the permission mode of the session.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SetPermissionModeRequest
  extends Schema.Class<SetPermissionModeRequest>("effect-claude-code/SetPermissionModeRequest")({
    _tag: Schema.tagDefaultOmit("SetPermissionModeRequest"),
    subtype: Schema.tag("set_permission_mode"),
    mode: Schema.String
  })
{}

/**
 * Switches the model of the session (`null` or absent: the default model).
 *
 * @since 0.1.0
 * @category schemas
 */
export class SetModelRequest extends Schema.Class<SetModelRequest>("effect-claude-code/SetModelRequest")({
  _tag: Schema.tagDefaultOmit("SetModelRequest"),
  subtype: Schema.tag("set_model"),
  model: optionalNullableString
}) {}

/**
 * Sets the thinking budget (`null`: the session default) and how thinking is displayed.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SetMaxThinkingTokensRequest
  extends Schema.Class<SetMaxThinkingTokensRequest>("effect-claude-code/SetMaxThinkingTokensRequest")({
    _tag: Schema.tagDefaultOmit("SetMaxThinkingTokensRequest"),
    subtype: Schema.tag("set_max_thinking_tokens"),
    max_thinking_tokens: optionalNullableNumber,
    thinking_display: optionalNullableString
  })
{}

/**
 * The CLI asks the client to handle an MCP server's elicitation: a form
 * (`requested_schema`) or a URL to open (`mode: "url"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export class ElicitationRequest extends Schema.Class<ElicitationRequest>("effect-claude-code/ElicitationRequest")({
  _tag: Schema.tagDefaultOmit("ElicitationRequest"),
  subtype: Schema.tag("elicitation"),
  mcp_server_name: Schema.String,
  message: Schema.String,
  mode: optionalString,
  url: optionalString,
  elicitation_id: optionalString,
  requested_schema: Schema.optionalKey(JsonObject),
  property_order: optionalStrings,
  title: optionalString,
  display_name: optionalString,
  description: optionalString
}) {}

/**
 * The CLI asks the client to render a dialog of a kind the client declared
 * at `initialize` (`supportedDialogKinds`); `payload` is the dialog's own.
 *
 * @since 0.1.0
 * @category schemas
 */
export class RequestUserDialogRequest
  extends Schema.Class<RequestUserDialogRequest>("effect-claude-code/RequestUserDialogRequest")({
    _tag: Schema.tagDefaultOmit("RequestUserDialogRequest"),
    subtype: Schema.tag("request_user_dialog"),
    dialog_kind: Schema.String,
    payload: JsonObject,
    tool_use_id: optionalString
  })
{}

/**
 * A request subtype this version does not model; `raw` is the body as written.
 *
 * @since 0.1.0
 * @category schemas
 */
export class UnknownRequest extends Schema.Class<UnknownRequest>("effect-claude-code/UnknownRequest")({
  _tag: Schema.tag("UnknownRequest"),
  raw: rawObject("subtype")
}) {
  /**
   * The `subtype` this version did not know.
   *
   * @since 0.1.0
   */
  get subtype(): string {
    return this.raw.subtype
  }
}

/**
 * Any control request body.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestBody = Schema.Union([
  CanUseToolRequest,
  HookCallbackRequest,
  McpMessageRequest,
  InitializeRequest,
  InterruptRequest,
  SetPermissionModeRequest,
  SetModelRequest,
  SetMaxThinkingTokensRequest,
  ElicitationRequest,
  RequestUserDialogRequest,
  unknownFallback(
    UnknownRequest,
    [
      "can_use_tool",
      "hook_callback",
      "mcp_message",
      "initialize",
      "interrupt",
      "set_permission_mode",
      "set_model",
      "set_max_thinking_tokens",
      "elicitation",
      "request_user_dialog"
    ],
    (raw) => new UnknownRequest({ raw }),
    (request) => request.raw,
    "subtype"
  )
])

/**
 * Any control request body.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestBody = typeof RequestBody.Type

/**
 * A control request, in either direction: `request_id` pairs it with its {@link ControlResponse}.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ControlRequest extends Schema.Class<ControlRequest>("effect-claude-code/ControlRequest")({
  _tag: Schema.tagDefaultOmit("ControlRequest"),
  type: Schema.tag("control_request"),
  request_id: Schema.String,
  request: RequestBody
}) {}

const pendingFields = {
  pending_permission_requests: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  pending_user_dialog_requests: Schema.optionalKey(Schema.Array(Schema.Unknown)),
  pending_elicitation_requests: Schema.optionalKey(Schema.Array(Schema.Unknown))
}

/**
 * A control request answered: `response` is the subtype's own payload.
 *
 * @since 0.1.0
 * @category schemas
 */
export class SuccessResponse extends Schema.Class<SuccessResponse>("effect-claude-code/SuccessResponse")({
  _tag: Schema.tagDefaultOmit("SuccessResponse"),
  subtype: Schema.tag("success"),
  request_id: Schema.String,
  response: Schema.optionalKey(JsonObject),
  ...pendingFields
}) {}

/**
 * A control request refused or failed: `error` says why.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ErrorResponse extends Schema.Class<ErrorResponse>("effect-claude-code/ErrorResponse")({
  _tag: Schema.tagDefaultOmit("ErrorResponse"),
  subtype: Schema.tag("error"),
  request_id: Schema.String,
  error: Schema.String,
  ...pendingFields
}) {}

/**
 * The answer to a {@link ControlRequest} with the same `request_id`.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ControlResponse extends Schema.Class<ControlResponse>("effect-claude-code/ControlResponse")({
  _tag: Schema.tagDefaultOmit("ControlResponse"),
  type: Schema.tag("control_response"),
  response: Schema.Union([SuccessResponse, ErrorResponse])
}) {
  /**
   * The id of the request this answers.
   *
   * @since 0.1.0
   */
  get requestId(): string {
    return this.response.request_id
  }
}

/**
 * The sender no longer needs the answer to its request `request_id`; no reply follows.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ControlCancelRequest extends Schema.Class<ControlCancelRequest>("effect-claude-code/ControlCancelRequest")({
  _tag: Schema.tagDefaultOmit("ControlCancelRequest"),
  type: Schema.tag("control_cancel_request"),
  request_id: Schema.String
}) {}

/**
 * A liveness heartbeat with no payload; receivers ignore it.
 *
 * @since 0.1.0
 * @category schemas
 */
export class KeepAlive extends Schema.Class<KeepAlive>("effect-claude-code/KeepAlive")({
  _tag: Schema.tagDefaultOmit("KeepAlive"),
  type: Schema.tag("keep_alive")
}) {}
