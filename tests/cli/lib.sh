# tests/cli/lib.sh — helpers for CLI test scripts (sourced).
#
#   . "$(dirname "$0")/lib.sh"
#   gf svg in.folded            # runs $GF, sets $out $err $rc (files: $T/out $T/err)
#   expect_rc "svg-empty" 1
#   expect_grep "svg-empty-msg" "no stacks" "$T/err"
#   need_shared "corpus-x" || ...   # prints SKIP and returns 1 when no corpus
#
# Each check prints PASS/FAIL/SKIP <name>. Scripts run from the repo root.
set -u
GF=${GF:-build/asan/gpuflame}
GF_SHARED=${GF_SHARED:-}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
rc=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: ${2:-}"; }
skip() { echo "SKIP $1: ${2:-}"; }

# gf ARGS... : run gpuflame, stdout -> $T/out, stderr -> $T/err, exit -> $rc
gf() { "$GF" "$@" >"$T/out" 2>"$T/err"; rc=$?; keep_json "$@"; }
# gf_in FILE ARGS... : same with FILE on stdin
gf_in() { local f=$1; shift; "$GF" "$@" <"$f" >"$T/out" 2>"$T/err"; rc=$?; keep_json "$@"; }
# With GF_JSON_SINK set (tests/run.sh sets it), a JSON output a test got on stdout from info, report,
# syncs or top is kept there, then validated against docs/schema/ at the end of the run.
keep_json() {
  [ -n "${GF_JSON_SINK:-}" ] && [ "$rc" -eq 0 ] && [ -s "$T/out" ] || return 0
  case $1 in info|report|syncs|top) ;; *) return 0 ;; esac
  case " $* " in *" json "*|*" --format=json "*|*" -fjson "*) ;; *) return 0 ;; esac
  case " $* " in *" -o "*|*" --output "*|*" --help "*) return 0 ;; esac
  cp "$T/out" "$GF_JSON_SINK/$1.$$.$RANDOM$RANDOM.json" 2>/dev/null || true
}

expect_rc() { # name expected
  if [ "$rc" -eq "$2" ]; then pass "$1"; else fail "$1" "exit $rc, expected $2; stderr: $(head -c 400 "$T/err")"; fi
}
expect_eq() { # name actual expected
  if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$(printf %s "$2" | head -c 300)', expected '$(printf %s "$3" | head -c 300)'"; fi
}
expect_grep() { # name pattern file
  if grep -qE -- "$2" "$3"; then pass "$1"; else fail "$1" "no match for /$2/ in $3: $(head -c 300 "$3")"; fi
}
expect_nogrep() { # name pattern file
  if grep -qE -- "$2" "$3"; then fail "$1" "unexpected match for /$2/ in $3"; else pass "$1"; fi
}
expect_same() { # name file expected_file
  if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$(diff "$2" "$3" | head -20 | tr '\n' '|')"; fi
}
need_shared() { # name
  if [ -z "$GF_SHARED" ] || [ ! -d "$GF_SHARED/corpus" ]; then skip "$1" "../shared absent"; return 1; fi
}

# Cost that must grow linearly (the hostile_*scale.sh suites):
# best_ms FILE ARGS... : best wall time of 3 runs of gpuflame ARGS FILE, in ms
# (empty on failure or past $LIMIT seconds, default 60); an ARG '@' stands
# for FILE too (e.g. 'report @': two ranks, the same trace twice)
best_ms() {
  local f=$1; shift
  local best="" i t0 t1 ms a
  local -a args=()
  for a in "$@"; do if [ "$a" = @ ]; then args+=("$f"); else args+=("$a"); fi; done
  for i in 1 2 3; do
    t0=$(date +%s%N)
    timeout "${LIMIT:-60}" "$GF" "${args[@]}" "$f" >/dev/null 2>"$T/err" || { echo ""; return; }
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}
# ratio_check NAME FILE_N FILE_4N ARGS... : the best time on an input 4x as
# large stays under 8x (linear: ~4x; quadratic: ~16x), with 20 ms of slack
# for the start-up noise of tiny runs
ratio_check() {
  local name=$1 f1=$2 f4=$3; shift 3
  local a b
  a=$(best_ms "$f1" "$@")
  b=$(best_ms "$f4" "$@")
  if [ -z "$a" ] || [ -z "$b" ]; then
    fail "$name" "gpuflame $* failed or ran over ${LIMIT:-60}s: $(head -c 300 "$T/err")"
    return
  fi
  [ "$a" -lt 1 ] && a=1
  if [ $((b)) -lt $((8 * a + 20)) ]; then
    pass "$name"
  else
    fail "$name" "gpuflame $* on $(basename "$f1"): ${a} ms at N, ${b} ms at 4N (ratio $((b / a)), expected < 8: cost grows faster than the input)"
  fi
}
