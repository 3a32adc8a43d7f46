#!/bin/sh
# The terminal tests (test/cli/Terminal.test.ts, RunCommand.test.ts) drive the command-line tool inside tmux,
# a real pseudo-terminal with a screen to read. `npm test` runs this first: on a fresh Debian or Ubuntu
# machine it installs tmux when it can (as root, or with password-less sudo); otherwise it says what to do,
# and the terminal tests fail with the same advice.
. "$(dirname "$0")/lib/apt-install.sh"
command -v tmux >/dev/null 2>&1 && exit 0
apt_install tmux "the terminal tests"
command -v tmux >/dev/null 2>&1 && exit 0
echo "warning: tmux is not installed and could not be installed here; the terminal tests need it (apt-get install tmux, brew install tmux)." >&2
exit 0
