/**
 * How to install the Claude Code CLI, said the same way by every error that could not find it.
 */

/** The package and npm 11's approval of its install script, which puts the native binary in place. */
export const installCli = "install it with `npm install @anthropic-ai/claude-code` and approve its install script, " +
  "which puts the native binary in place (npm 11: `npm approve-scripts @anthropic-ai/claude-code` adds it to " +
  "package.json's `allowScripts`)"
