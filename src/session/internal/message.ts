/**
 * The messages a session shows: every output line but the control protocol's.
 */
import type * as Control from "../../schema/Control.ts"
import type * as Schema from "../../schema/Message.ts"
import type * as Protocol from "../Protocol.ts"

export type Message = Exclude<Schema.Message, Protocol.ControlFrame | Control.KeepAlive>
