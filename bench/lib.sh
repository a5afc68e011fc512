# bench/lib.sh — helpers the benchmark scripts share (sourced, not run).
#
#   best_time ERRFILE CMD...   runs CMD under GNU time $RUNS times (default 3;
#                              once when CMD is python3: the baselines are
#                              slow and steady) and prints "wall user sys
#                              peak_kb" of the fastest run by wall time — on a
#                              shared machine the least disturbed one. On a
#                              failed run: stderr is in ERRFILE, status 1.
#   ratio A B                  A / B with two decimals (0 counts as 0.01).

TIME=${TIME:-/usr/bin/time}
RUNS=${RUNS:-3}

best_time() {
  local errf=$1; shift
  local n=$RUNS i w u s k best=""
  local tf; tf=$(mktemp)
  case "$1" in python3) n=1 ;; esac
  for i in $(seq "$n"); do
    "$TIME" -f '%e %U %S %M' -o "$tf" "$@" >/dev/null 2>"$errf" || { rm -f "$tf"; return 1; }
    read -r w u s k <"$tf"
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if float('$w') < float('${best%% *}') else 1)"; then
      best="$w $u $s $k"
    fi
  done
  rm -f "$tf"
  echo "$best"
}

ratio() { python3 -c "a=float('$1') or 0.01; b=float('$2') or 0.01; print('%.2f' % (a/b))"; }

#   build_rev REV              builds the release binary of git revision REV
#                              (any name git knows: 0848d76, main~3) into
#                              bench/out/rev-REV/ from `git archive` (no
#                              worktree, nothing of the checkout touched), once;
#                              prints its path. Build log: bench/out/rev-REV.log.
#   mb KB                      KB (GNU time's %M) as MB with one decimal.

build_rev() {
  local rev=$1 top d
  top=$(git rev-parse --show-toplevel) || return 1
  d=$top/bench/out/rev-$rev
  if [ ! -x "$d/build/rel/gpuflame" ]; then
    rm -rf "$d" && mkdir -p "$d" || return 1
    git -C "$top" archive "$rev" | tar -x -C "$d" || { echo "build_rev: no revision $rev" >&2; return 1; }
    nice make -C "$d" -j"${JOBS:-1}" all >"$d.log" 2>&1 ||
      { echo "build_rev: make failed in $d (see $d.log)" >&2; return 1; }
  fi
  echo "$d/build/rel/gpuflame"
}

mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

#   run_once ERRFILE CMD...    one run of CMD under GNU time, stdout to
#                              /dev/null: prints "wall cpu peak_kb", wall in
#                              seconds with 3 decimals measured around the run
#                              (GNU time's %e has two), cpu = user + sys. On a
#                              failed run: stderr is in ERRFILE, status 1.
#   best_run ERRFILE CMD...    run_once $RUNS times; the line of the fastest
#                              run by wall time.

run_once() {
  local errf=$1; shift
  local t0 t1 u s k tf
  tf=$(mktemp)
  t0=$(date +%s%N)
  "$TIME" -f '%U %S %M' -o "$tf" "$@" >/dev/null 2>"$errf" || { rm -f "$tf"; return 1; }
  t1=$(date +%s%N)
  read -r u s k <"$tf"; rm -f "$tf"
  awk -v n="$((t1 - t0))" -v u="$u" -v s="$s" -v k="$k" 'BEGIN { printf "%.3f %.2f %d\n", n / 1e9, u + s, k }'
}

best_run() {
  local errf=$1; shift
  local r best=""
  for _ in $(seq "$RUNS"); do
    r=$(run_once "$errf" "$@") || return 1
    if [ -z "$best" ] || awk -v a="${r%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then best=$r; fi
  done
  echo "$best"
}
