/**
 * Where a warm start's time goes, seen from this process's sockets (`node bench/warm.ts --trace`): from the
 * request to the claim's bytes on the spare's stdin, to the first bytes back, to the CLI's request reaching
 * the scripted model, to the bytes of the first assistant message, to the reader; the same marks for this
 * library's spares and for the SDK's, which both write and read child pipes through `net.Socket`. Also
 * whether a spawn (a replacement) came before the first assistant message, and this process's CPU time.
 */
import { ChildProcess } from "node:child_process"
import * as http from "node:http"
import * as net from "node:net"

/** The stages, each the time from the request, in milliseconds. */
export interface Stages {
  /** The claim's bytes written to the spare's stdin. */
  readonly claimWritten: number
  /** The first bytes from a child's stdout after that (the claim's answer, usually). */
  readonly firstOut: number
  /** The CLI's request to the model read by the scripted server. */
  readonly apiRequest: number
  /** The bytes of the first assistant message read from the child's stdout. */
  readonly assistantRead: number
  /** The reader has the first assistant message. */
  readonly reader: number
  /** Spawns (replacements) from the request to the reader. */
  readonly spawnsBefore: number
  /** This process's CPU time (user and system) from the request to the reader: the library's or the SDK's, and the scripted model's. */
  readonly ownCpu: number
}

interface Mark {
  readonly at: number
  readonly what: "claim" | "out" | "api" | "assistant" | "spawn"
}

const isPipe = (socket: net.Socket) => (socket as any)._handle?.constructor?.name === "Pipe"
const text = (chunk: unknown) =>
  typeof chunk === "string" ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1") : ""

let marks: Array<Mark> | undefined

/** Hooks the sockets and the spawns of this process; marks are kept only between `begin` and `end`. */
export const install = () => {
  const write = net.Socket.prototype.write as (...args: Array<unknown>) => boolean
  net.Socket.prototype.write = function(this: net.Socket, ...args: Array<unknown>) {
    if (marks !== undefined && isPipe(this) && text(args[0]).includes("\"claim_session\"")) {
      marks.push({ at: performance.now(), what: "claim" })
    }
    return write.apply(this, args)
  } as typeof net.Socket.prototype.write
  const push = net.Socket.prototype.push
  net.Socket.prototype.push = function(this: net.Socket, chunk: unknown, encoding?: BufferEncoding) {
    if (marks !== undefined && chunk != null && isPipe(this)) {
      const at = performance.now()
      marks.push({ at, what: "out" })
      if (text(chunk).includes("\"type\":\"assistant\"")) marks.push({ at, what: "assistant" })
    }
    return push.call(this, chunk, encoding)
  }
  // The HTTP server parses its sockets' bytes itself (no `push`): its requests are marked as they come out.
  const emit = http.Server.prototype.emit as (...args: Array<unknown>) => boolean
  http.Server.prototype.emit = function(this: http.Server, event: string, ...args: Array<unknown>) {
    const request = args[0] as http.IncomingMessage | undefined
    if (marks !== undefined && event === "request" && request?.method === "POST" && request.url?.startsWith("/v1/messages")) {
      marks.push({ at: performance.now(), what: "api" })
    }
    return emit.call(this, event, ...args)
  } as typeof http.Server.prototype.emit
  const spawn = (ChildProcess.prototype as any).spawn
  ;(ChildProcess.prototype as any).spawn = function(this: ChildProcess, ...args: Array<unknown>) {
    marks?.push({ at: performance.now(), what: "spawn" })
    return spawn.apply(this, args)
  }
}

interface Run {
  readonly start: number
  readonly cpu: NodeJS.CpuUsage
  reader?: number
  ownCpu?: number
}
let run: Run | undefined

/** Starts marking a claim requested now. */
export const begin = () => {
  marks = []
  run = { cpu: process.cpuUsage(), start: performance.now() }
}

/** The reader has the first assistant message: the marks end here, whatever follows (the turn, a replacement). */
export const reached = () => {
  if (run === undefined || run.reader !== undefined) return
  run.reader = performance.now()
  const cpu = process.cpuUsage(run.cpu)
  run.ownCpu = (cpu.user + cpu.system) / 1000
}

/** Stops marking: the stages of the claim begun last. */
export const end = (): Stages => {
  const { start, reader = NaN, ownCpu = NaN } = run!
  const kept = (marks ?? []).filter((m) => m.at <= reader)
  marks = undefined
  run = undefined
  const after = (what: Mark["what"], from: number) => (kept.find((m) => m.what === what && m.at >= from)?.at ?? NaN)
  const claimWritten = after("claim", start)
  return {
    claimWritten: claimWritten - start,
    firstOut: after("out", claimWritten) - start,
    apiRequest: after("api", claimWritten) - start,
    assistantRead: after("assistant", claimWritten) - start,
    reader: reader - start,
    spawnsBefore: kept.filter((m) => m.what === "spawn").length,
    ownCpu
  }
}
