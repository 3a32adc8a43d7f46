/**
 * The `Fenced` error the stores give an append whose fence is not its lease's current token.
 */
import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { type Fence, Fenced, type Operation, type SessionKey, SessionStoreError } from "../SessionStore.ts"
import { keyString } from "./keys.ts"

export const refused = (operation: Operation, key: SessionKey | string, fence: Fence, current: number): SessionStoreError =>
  new SessionStoreError({
    reason: new Fenced({ operation, key: typeof key === "string" ? key : keyString(key), lease: fence.lease, token: fence.token, current })
  })

/**
 * Bounds the idle time of a fenced write's transaction on PostgreSQL. Such a transaction holds the row that
 * a newer holder's `acquire` (or the turn log's `claim`) waits for, so that no older write lands after it: a
 * writer paused mid-transaction (SIGSTOP, a frozen VM) would hold that row for as long as it stays paused,
 * and the takeover with it. PostgreSQL ends a transaction left idle this long; its write is undone, and the
 * writer, once it wakes, finds out it lost. Run first in the transaction.
 */
export const idleLimit = (sql: SqlClient.SqlClient): Effect.Effect<void> =>
  sql.onDialectOrElse({
    pg: () => Effect.orDie(Effect.asVoid(sql`SET LOCAL idle_in_transaction_session_timeout = '10s'`)),
    orElse: () => Effect.void
  })
