#!/usr/bin/env bash
# tests/fuzz/replay.sh DRIVER SEEDS — replays a fuzz target's committed seeds once with its
# gcc-built driver (tests/fuzz/replay.c; `make replay` builds build/asan/replay/fuzz_<name>):
# PASS replay-<name> (N inputs), or FAIL with the sanitizer's or the assertion's first lines.
# tests/check.sh runs it for every target; tests/fuzz/run.sh does the same with libFuzzer.
set -u
drv=$1 seeds=$2
name=$(basename "$drv"); name=${name#fuzz_}
if [ ! -d "$seeds" ]; then echo "SKIP replay-$name: no seeds in $seeds"; exit 0; fi
log=$(mktemp); trap 'rm -f "$log"' EXIT
if "$drv" "$seeds" >"$log" 2>&1; then
	echo "PASS replay-$name ($(grep -o 'replayed [0-9]* inputs' "$log" | head -1))"
else
	echo "FAIL replay-$name: $(grep -E 'ERROR|SUMMARY|internal error|runtime error' "$log" | head -3 | tr '\n' ' ')"
	tail -n 20 "$log"
fi
