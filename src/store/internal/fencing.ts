/**
 * The `Fenced` error the stores give an append whose fence is not its lease's current token.
 */
import { type Fence, Fenced, type Operation, type SessionKey, SessionStoreError } from "../SessionStore.ts"
import { keyString } from "./keys.ts"

export const refused = (operation: Operation, key: SessionKey, fence: Fence, current: number): SessionStoreError =>
  new SessionStoreError({ reason: new Fenced({ operation, key: keyString(key), lease: fence.lease, token: fence.token, current }) })
