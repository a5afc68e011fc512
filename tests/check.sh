#!/usr/bin/env bash
# tests/check.sh — the fast tier (`make check`, which builds first): a minute or two on two
# cores, installs nothing, needs no ../shared (GF_SHARED is emptied). It runs
#   - every unit binary (build/asan/tests/test_*) with GF_FAST=1: the slow cases SKIP, visibly;
#   - the layer and vocabulary checks (tests/cli/layers.sh);
#   - the goldens of tests/data (tests/cli/golden.sh with GOLDEN_DIR=tests/data: small committed
#     inputs and their expected outputs, compared byte for byte);
#   - the gap-model scenarios against their answers known by construction (tests/gen/gen_gaps.py's
#     expect files under tests/data/in/, compared by tests/gen/gapmodel.py --expect);
#   - every fuzz target's seeds (tests/fuzz/corpus/<name>/) replayed once by its gcc-built
#     driver (build/asan/replay/fuzz_<name>, tests/fuzz/replay.c) under ASan+UBSan.
# Two jobs at a time (the machine's two cores). Prints one line per group and then
# "N passed, N failed, N skipped" with the time taken; exit 1 when anything failed.
# `make test` (tests/run.sh) stays the full suite CI runs.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD=${BUILD:-build/asan}
export GF=${GF:-$root/$BUILD/gpuflame}
export GF_FAST=1 GF_SHARED= GF_JSON_SINK= GPUFLAME_NO_PROGRESS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
jobs=${CHECK_JOBS:-2}
start=$SECONDS
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT

# the groups, one line each: LABEL<TAB>COMMAND
{
	for t in "$BUILD"/tests/test_*; do
		[ -x "$t" ] && printf 'unit/%s\t%q\n' "$(basename "$t")" "$t"
	done
	if command -v python3 >/dev/null; then
		printf 'cli/layers\tbash tests/cli/layers.sh\n'
		printf 'data/gap-scenarios\tbash tests/check_gaps.sh\n'
	else
		printf 'cli/layers\techo "SKIP layers: python3 missing (scripts/deps.sh test installs it)"\n'
		printf 'data/gap-scenarios\techo "SKIP gap-scenarios: python3 missing (scripts/deps.sh test installs it)"\n'
	fi
	printf 'data/goldens\tGOLDEN_DIR=tests/data bash tests/cli/golden.sh\n'
	for f in "$BUILD"/replay/fuzz_*; do
		[ -x "$f" ] || continue
		n=$(basename "$f"); n=${n#fuzz_}
		printf 'replay/%s\tbash tests/fuzz/replay.sh %q %q\n' "$n" "$f" "tests/fuzz/corpus/$n"
	done
} >"$out/groups"
if ! grep -q '^replay/' "$out/groups"; then
	echo "FAIL check: no seed-replay driver under $BUILD/replay (run 'make check', which builds them)"
	exit 1
fi

# one group: its output in $out/<n>.log, its exit status in $out/<n>.rc
run_group() { # index label command
	local i=$1 t0=$SECONDS
	bash -c "$3" >"$out/$i.log" 2>&1
	echo "$? $((SECONDS - t0))" >"$out/$i.rc"
}
export -f run_group
export out
i=0
while IFS=$'\t' read -r label cmd; do
	printf '%s\0%s\0%s\0' "$i" "$label" "$cmd"
	i=$((i + 1))
done <"$out/groups" | xargs -0 -n 3 -P "$jobs" bash -c 'run_group "$0" "$1" "$2"'

pass=0 fail=0 skip=0
i=0
while IFS=$'\t' read -r label cmd; do
	log=$out/$i.log
	read -r rc secs <"$out/$i.rc"
	p=$(grep -c '^PASS ' "$log"); f=$(grep -c '^FAIL ' "$log"); s=$(grep -c '^SKIP ' "$log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1; echo "FAIL $label: exited with $rc" >>"$log"
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	printf '%-36s %4d passed %3d failed %3d skipped  (%ds)\n' "$label" "$p" "$f" "$s" "$secs"
	if [ "$f" -gt 0 ]; then
		grep -E '^FAIL ' "$log" | head -20
		tail -n 15 "$log"
	fi
	[ "$s" -gt 0 ] && [ -n "${VERBOSE:-}" ] && grep '^SKIP ' "$log"
	i=$((i + 1))
done <"$out/groups"
echo "$pass passed, $fail failed, $skip skipped in $((SECONDS - start)) s (make check; 'make test' runs everything)"
[ "$fail" -eq 0 ]
