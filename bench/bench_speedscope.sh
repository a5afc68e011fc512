#!/usr/bin/env bash
# bench_speedscope.sh — a deep evented speedscope profile (issue 22, medium 6): N frames,
# each opened inside the previous one, then all closed (tests-like generator below: the
# file is ~55 bytes a frame). Its folded text is N stacks of up to N frames (quadratic:
# ~2 GB at 20k), so the importer builds the call tree directly and `top`, `svg` and `diff`
# take the tree whole; time and peak RSS must grow linearly (~2.0 per doubling).
# One run each (RUNS=1 in bench/lib.sh terms), sizes 10k/20k/40k (or the arguments).
# Baseline, in the same run: the binary BASE (default main's, /work/main/build/rel/gpuflame,
# else `build_rev main`), which wrote every interval's whole stack as folded text
# (issue 22: 20k frames = 2.42 GB and 50 s in `top`; 40k about 10 GB). The baseline is run
# up to OLD_MAX frames (default 20000: its 40k needs ~10 GB, too much for a shared machine).
# Usage: bench/bench_speedscope.sh [SIZES...]   files in bench/out/speedscope/.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. bench/lib.sh
RUNS=1
GF=${GF_REL:-build/rel/gpuflame}
[ -x "$GF" ] || { make -s all >/dev/null && GF=build/rel/gpuflame; }
[ -x "$TIME" ] || { echo "GNU time missing (apt-get install -y time)"; exit 1; }
BASE=${BASE:-/work/main/build/rel/gpuflame}
[ -x "$BASE" ] || BASE=$(build_rev main) || BASE=
OLD_MAX=${OLD_MAX:-20000}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 20000 40000)
d=bench/out/speedscope
mkdir -p "$d"

gen() { # N FILE: N nested frames, evented, microseconds
  python3 - "$1" "$2" <<'EOF'
import json, sys
n, out = int(sys.argv[1]), sys.argv[2]
frames = [{"name": "frame_%d" % i, "file": "deep.py", "line": i + 1} for i in range(n)]
ev = [{"type": "O", "frame": i, "at": i} for i in range(n)]
ev += [{"type": "C", "frame": n - 1 - j, "at": n + j} for j in range(n)]
doc = {"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": frames},
       "profiles": [{"type": "evented", "name": "deep", "unit": "microseconds", "startValue": 0,
                     "endValue": 2 * n, "events": ev}]}
json.dump(doc, open(out, "w"), separators=(",", ":"))
EOF
}

printf '%-8s %-8s %-10s %9s %8s %9s %8s %s\n' frames command binary "wall s" growth "RSS MB" growth "new/base (wall, RSS)"
for c in top svg diff; do
  declare -A pw=() pk=() bw=() bk=()
  for n in "${sizes[@]}"; do
    f=$d/deep_$n.json
    [ -s "$f" ] || gen "$n" "$f" || exit 1
    for bin in "$GF" $BASE; do
      [ "$bin" != "$GF" ] && [ "$n" -gt "$OLD_MAX" ] && { printf '%-8d %-8s %-10s %9s\n' "$n" "$c" base "(not run: > OLD_MAX)"; continue; }
      case $c in
        top) args=(top "$f") ;;
        svg) args=(svg -o /dev/null "$f") ;;
        diff) args=(diff "$f" "$f") ;;
      esac
      r=$(run_once "$d/err" "$bin" "${args[@]}") || { echo "$c $n: failed: $(head -c 300 "$d/err")"; continue; }
      read -r w _ k <<<"$r"
      who=new; [ "$bin" != "$GF" ] && who=base
      key=$who
      gw=-; gk=-
      if [ "$who" = new ]; then
        [ -n "${pw[$key]:-}" ] && gw=$(ratio "$w" "${pw[$key]}") && gk=$(ratio "$k" "${pk[$key]}")
        pw[$key]=$w; pk[$key]=$k; bw[$n]=$w; bk[$n]=$k
        vs=-
      else
        [ -n "${pw[$key]:-}" ] && gw=$(ratio "$w" "${pw[$key]}") && gk=$(ratio "$k" "${pk[$key]}")
        pw[$key]=$w; pk[$key]=$k
        vs="$(ratio "${bw[$n]}" "$w")x, $(ratio "${bk[$n]}" "$k")x"
      fi
      printf '%-8d %-8s %-10s %9s %8s %9s %8s %s\n' "$n" "$c" "$who" "$w" "$gw" "$(mb "$k")" "$gk" "$vs"
    done
  done
  unset pw pk bw bk
done
echo "growth: ratio to the previous size (each size doubles: linear ~2, quadratic ~4)"
