#!/bin/sh
# Stands in for `claude -p ...` in variant (f) and the latency run: ignores its arguments and stdin, and
# writes the recording $ECC_BENCH_RECORDING to stdout, either all at once as fast as the pipe takes it (cat,
# so the writer costs next to nothing and the figures are the reader's), or, when $ECC_BENCH_INTERVAL is
# set, one line every few milliseconds through bench/writer.ts on $ECC_BENCH_NODE (Node 24).
if [ -n "$ECC_BENCH_INTERVAL" ]; then
  exec "$ECC_BENCH_NODE" "$(dirname "$0")/writer.ts"
fi
exec cat "$ECC_BENCH_RECORDING"
