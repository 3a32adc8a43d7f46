/**
 * A stored session and a CLI config directory, one into the other: {@link materialize} writes a stored session
 * where the CLI looks for it, so that the CLI resumes a session it has never seen; {@link importSession} copies
 * a session of a config directory into a store, as the SDK's `importSessionToStore`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as Predicate from "effect/Predicate"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Walk from "../internal/walk.ts"
import * as FileBytes from "../stream/internal/fileBytes.ts"
import * as DeadBranch from "./internal/deadBranch.ts"
import * as Jsonl from "./internal/jsonl.ts"
import * as Keys from "./internal/keys.ts"
import * as NotFound from "./internal/notFound.ts"
import * as SessionStore from "./SessionStore.ts"

// The transcripts of a session directory, as the CLI names them.
const isJsonl = (name: string): boolean => name.endsWith(".jsonl")

// A transcript line as a JSON object; `undefined` for a line that is not one.
const entryOfLine = (line: string): SessionStore.Entry | undefined => Jsonl.objectOf(line) as SessionStore.Entry | undefined

// An entry's JSON with every object's keys sorted: entries without a uuid are compared by it, since a store
// may give keys back in another order.
const canonical = (entry: SessionStore.Entry): string =>
  JSON.stringify(entry, (_, value: unknown) =>
    Predicate.isObject(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
      : value)

// What materializing writes to one file: `head` (the local file as it is, or the stored entries), then the
// local lines numbered in `kept` (after stored entries: the local ones the store lacks), then `tail`; the
// local file moved to `aside` first, when given.
interface Plan {
  readonly file: string
  readonly aside?: string | undefined
  readonly head: "local" | ReadonlyArray<SessionStore.Entry>
  readonly kept: ReadonlySet<number>
  readonly tail: string
}

const jsonLines = (lines: ReadonlyArray<string>): string => lines.map((line) => line + "\n").join("")

/**
 * Writes a stored session (and its subpaths) into a CLI config directory, under the project key of the
 * directory the CLI will run in, so that `--resume <sessionId>` finds it. Returns whether the store held it.
 *
 * The SDK writes the stored entries into a temporary config directory of its own, where no local transcript
 * meets them; here they go into the run's config directory, which may already hold the session, so each file
 * there is reconciled with its stored entries, and no entry of either is lost:
 * - entries with a uuid are compared by it (the CLI keeps lines it does not mirror, so the two are not equal
 *   line for line); entries without one (titles, tags, the last prompt) by type and content, keys in any order;
 * - a local file that holds every stored uuid (the store missed some entries, say after a `mirror_error`) is
 *   kept as it is, followed by the stored entries without a uuid it lacks (a title or tag set through the
 *   store, which the CLI then reads as the latest); when it lacks none, it is not written at all; but not
 *   with `onConflict: "store"` (below);
 * - a local file lacking stored uuids, all of its own being stored, becomes the stored entries, followed by
 *   its entries without a uuid the store lacks (a title or tag set on this machine);
 * - a local file with uuids the store lacks, lacking some it holds, fails with `TranscriptConflict`;
 * - with `onConflict: "store"` (a lease's holder: the store is authoritative), a local file with uuids the store
 *   lacks, whatever else it holds, is moved aside (`<file>.aside-<time>`, beside it) and the stored entries
 *   written instead: the CLI would go on from entries the store does not hold (ones it refused from this
 *   runner while another held the lease, issue 23), and every entry after them would hang on a parent no
 *   resume from the store finds. A branch that a fenced-out holder left (its cut turn, which the next holder
 *   retried from the answer before it) is no part of the main transcript written either, and a local file
 *   holding it is moved aside the same way: the CLI would otherwise resume at that branch's end.
 * So materializing again writes nothing. Every file (the main transcript and its subpaths) is decided before
 * any is written: a conflict or a key that is not a name (`InvalidKey`) anywhere
 * writes nothing. Each file is written aside and then renamed, so a failed write leaves no partial transcript.
 * A subpath's `agent_metadata` entries (a subagent's `.meta.json`, as the CLI mirrors it) are not transcript
 * lines: the last one, without its `type`, becomes the subagent's `.meta.json`, as the SDK writes it; so
 * does the last archive mark (set by `Sessions`' `archiveSession` over a store) become the session's `archived.json`.
 *
 * @since 0.1.0
 * @category resume
 */
export const materialize = Effect.fnUntraced(function*(
  store: SessionStore.Shape,
  key: Omit<SessionStore.SessionKey, "subpath">,
  target: { readonly configDir: string; readonly projectKey: string; readonly onConflict?: "fail" | "store" | undefined }
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = path.join(target.configDir, "projects", target.projectKey)
  const failed = Keys.operationFailed("materialize", key)
  // The local file's uuids, which of `markers` (stored entries without a uuid) it holds, the numbers of its
  // entries without a uuid that are not among them, and whether it ends with a newline; `None` for no file.
  const scan = (file: string, markers: ReadonlyMap<string, SessionStore.Entry>) => {
    let last = "\n"
    return FileBytes.stream(fs, file).pipe(
      Stream.decodeText,
      Stream.tap((text) => Effect.sync(() => (last = text.at(-1) ?? last))),
      Stream.splitLines,
      Stream.runFold(() => ({ n: 0, uuids: new Set<string>(), held: new Set<string>(), unstored: new Set<number>() }), (local, line) => {
        const entry = entryOfLine(line)
        if (entry !== undefined && typeof entry.uuid === "string") local.uuids.add(entry.uuid)
        else if (entry !== undefined) {
          const text = canonical(entry)
          if (markers.has(text)) local.held.add(text)
          else local.unstored.add(local.n)
        }
        local.n++
        return local
      }),
      Effect.map((local) => Option.some({ ...local, newline: last === "\n" })),
      Effect.catchIf((e) => e.reason._tag === "NotFound", () => Effect.succeedNone)
    )
  }
  const decide = (file: string, entries: ReadonlyArray<SessionStore.Entry>) =>
    Effect.gen(function*() {
      const markers = new Map(entries.flatMap((e) => typeof e.uuid === "string" ? [] : [[canonical(e), e] as const]))
      const found = yield* scan(file, markers)
      if (Option.isNone(found)) return Option.some<Plan>({ file, head: entries, kept: new Set(), tail: "" })
      const local = found.value
      const stored = new Set(entries.flatMap((e) => typeof e.uuid === "string" ? [e.uuid] : []))
      const storedOnly = [...stored].filter((uuid) => !local.uuids.has(uuid)).length
      const localOnly = [...local.uuids].filter((uuid) => !stored.has(uuid)).length
      // The store is the holder's whole truth: what the file holds beyond it (entries the store refused or
      // never got, a dead branch's left out above) is no part of the chain the CLI may go on from.
      if (localOnly > 0 && target.onConflict === "store") {
        return Option.some<Plan>({ file, aside: `${file}.aside-${Date.now()}`, head: entries, kept: new Set(), tail: "" })
      }
      if (storedOnly > 0 && localOnly > 0) {
        return yield* Effect.fail(new SessionStore.SessionStoreError({
          reason: new SessionStore.TranscriptConflict({ key: Keys.keyString(key), path: file, localOnly, storedOnly })
        }))
      }
      if (storedOnly > 0) return Option.some<Plan>({ file, head: entries, kept: local.unstored, tail: "" })
      const lacking = [...markers].flatMap(([text, entry]) => local.held.has(text) ? [] : [JSON.stringify(entry)])
      if (lacking.length === 0) return Option.none<Plan>()
      // A torn last line stays a line of its own.
      return Option.some<Plan>({ file, head: "local", kept: new Set(), tail: (local.newline ? "" : "\n") + jsonLines(lacking) })
    }).pipe(Effect.mapError(failed))
  const write = (plan: Plan) => {
    const aside = `${plan.file}.${crypto.randomUUID()}.tmp`
    return fs.makeDirectory(path.dirname(plan.file), { recursive: true }).pipe(
      Effect.andThen(
        plan.head === "local"
          ? fs.copyFile(plan.file, aside)
          : fs.writeFileString(aside, jsonLines(plan.head.map((e) => JSON.stringify(e))))
      ),
      Effect.andThen(
        plan.kept.size === 0 ? Effect.void : FileBytes.stream(fs, plan.file).pipe(
          Stream.decodeText,
          Stream.splitLines,
          Stream.zipWithIndex,
          Stream.filterMap(([line, n]) => plan.kept.has(n) ? Result.succeed(line + "\n") : Result.failVoid),
          Stream.encodeText,
          Stream.run(fs.sink(aside, { flag: "a" }))
        )
      ),
      Effect.andThen(plan.tail === "" ? Effect.void : fs.writeFileString(aside, plan.tail, { flag: "a" })),
      Effect.andThen(plan.aside === undefined ? Effect.void : fs.copyFile(plan.file, plan.aside)),
      Effect.andThen(fs.rename(aside, plan.file)),
      Effect.onError(() => Effect.ignore(fs.remove(aside))),
      Effect.mapError(failed)
    )
  }
  // Every file written is under the session's project directory, never outside it.
  yield* Keys.validateKey("materialize", { ...key, subpath: undefined })
  yield* Keys.validateKey("materialize", { projectKey: target.projectKey })
  const main = yield* store.load(key)
  if (Option.isNone(main) || main.value.length === 0) return false
  // A lease's holder resumes the store's chain: the branches a holder fenced out left are not written.
  const dead = target.onConflict === "store" ? DeadBranch.deadBranches(main.value) : new Set<string>()
  const live = dead.size === 0 ? main.value : main.value.filter((entry) => typeof entry.uuid !== "string" || !dead.has(entry.uuid))
  const plans = [yield* decide(path.join(dir, `${key.sessionId}.jsonl`), live)]
  // A subagent's metadata is stored among its entries (as the CLI mirrors it) and goes back to its sidecar.
  const sidecars: Array<readonly [file: string, metadata: SessionStore.Entry]> = []
  for (const subpath of yield* store.listSubkeys(key)) {
    yield* Keys.validateKey("materialize", { ...key, subpath })
    const entries = yield* store.load({ ...key, subpath })
    if (Option.isNone(entries)) continue
    if (subpath === Keys.archiveSubpath) {
      const mark = entries.value.at(-1)
      if (mark !== undefined) sidecars.push([path.join(dir, key.sessionId, "archived.json"), mark])
      continue
    }
    const file = path.join(dir, key.sessionId, `${subpath}.jsonl`)
    const transcript = entries.value.filter((e) => e.type !== agentMetadata)
    if (transcript.length > 0) plans.push(yield* decide(file, transcript))
    const metadata = entries.value.findLast((e) => e.type === agentMetadata)
    if (metadata !== undefined) sidecars.push([file.replace(/\.jsonl$/, ".meta.json"), metadata])
  }
  for (const plan of plans) if (Option.isSome(plan)) yield* write(plan.value)
  for (const [file, { type: _, ...metadata }] of sidecars) {
    yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(
      Effect.andThen(fs.writeFileString(file, JSON.stringify(metadata))),
      Effect.mapError(failed)
    )
  }
  return true
})

// The entry type a subagent's `.meta.json` takes in a store, as the CLI mirrors it and the SDK imports it.
const agentMetadata = "agent_metadata"

/**
 * Copies a session of a CLI config directory into a store, as the SDK's `importSessionToStore`: its main
 * transcript and, unless `includeSubagents` is `false`, the transcripts under it, each read as a stream and
 * appended `batchSize` entries at a time (default 500), each subagent's `.meta.json` after its transcript as
 * an `agent_metadata` entry, and an archive mark (`archived.json`) as one a store keeps. The store's key is `source`'s unless `projectKey`
 * says otherwise. Appends are idempotent by uuid: importing again adds only the entries without one.
 *
 * @since 0.1.0
 * @category resume
 */
export const importSession = Effect.fnUntraced(function*(
  store: SessionStore.Shape,
  source: { readonly configDir: string; readonly projectKey: string; readonly sessionId: string },
  options: {
    readonly projectKey?: string | undefined
    readonly includeSubagents?: boolean | undefined
    readonly batchSize?: number | undefined
  } = {}
) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const key = { projectKey: options.projectKey ?? source.projectKey, sessionId: source.sessionId }
  const dir = path.join(source.configDir, "projects", source.projectKey)
  const failed = Keys.operationFailed("import", key)
  yield* Keys.validateKey("import", { projectKey: source.projectKey, sessionId: source.sessionId })
  const copy = (file: string, subpath: string | undefined) =>
    FileBytes.stream(fs, file).pipe(
      Stream.decodeText,
      Stream.splitLines,
      Stream.filter((line) => line.trim() !== ""),
      Stream.mapEffect((line) => Effect.try({ try: () => JSON.parse(line) as SessionStore.Entry, catch: failed })),
      Stream.grouped(Math.max(1, options.batchSize ?? 500)),
      Stream.runForEach((batch) => store.append({ ...key, subpath }, batch)),
      Effect.catchTag("PlatformError", (cause) => Effect.fail(failed(cause)))
    )
  yield* copy(path.join(dir, `${source.sessionId}.jsonl`), undefined)
  if (options.includeSubagents === false) return
  const under = path.join(dir, source.sessionId)
  const names = yield* Walk.files(fs, path, under, isJsonl).pipe(
    NotFound.orElse([] as ReadonlyArray<string>),
    Effect.mapError(failed)
  )
  // A JSON object beside the transcripts; an unreadable one is left out, as the SDK does.
  const sidecar = (file: string) =>
    fs.readFileString(file).pipe(
      Effect.map((text) => Option.filter(Option.liftThrowable(() => JSON.parse(text) as unknown)(), Predicate.isObject)),
      Effect.catchIf((e) => e.reason._tag === "NotFound", () => Effect.succeedNone),
      Effect.mapError(failed)
    )
  // The archive mark, as its own subpath.
  const mark = yield* sidecar(path.join(under, "archived.json"))
  if (Option.isSome(mark)) yield* store.append({ ...key, subpath: Keys.archiveSubpath }, [{ ...mark.value, type: Keys.archiveSubpath }])
  for (const name of names) {
    const subpath = name.slice(0, -".jsonl".length).split(path.sep).join("/")
    yield* copy(path.join(under, name), subpath)
    const metadata = yield* sidecar(path.join(under, name.replace(/\.jsonl$/, ".meta.json")))
    if (Option.isSome(metadata)) {
      yield* store.append({ ...key, subpath }, [{ ...metadata.value, type: agentMetadata }])
    }
  }
})
