/**
 * A session as listing shows it (`SessionStore.SessionInfo`), from a transcript file's head and tail windows or
 * from a store's summary.
 *
 * @internal
 */
import type * as SessionStore from "../SessionStore.ts"
import * as Info from "./info.ts"

/** How much of a transcript file's head and of its tail listing reads. */
export const windowBytes = 64 * 1024

/**
 * The info of a session from its head and tail windows (the same text when the file fits one window);
 * `undefined` for a sidechain transcript or one with nothing to show.
 *
 * @internal
 */
export const fromWindows = (input: {
  readonly sessionId: string
  readonly projectKey: string
  readonly head: string
  readonly tail: string
  readonly whole: boolean
  readonly lastModified: number
  readonly fileSize: number
}): SessionStore.SessionInfo | undefined => {
  const head = Info.entriesOf(input.head, input.whole ? "none" : "head")
  const summary = input.whole
    ? Info.fold(Info.empty, head, "whole")
    : Info.fold(Info.fold(Info.empty, head, "head"), Info.entriesOf(input.tail, "tail"), "tail")
  return toInfo(summary, input)
}

/**
 * The info a summary gives; `undefined` for a sidechain transcript or one with nothing to show.
 *
 * @internal
 */
export const toInfo = (summary: Info.Summary, input: {
  readonly sessionId: string
  readonly projectKey: string
  readonly lastModified: number
  readonly fileSize: number
}): SessionStore.SessionInfo | undefined => {
  if (summary.isSidechain === true) return undefined
  const customTitle = Info.nonEmpty(summary.customTitle)
  const firstPrompt = summary.firstPrompt
  const title = customTitle ?? Info.nonEmpty(summary.aiTitle) ?? Info.nonEmpty(summary.lastPrompt) ??
    Info.nonEmpty(summary.summaryHint) ?? firstPrompt
  if (title === undefined) return undefined
  const createdAt = summary.createdAt === undefined ? undefined : Date.parse(summary.createdAt)
  return {
    sessionId: input.sessionId,
    projectKey: input.projectKey,
    summary: title,
    lastModified: input.lastModified,
    fileSize: input.fileSize,
    customTitle,
    firstPrompt,
    gitBranch: summary.gitBranch,
    cwd: summary.relocatedCwd ?? summary.cwd,
    tag: Info.nonEmpty(summary.tag),
    createdAt: createdAt === undefined || Number.isNaN(createdAt) ? undefined : createdAt
  }
}
