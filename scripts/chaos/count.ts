/**
 * The chaos run's figures, each counted from outside the library: the client processes' lines (what they
 * asked and were answered), the scripted server's request log (what the model was asked), the store's tables
 * (the turn log's rows, and every entry and lease write as PostgreSQL triggers saw it, with the writing
 * runner's connection name), the file the tools append to, and the faults the run injected.
 */
import { ScriptedServer } from "../../src/testing/index.ts"
import * as Model from "./model.ts"

/** The figures the run prints, as one JSON line. */
export interface Figures {
  readonly turns: number
  readonly answered: number
  readonly lost: number
  /** Lost turns whose client was told their retries are exhausted (TurnRetriesExhausted). */
  readonly exhausted: number
  readonly duplicatedAnswers: number
  readonly historyBroken: number
  readonly staleWrites: number
  readonly retried: number
  readonly toolReruns: number
  readonly orphans: number
  /** Runners still running 90 seconds after their SIGTERM (then SIGKILLed). */
  readonly stuckOnSigterm: number
  readonly maxTakeoverSeconds: number
}

/** The figures that must be 0. */
export const mustBeZero = ["lost", "duplicatedAnswers", "historyBroken", "staleWrites", "orphans"] as const

export type ClientLine =
  | { readonly asked: string; readonly session: string; readonly at: number }
  | { readonly answered: string; readonly session: string; readonly text: string; readonly at: number }
  | {
    readonly failed: string
    readonly session: string
    readonly exhausted: boolean
    readonly error: string
    readonly at: number
  }
  | { readonly done: true; readonly at: number }

/** A turn log row. */
export interface TurnRow {
  readonly entity_id: string
  readonly turn_id: string
  readonly attempts: number
  readonly messages: string | null
}

/** A write the triggers saw: an entry of a session (`key` its session id) or a lease taken (`key` the lease). */
export interface Write {
  readonly id: number
  readonly kind: "entry" | "lease"
  readonly key: string
  /** The connection's `application_name`: the runner incarnation that wrote. */
  readonly writer: string
  readonly at: number
}

/** A fault the run injected on a runner incarnation or a client. */
export interface Fault {
  readonly kind: "kill" | "stop" | "term" | "killClient"
  readonly target: string
  readonly at: number
}

export interface Observed {
  readonly clients: ReadonlyArray<ClientLine>
  readonly requests: ReadonlyArray<ScriptedServer.RecordedRequest>
  readonly turnRows: ReadonlyArray<TurnRow>
  /** Session id to entity id (from the prompts the session's entries hold). */
  readonly sessionEntities: ReadonlyMap<string, string>
  readonly writes: ReadonlyArray<Write>
  readonly toolRuns: ReadonlyArray<string>
  readonly faults: ReadonlyArray<Fault>
  readonly orphans: number
  readonly stuckOnSigterm: number
}

/** A session's entity id in the turn log, which is also the name of its lease. */
export const entityOf = (session: string) => `AgentSession/${session}`

const countBy = <A>(items: ReadonlyArray<A>, key: (a: A) => string) => {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1)
  return counts
}

const turnNumber = (id: string) => Number(id.slice(id.lastIndexOf("-t") + 2))

export const figures = (observed: Observed): Figures => {
  const asked = new Set(observed.clients.flatMap((l) => "asked" in l ? [l.asked] : []))
  const answeredLines = observed.clients.flatMap((l) => "answered" in l && l.text.startsWith("answer ") ? [l] : [])
  const answered = new Set(answeredLines.map((l) => l.answered))
  const lost = [...asked].filter((id) => !answered.has(id))
  const refused = new Set(observed.clients.flatMap((l) => "failed" in l && l.exhausted ? [l.failed] : []))
  const rows = new Map(observed.turnRows.map((row) => [row.turn_id, row]))

  // Every answer text a turn was given: to its clients, and in the turn log.
  const answers = new Map<string, Set<string>>()
  for (const line of answeredLines) answers.set(line.answered, new Set([...answers.get(line.answered) ?? [], line.text]))
  for (const [id, row] of rows) {
    for (const text of Model.answersIn(row.messages ?? "", id)) answers.set(id, new Set([...answers.get(id) ?? [], text]))
  }
  // The model's final answers to each turn (a request answered with the turn's end), from the request log.
  const asks = ScriptedServer.turnRequests(observed.requests).flatMap((r) => {
    const request = Model.decoded(r.body)
    const turn = request === undefined ? undefined : Model.classify(request)
    return turn === undefined ? [] : [{ turn, body: JSON.stringify(r.body) }]
  })
  const finals = countBy(asks.filter((a) => a.turn.final), (a) => a.turn.id)
  const duplicated = new Set([
    ...[...answers].filter(([, texts]) => texts.size > 1).map(([id]) => id),
    ...[...finals].filter(([id, n]) => n > (rows.get(id)?.attempts ?? 0)).map(([id]) => id)
  ])

  // A request for turn n of a session must carry the answer its client got for each earlier turn.
  const delivered = new Map(answeredLines.map((l) => [l.answered, l.text]))
  const historyBroken = asks.filter(({ body, turn }) => {
    const session = turn.id.slice(0, turn.id.lastIndexOf("-t"))
    return [...delivered].some(([id, text]) =>
      id.startsWith(`${session}-t`) && turnNumber(id) < turnNumber(turn.id) && !body.includes(text)
    )
  }).length

  // An entry written by a runner that did not hold its session's lease at that moment (the last lease taken
  // before the write, in the triggers' order, was another's), or with no lease taken at all.
  const holder = new Map<string, string>()
  let staleWrites = 0
  for (const write of [...observed.writes].sort((a, b) => a.id - b.id)) {
    if (write.kind === "lease") holder.set(write.key, write.writer)
    else {
      const entity = observed.sessionEntities.get(write.key)
      if (entity === undefined || holder.get(entity) !== write.writer) staleWrites++
    }
  }

  return {
    turns: asked.size,
    answered: answered.size,
    lost: lost.length,
    exhausted: lost.filter((id) => refused.has(id)).length,
    duplicatedAnswers: duplicated.size,
    historyBroken,
    staleWrites,
    retried: observed.turnRows.filter((row) => row.attempts >= 2).length,
    toolReruns: [...countBy(observed.toolRuns, (id) => id).values()].reduce((sum, n) => sum + n - 1, 0),
    orphans: observed.orphans,
    stuckOnSigterm: observed.stuckOnSigterm,
    maxTakeoverSeconds: maxTakeover(observed)
  }
}

/**
 * The longest time from a runner's SIGKILL or SIGSTOP to another runner taking the lease of a session whose
 * turn was in flight then (its client's last line before the fault asked a turn; the lease last taken by that
 * runner). A take counts for the fault only when the fault caused it: not when the runner wrote the session's
 * entries after the fault (it woke from its pause still holding the lease, and the session moved later for
 * another reason), nor when another fault of that runner came first (the take is that one's).
 */
export const maxTakeover = (observed: Pick<Observed, "writes" | "clients" | "faults" | "sessionEntities">): number => {
  const leases = observed.writes.filter((w) => w.kind === "lease").sort((a, b) => a.id - b.id)
  const turnLines = observed.clients.flatMap((l) => "asked" in l || "answered" in l ? [l] : []).sort((a, b) => a.at - b.at)
  const spans = observed.faults.filter((f) => f.kind === "kill" || f.kind === "stop").flatMap((fault) => {
    const last = new Map(turnLines.filter((l) => l.at <= fault.at).map((l) => [l.session, l]))
    return [...last.values()].filter((l) => "asked" in l).flatMap(({ session }) => {
      const lease = entityOf(session)
      const before = leases.filter((w) => w.key === lease && w.at <= fault.at).at(-1)
      if (before?.writer !== fault.target) return []
      const taken = leases.find((w) => w.key === lease && w.at > fault.at && w.writer !== fault.target)
      if (taken === undefined) return []
      const between = (at: number) => at > fault.at && at < taken.at
      const keptOn = observed.writes.some((w) =>
        w.kind !== "lease" && w.writer === fault.target && observed.sessionEntities.get(w.key) === lease && between(w.at)
      )
      const laterFault = observed.faults.some((f) => f.target === fault.target && between(f.at))
      return keptOn || laterFault ? [] : [(taken.at - fault.at) / 1000]
    })
  })
  return Math.round(Math.max(0, ...spans) * 10) / 10
}
