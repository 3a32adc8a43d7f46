/**
 * A real PostgreSQL server for a test: the testing entry point's `LocalPostgres`, whose errors fail the test with
 * what went wrong (never a skip). `npm test` installs PostgreSQL first where it can (scripts/ensure-postgres.sh).
 */
import * as Effect from "effect/Effect"
import * as LocalPostgres from "../../src/testing/LocalPostgres.ts"

export type Server = LocalPostgres.Server

export const { freePort } = LocalPostgres

export const start = Effect.orDie(LocalPostgres.make)
