/**
 * Worker processes for the throughput and memory figures: one forked process
 * per variant (bench/worker.ts), runs interleaved round-robin across them.
 */
import * as childProcess from "node:child_process"
import * as path from "node:path"
import type { Reply, Request, RunReply, StatsReply } from "./worker.ts"

/** Every run of one variant over one file, and its process's RSS. */
export interface Measurement {
  readonly variant: string
  /** Wall-clock time of each measured round (ms). */
  readonly times: ReadonlyArray<number>
  /** CPU time of each measured round (ms). */
  readonly cpuTimes: ReadonlyArray<number>
  readonly messages: number
  readonly rejected: number
  readonly baseRss: number
  readonly peakRss: number
  readonly error?: string | undefined
}

interface Worker {
  readonly ask: <R extends Reply>(request: Request) => Promise<R>
  readonly close: () => void
}

const script = path.join(import.meta.dirname, "worker.ts")

const spawn = (variant: string, emptyFile: string): Promise<Worker> =>
  new Promise((resolve, reject) => {
    const child = childProcess.fork(script, [variant, emptyFile], { stdio: ["ignore", "inherit", "inherit", "ipc"] })
    let waiting: ((reply: Reply) => void) | undefined
    const failed = (why: string) => reject(new Error(`worker ${variant}: ${why}`))
    child.once("error", (error) => failed(error.message))
    child.once("exit", (code) => {
      if (waiting !== undefined) waiting({ ms: NaN, cpuMs: NaN, messages: 0, rejected: 0, error: `worker exited with ${code}` })
      failed(`exited with ${code}`)
    })
    child.on("message", (reply: Reply) => {
      if ("ready" in reply) {
        resolve({
          ask: <R extends Reply>(request: Request) =>
            new Promise<R>((answer) => {
              waiting = (r) => {
                waiting = undefined
                answer(r as R)
              }
              child.send(request)
            }),
          close: () => {
            if (child.connected) child.disconnect()
            if (child.exitCode === null) child.kill()
          }
        })
      } else {
        waiting?.(reply)
      }
    })
  })

/**
 * Runs each variant `warmup` times, then `runs` rounds in which every variant
 * runs once (the order rotates each round), each in its own process.
 */
export const measure = async (
  variants: ReadonlyArray<string>,
  file: string,
  options: { readonly runs: number; readonly warmup: number; readonly emptyFile: string }
): Promise<Array<Measurement>> => {
  const workers: Array<Worker> = []
  try {
    for (const variant of variants) workers.push(await spawn(variant, options.emptyFile))
    const times = variants.map((): Array<number> => [])
    const cpuTimes = variants.map((): Array<number> => [])
    const last: Array<RunReply | undefined> = variants.map(() => undefined)
    const errors: Array<string | undefined> = variants.map(() => undefined)
    for (let round = 0; round < options.warmup + options.runs; round++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (k + round) % variants.length
        if (errors[i] !== undefined) continue
        const reply = await workers[i]!.ask<RunReply>({ run: file })
        if (reply.error !== undefined) errors[i] = reply.error
        else if (round >= options.warmup) {
          times[i]!.push(reply.ms)
          cpuTimes[i]!.push(reply.cpuMs)
        }
        last[i] = reply
      }
    }
    const measurements: Array<Measurement> = []
    for (let i = 0; i < variants.length; i++) {
      const stats = await workers[i]!.ask<StatsReply>({ stats: true })
      measurements.push({
        variant: variants[i]!,
        times: times[i]!,
        cpuTimes: cpuTimes[i]!,
        messages: last[i]?.messages ?? 0,
        rejected: last[i]?.rejected ?? 0,
        baseRss: stats.baseRss,
        peakRss: stats.peakRss,
        error: errors[i]
      })
    }
    return measurements
  } finally {
    for (const worker of workers) worker.close()
  }
}
