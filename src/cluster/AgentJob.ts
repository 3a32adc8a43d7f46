/**
 * Multi-turn agent jobs as durable `effect/workflow` Workflows: each turn is an Activity that runs a `Turn` on
 * the job's {@link AgentSession.AgentSession} entity (the job id is the entity id, `<jobId>/<index>` the turn
 * id). On the SQL-backed engine (`ClusterWorkflowEngine` over `Cluster.layerSqlite`), a job stopped by a crash
 * resumes after its last finished turn: finished activities are answered from storage and never run again.
 *
 * @since 0.1.0
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { AgentJob } from "effect-claude-code/cluster"
 *
 * const Review = AgentJob.make("Review")
 * const ReviewLayer = AgentJob.layer(Review)
 * const results = Review.execute({ jobId: "pr-17", prompts: ["Read the diff", "List the risks", "Write the summary"] })
 * ```
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Activity from "effect/workflow/Activity"
import * as Workflow from "effect/workflow/Workflow"
import * as AgentSession from "./AgentSession.ts"
import { WireMessage } from "./Wire.ts"

const Payload = {
  /** The job's id: its workflow's idempotency key and its session entity's id. */
  jobId: Schema.String,
  /** One prompt per turn, in order. */
  prompts: Schema.Array(Schema.String)
}

/**
 * A job workflow: its result is the last message (the result) of each turn.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const Name extends string>(name: Name) =>
  Workflow.make(name, {
    payload: Payload,
    success: Schema.Array(WireMessage),
    error: AgentSession.AgentSessionError,
    idempotencyKey: ({ jobId }) => jobId
  })

/**
 * @since 0.1.0
 * @category models
 */
export type AgentJob = ReturnType<typeof make<string>>

const undelivered = (error: { readonly _tag?: string; readonly message: string }) =>
  new AgentSession.AgentSessionError({
    reason: new AgentSession.Undelivered({ errorTag: error._tag ?? null, detail: error.message })
  })

/**
 * One turn through the entity, to its last message.
 *
 * @since 0.1.0
 * @category activities
 */
export const turn = (jobId: string, index: number, prompt: string) =>
  Activity.make({
    name: `turn-${index}`,
    success: WireMessage,
    error: AgentSession.AgentSessionError,
    execute: Effect.gen(function*() {
      const client = yield* AgentSession.client
      const events = yield* client(jobId).ActivityTurn({ turnId: `${jobId}/${index}`, prompt }).pipe(
        Stream.runCollect,
        Effect.mapError((error) => error._tag === "AgentSessionError" ? error : undelivered(error))
      )
      const last = events.at(-1)
      if (last?._tag !== "TurnMessage") {
        return yield* undelivered({ message: `turn ${index} of job "${jobId}" ended without a message` })
      }
      return last.message
    })
  })

/**
 * Registers the job's workflow: its turns run one after the other, each an activity.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (job: AgentJob) =>
  job.toLayer(({ jobId, prompts }) => Effect.forEach(prompts, (prompt, index) => turn(jobId, index, prompt)))
