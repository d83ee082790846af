#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (`cargo test --release`, arguments passed on), then
# one line that says what ran: tests passed, failed and ignored over every test binary, the parts
# skipped (a `SKIPPED ...` line: the shared corpus or the real games absent outside CI), and the
# time. Exits with cargo's status.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp "${TMPDIR:-/tmp}/bot2048-test.XXXXXX")
trap 'rm -f "$log"' EXIT
start=$SECONDS
cargo test --release "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
sum() { grep -o "[0-9]* $1" "$log" | awk '{s += $1} END {print s + 0}'; }
results=$(grep -c '^test result:' "$log")
skipped=$(grep -c '^SKIPPED' "$log")
verdict=$([ "$status" -eq 0 ] && echo ok || echo FAILED)
echo "[test] $verdict: $(sum passed) passed, $(sum failed) failed, $(sum ignored) ignored," \
    "$skipped parts skipped, over $results test binaries, in $((SECONDS - start)) s"
exit "$status"
