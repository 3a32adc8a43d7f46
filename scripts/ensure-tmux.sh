#!/bin/sh
# The terminal tests (test/cli/Terminal.test.ts, RunCommand.test.ts) drive the command-line tool inside tmux,
# a real pseudo-terminal with a screen to read. `npm test` runs this first: on a fresh Debian or Ubuntu
# machine it installs tmux when it can (as root, or with password-less sudo); otherwise it says what to do,
# and the terminal tests fail with the same advice.
command -v tmux >/dev/null 2>&1 && exit 0
if command -v apt-get >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then sudo=""; elif sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi
  if [ "$sudo" != none ]; then
    echo "Installing tmux for the terminal tests (apt-get)..."
    ($sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq tmux) >/dev/null 2>&1
    command -v tmux >/dev/null 2>&1 && exit 0
  fi
fi
echo "warning: tmux is not installed and could not be installed here; the terminal tests need it (apt-get install tmux, brew install tmux)." >&2
exit 0
