/**
 * The options the official SDK names give the CLI the flags the SDK gives it. The expected flags are written
 * as `sdk.mjs` 0.3.330 writes them (`ProcessTransport.initialize`: `--name=value` for a flag with a value);
 * `pairs` reads both spellings as the same flag and value.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as QueryOptions from "../../src/QueryOptions.ts"
import * as DerivedOptions from "../../src/internal/queryOptions.ts"
import * as SessionArgs from "../../src/session/internal/options.ts"

// Flags and their values, `--name=value` and `--name value` alike, in order.
const pairs = (args: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg.startsWith("--") && arg.includes("=")) out.push(arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1))
    else out.push(arg)
  }
  return out
}

const own = (options: QueryOptions.QueryOptions) => pairs(QueryOptions.toArgs(options).slice(6))

const sameFlags = (options: QueryOptions.QueryOptions, sdk: ReadonlyArray<string>) =>
  assert.deepStrictEqual(new Set(chunks(own(options))), new Set(chunks(pairs(sdk))))

// Flag-and-value groups, so that order does not matter but pairing does.
const chunks = (args: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  for (const arg of args) {
    if (arg.startsWith("--") || out.length === 0) out.push(arg)
    else out[out.length - 1] += ` ${arg}`
  }
  return out
}

describe("options the SDK names", () => {
  it("thinking: adaptive, a budget, off, and how it shows", () => {
    sameFlags({ thinking: { type: "adaptive", display: "summarized" } }, ["--thinking=adaptive", "--thinking-display=summarized"])
    sameFlags({ thinking: { type: "enabled", budgetTokens: 2048 } }, ["--max-thinking-tokens=2048"])
    sameFlags({ thinking: { type: "enabled" } }, ["--thinking=adaptive"])
    sameFlags({ thinking: { type: "disabled" } }, ["--thinking=disabled"])
    // maxThinkingTokens becomes a thinking config in the SDK's query(): 0 is off.
    sameFlags({ maxThinkingTokens: 0 }, ["--thinking=disabled"])
    sameFlags({ maxThinkingTokens: 1000 }, ["--max-thinking-tokens=1000"])
  })

  it("effort, task budget, betas, agent, project root, debugging", () => {
    sameFlags(
      {
        effort: "high",
        taskBudget: { total: 50000 },
        betas: ["context-1m-2025-08-07"],
        agent: "reviewer",
        projectConfigRoot: "/repo",
        debugFile: "/tmp/d.log"
      },
      [
        "--effort=high",
        "--task-budget=50000",
        "--agent=reviewer",
        "--betas=context-1m-2025-08-07",
        "--debug-file=/tmp/d.log",
        "--project-config-root=/repo"
      ]
    )
    sameFlags({ debug: true }, ["--debug"])
  })

  it("permissions: prompt tool, prompts, bypass made available", () => {
    sameFlags(
      { permissionPromptTool: "mcp__p__ask", permissionPrompts: "host", allowDangerouslySkipPermissions: true },
      ["--permission-prompt-tool=mcp__p__ask", "--permission-prompts=host", "--allow-dangerously-skip-permissions"]
    )
  })

  it("skills become Skill rules in allowedTools, after the given ones", () => {
    sameFlags({ allowedTools: ["Read"], skills: ["pdf", "docx"] }, ["--allowedTools=Read,Skill(pdf),Skill(docx)"])
    sameFlags({ skills: "all" }, ["--allowedTools=Skill"])
  })

  it("tools preset, plugins, hook events, persistence, resume points", () => {
    sameFlags(
      {
        tools: { type: "preset", preset: "claude_code" },
        plugins: [{ type: "local", path: "/p1" }, { type: "local", path: "/p2", skipMcpDiscovery: true }],
        includeHookEvents: true,
        persistSession: false,
        resume: "s1",
        resumeSessionAt: "u1",
        resumeDropsTurn: "u2"
      },
      [
        "--resume=s1",
        "--tools=default",
        "--include-hook-events",
        "--plugin-dir=/p1",
        "--plugin-dir-no-mcp=/p2",
        "--resume-session-at=u1",
        "--resume-drops-turn=u2",
        "--no-session-persistence"
      ]
    )
  })

  it("sandbox is merged into inline settings; managed settings as JSON", () => {
    sameFlags(
      { settings: { model: "m", sandbox: { failIfUnavailable: false } }, sandbox: { enabled: true } },
      [`--settings=${JSON.stringify({ model: "m", sandbox: { failIfUnavailable: false, enabled: true } })}`]
    )
    sameFlags({ managedSettings: { a: 1 } }, ["--managed-settings", JSON.stringify({ a: 1 })])
  })

  it("system prompt in all its forms", () => {
    assert.deepStrictEqual(own({ systemPrompt: "be brief" }), ["--system-prompt", "be brief"])
    assert.deepStrictEqual(
      own({ systemPrompt: ["static", QueryOptions.systemPromptDynamicBoundary, "mine"] }),
      ["--system-prompt", "static\n\nmine"]
    )
    assert.deepStrictEqual(
      own({ systemPrompt: { type: "custom", prompt: "bot", snapshot: false } }),
      ["--system-prompt", "bot", "--system-prompt-snapshot", "off"]
    )
    assert.deepStrictEqual(
      own({ systemPrompt: { type: "preset", preset: "claude_code", append: "more", excludeDynamicSections: true, snapshot: true } }),
      ["--append-system-prompt", "more", "--exclude-dynamic-system-prompt-sections", "--system-prompt-snapshot", "on"]
    )
  })

  it("checkpointing and tool settings are environment variables", () => {
    assert.deepStrictEqual(
      DerivedOptions.environment({ enableFileCheckpointing: true, toolConfig: { askUserQuestion: { previewFormat: "html" } }, env: { A: "1" } }),
      { CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: "true", CLAUDE_CODE_QUESTION_PREVIEW_FORMAT: "html", A: "1" }
    )
    assert.strictEqual(DerivedOptions.environment({}), undefined)
  })
})

describe("options that cannot work together", () => {
  const cases: ReadonlyArray<[string, QueryOptions.QueryOptions, string]> = [
    ["resume and continue", { resume: "a", continue: true }, "exclude each other"],
    ["thinking twice", { thinking: { type: "adaptive" }, maxThinkingTokens: 10 }, "exclude each other"],
    ["fallback equal to the model", { model: "m", fallbackModel: "m" }, "cannot be the main model"],
    ["sandbox with a settings file", { settings: "/s.json", sandbox: { enabled: true } }, "settings file path"],
    ["a wildcard skill", { skills: ["*"] }, "invalid skill name"],
    ["resumeSessionAt alone", { resumeSessionAt: "u" }, "needs resume"],
    [
      "two appends",
      { systemPrompt: { type: "preset", preset: "claude_code", append: "a" }, appendSystemPrompt: "b" },
      "exclude each other"
    ]
  ]
  for (const [name, options, expected] of cases) {
    it(name, () => assert.include(DerivedOptions.invalid(options) ?? "", expected))
  }

  it("sessions fail with InvalidOptions before starting", () => {
    const exit = Effect.runSyncExit(SessionArgs.toArgs({ supportedDialogKinds: ["x"] }))
    assert.isTrue(Exit.isFailure(exit))
    assert.include(String(exit), "supportedDialogKinds needs onUserDialog")
  })

  it("a question callback alone routes permission prompts to the session", () => {
    const args = Effect.runSync(SessionArgs.toArgs({ onAskUserQuestion: () => Effect.succeed({}) }))
    assert.include(args.join(" "), "--permission-prompt-tool stdio")
  })
})
