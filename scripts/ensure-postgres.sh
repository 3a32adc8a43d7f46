#!/bin/sh
# The SQL session store tests run on a real PostgreSQL server that the test kit starts in a temporary
# directory (test/support/Postgres.ts): they need the system's `initdb` and `pg_ctl`. `npm test` runs this
# first: on a fresh Debian or Ubuntu machine it installs PostgreSQL when it can (as root, or with
# password-less sudo); otherwise it says what to do, and those tests fail with the same advice.
. "$(dirname "$0")/lib/apt-install.sh"
found() { command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; }
found && exit 0
apt_install postgresql "the PostgreSQL session store tests"
found && exit 0
echo "warning: PostgreSQL is not installed and could not be installed here; the PostgreSQL store tests need it (apt-get install postgresql, brew install postgresql)." >&2
exit 0
