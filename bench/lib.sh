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
