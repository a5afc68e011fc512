#!/usr/bin/env bash
# tests/run.sh — run every test and print "N passed, N failed, N skipped".
#
# Runs, in order: unit binaries (build/asan/tests/test_*), CLI scripts
# (tests/cli/*.sh, against build/asan/gpuflame), fuzz targets briefly
# (tests/fuzz/run.sh) and the browser test (tests/browser/run.sh).
# Every test prints PASS/FAIL/SKIP lines (see tests/unit/t.h); a program that
# exits non-zero without a FAIL line counts as one failure.
# Environment: BUILD (default build/asan), GF (binary under test), GF_SHARED (corpus; default ../shared
# beside the repo; tests that need it SKIP when absent), FUZZ_SECONDS.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD=${BUILD:-build/asan}
export GF=${GF:-$root/$BUILD/gpuflame}
export GF_REL=${GF_REL:-$root/build/rel/gpuflame}
if [ -z "${GF_SHARED+x}" ]; then
  if [ -d "$root/../shared/corpus" ]; then GF_SHARED=$(cd "$root/../shared" && pwd); else GF_SHARED=; fi
fi
export GF_SHARED
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export GPUFLAME_NO_PROGRESS=1
export TMPDIR=${TMPDIR:-/tmp}

# every JSON output the CLI tests get (lib.sh's gf/gf_in) is validated against docs/schema/ at the end
export GF_JSON_SINK=${GF_JSON_SINK:-$(mktemp -d)}
pass=0 fail=0 skip=0
failures=()
log=$(mktemp); trap 'rm -f "$log"; rm -rf "$GF_JSON_SINK"' EXIT

run_one() { # label, command...
  local label=$1; shift
  local start=$SECONDS
  "$@" >"$log" 2>&1
  local rc=$?
  local p f s
  p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1; echo "FAIL $label: exited with $rc" >>"$log"
  fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  printf '%-44s %4d passed %3d failed %3d skipped  (%ds)\n' "$label" "$p" "$f" "$s" $((SECONDS - start))
  if [ "$f" -gt 0 ]; then
    failures+=("$label")
    echo "---- $label output (failures and the end) ----"
    grep -E '^FAIL ' "$log" | head -40
    tail -n 30 "$log"
    echo "----"
  fi
  if [ "$s" -gt 0 ] && [ -n "${VERBOSE:-}" ]; then grep '^SKIP ' "$log"; fi
}

for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  run_one "unit/$(basename "$t")" "$t"
done
for t in tests/cli/*.sh; do
  [ "$(basename "$t")" = lib.sh ] && continue
  run_one "cli/$(basename "$t" .sh)" bash "$t"
done
run_one "cli/json_outputs (docs/schema/)" bash tests/gen/validate_sink.sh "$GF_JSON_SINK"
[ -x tests/fuzz/run.sh ] && run_one "fuzz" tests/fuzz/run.sh
[ -x tests/browser/run.sh ] && run_one "browser" tests/browser/run.sh

[ -z "$GF_SHARED" ] && echo "note: ../shared not found: corpus tests were skipped"
echo
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
