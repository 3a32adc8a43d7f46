/**
 * A client process of the chaos run: drives its sessions' turns (`CHAOS_PLAN`, JSON: the seed, each session
 * and the turn it starts at, the time after which it asks no new turn, the pause between turns) on the
 * cluster of `CLAUDE_CLUSTER_PG_URL`, and writes a JSON line when it asks a turn and when it gets its answer.
 * A turn that fails is asked again, by the same id, until it is answered; a client started again after it
 * was killed asks the turn it was waiting for first.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Redacted, Stream } from "effect"
import { shardingConfig } from "../../examples/cluster-runner.ts"
import { AgentSession, Cluster } from "../../src/cluster/index.ts"
import * as Model from "./model.ts"

export interface Plan {
  readonly seed: number
  readonly sessions: ReadonlyArray<{ readonly session: string; readonly from: number }>
  /** No turn is asked after this time (epoch ms), but the one a killed client was waiting for. */
  readonly until: number
  readonly pauseMillis: number
}

const say = (line: unknown) => Effect.sync(() => process.stdout.write(JSON.stringify({ ...line as object, at: Date.now() }) + "\n"))

type Client = Effect.Success<typeof AgentSession.client>

// One turn, asked until it is answered.
const ask = (client: Client, seed: number, session: string, id: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    yield* say({ asked: id, session })
    const events = yield* Stream.runCollect(client(session).Turn({ turnId: id, prompt: Model.prompt(seed, id) }))
    const last = events.at(-1)
    const text = last?._tag === "TurnMessage" && last.message._tag === "ResultSuccess" ? last.message.result : undefined
    // A stream that ended without a result: what it carried, in order, for a look at what happened.
    const trace = text !== undefined ? {} : {
      events: events.map((e) => e._tag === "TurnMessage" ? e.message._tag : e._tag === "TurnStarted" ? `TurnStarted#${e.attempt}` : e._tag)
    }
    yield* say({ answered: id, session, text: text ?? `no result: ${last?._tag === "TurnMessage" ? last.message._tag : last?._tag}`, ...trace })
  }).pipe(
    Effect.catchCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
      // A turn started as often as the entity allows is refused for good: the client goes on to the next.
      const error: any = Cause.squash(cause)
      const exhausted = error?._tag === "AgentSessionError" && error.reason?._tag === "TurnRetriesExhausted"
      const failed = say({ failed: id, session, exhausted, error: String(cause).slice(0, 300) })
      return exhausted ? failed : failed.pipe(
        Effect.andThen(Effect.sleep("2 seconds")),
        Effect.andThen(Effect.suspend(() => ask(client, seed, session, id)))
      )
    })
  )

const drive = (plan: Plan, session: string, from: number) =>
  Effect.gen(function*() {
    const client = yield* AgentSession.client
    for (let n = from; n === from || Date.now() < plan.until; n++) {
      yield* ask(client, plan.seed, session, Model.turnId(session, n))
      yield* Effect.sleep(plan.pauseMillis * (0.5 + Math.random()))
    }
  })

if (import.meta.main) {
  const plan: Plan = JSON.parse(process.env.CHAOS_PLAN!)
  Effect.forEach(plan.sessions, ({ from, session }) => drive(plan, session, from), { concurrency: "unbounded", discard: true }).pipe(
    Effect.andThen(say({ done: true })),
    Effect.provide(Cluster.layerPostgres({ url: Redacted.make(process.env.CLAUDE_CLUSTER_PG_URL!), shardingConfig })),
    NodeRuntime.runMain
  )
}
