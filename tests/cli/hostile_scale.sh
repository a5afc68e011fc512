#!/usr/bin/env bash
# hostile_scale.sh — report, syncs and fold stay linear on deeply nested
# traces (issue 16): run time at 4N over run time at N must stay under 8
# (linear: ~4 or less, the fixed start-up cost making it smaller; the old
# quadratic code: ~16). Each time is the best of 3 runs, so one disturbed
# run on a busy machine does not decide; the sizes are ones where the old
# code took seconds at 4N (ASan build), the fixed code a tenth of that.
# syncs on py-spy folded input with many distinct sites is checked the same
# way. Nested step markers (step i inside step i-1, every kernel in the
# innermost) and heavily overlapping ones (each step holds half the trace):
# the step table, gaps, comm, stacks and fold cost O(n log n), not steps x
# events. Also: a --families regex sees only the first 4096 bytes of a kernel name, and a
# backtracking-prone rule costs linear time in the name; a deep evented speedscope profile
# (N frames each inside the previous) costs linear time and memory in top, svg and diff.
. "$(dirname "$0")/lib.sh"

GEN=tests/gen/gen_nested.py
N=${SCALE_N:-1500}
N4=$((4 * N))
LIMIT=${SCALE_TIMEOUT:-60}

python3 "$GEN" --shape nested -n "$N" -o "$T/n1.json" &&
  python3 "$GEN" --shape nested -n "$N4" -o "$T/n4.json" &&
  python3 "$GEN" --shape siblings -n "$N" --depth "$N" -o "$T/s1.json" &&
  python3 "$GEN" --shape siblings -n "$N4" --depth "$N4" -o "$T/s4.json" &&
  python3 "$GEN" --shape longkernel -n "$((4 * N))" -o "$T/l1.json" &&
  python3 "$GEN" --shape longkernel -n "$((16 * N))" -o "$T/l4.json" &&
  python3 "$GEN" --shape threads -n "$((2 * N))" -o "$T/t1.json" &&
  python3 "$GEN" --shape threads -n "$((8 * N))" -o "$T/t4.json" &&
  python3 "$GEN" --shape steps -n "$N" -o "$T/q1.json" &&
  python3 "$GEN" --shape steps -n "$N4" -o "$T/q4.json" &&
  python3 "$GEN" --shape overlap -n "$N" -o "$T/o1.json" &&
  python3 "$GEN" --shape overlap -n "$N4" -o "$T/o4.json" &&
  python3 - "$T" "$N" <<'EOF' ||
# py-spy folded stacks: 2N (8N) distinct sync sites, each with two symbols
import sys
d, n = sys.argv[1], int(sys.argv[2])
for tag, k in (("1", 2 * n), ("4", 8 * n)):
    with open("%s/p%s.folded" % (d, tag), "w") as f:
        for i in range(k):
            f.write("main (train.py:1);step (s%d.py:%d);cudaStreamSynchronize (libcudart.so) %d\n" % (i, i, 1 + i % 3))
            f.write("main (train.py:1);step (s%d.py:%d);cudaMemcpy%d (libcudart.so) 1\n" % (i, i, i))
EOF
  { fail "scale-gen" "generator failed"; exit 0; }

# check NAME SHAPE ARGS... : 4N / N < 8 (lib.sh ratio_check) on the SHAPE inputs
check() {
  local name=$1 shape=$2 ext=json; shift 2
  [ "$shape" = p ] && ext=folded
  ratio_check "$name" "$T/${shape}1.$ext" "$T/${shape}4.$ext" "$@"
}

check "scale-report-nested" n report
check "scale-report-json-nested" n report --format json
check "scale-syncs-nested" n syncs
check "scale-fold-idle-maxdepth-nested" n fold --weight idle --max-depth 3
check "scale-fold-gpu-maxdepth-nested" n fold --weight gpu --max-depth 3
check "scale-report-siblings" s report
check "scale-syncs-pyspy-sites" p syncs
check "scale-report-long-kernel" l report
check "scale-report-many-threads" t report
check "scale-report-nested-steps" q report
check "scale-report-json-nested-steps" q report --format json
check "scale-syncs-nested-steps" q syncs
check "scale-fold-idle-maxdepth-nested-steps" q fold --weight idle --max-depth 3
check "scale-fold-wall-steps-nested-steps" q fold --weight wall --max-depth 2 --steps 2..
check "scale-report-overlap-steps" o report
check "scale-report-md-overlap-steps" o report --format md --skip 1
check "scale-syncs-overlap-steps" o syncs --format json
check "scale-fold-idle-overlap-steps" o fold --weight idle --steps 3..

# two ranks (the straggler's collectives): the same trace twice
ratio_check "scale-report-ranks-overlap-steps" "$T/o1.json" "$T/o4.json" report @

# a deep evented speedscope profile (frames each opened inside the previous, then all
# closed): its folded text is N stacks of up to N frames, the importer builds the tree
# directly and the readers take it whole (issue 22: 20k frames took 2.4 GB in top)
python3 - "$T" "$N" <<'EOF'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
for tag, k in (("1", 2 * n), ("4", 8 * n)):
    fr = [{"name": "f%d" % i} for i in range(k)]
    ev = [{"type": "O", "frame": i, "at": i} for i in range(k)] + [{"type": "C", "frame": k - 1 - j, "at": k + j} for j in range(k)]
    json.dump({"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": fr},
               "profiles": [{"type": "evented", "name": "deep", "unit": "none", "startValue": 0, "endValue": 2 * k, "events": ev}]},
              open("%s/deep%s.speedscope.json" % (d, tag), "w"))
EOF
ratio_check "scale-speedscope-deep-top" "$T/deep1.speedscope.json" "$T/deep4.speedscope.json" top
ratio_check "scale-speedscope-deep-svg" "$T/deep1.speedscope.json" "$T/deep4.speedscope.json" svg
# diff's default output is folded text: k stacks of up to k frames here, quadratic
# in the input by nature (421 MB at 4N), so its linear readers and comparison are
# timed through the bounded writers: the differential SVG and the --top tables
ratio_check "scale-speedscope-deep-diff" "$T/deep1.speedscope.json" "$T/deep4.speedscope.json" diff --format svg @
ratio_check "scale-speedscope-deep-diff-top" "$T/deep1.speedscope.json" "$T/deep4.speedscope.json" diff --top 10 @
gf top --format json "$T/deep4.speedscope.json"
expect_eq "scale-speedscope-deep-answer" "$(python3 -c "
import json; d=json.load(open('$T/out')); print(d['total'])" 2>/dev/null)" "$((16 * N - 1))"

# nested step markers: peak memory must not hold a copy of every kernel
# per step (the launch diagnosis weighs each kernel by the steps holding
# it). Release build: ASan keeps freed memory in quarantine.
GFR=${GF_REL:-$GF}
TIMEBIN=/usr/bin/time
# rss_check NAME WHAT F1 F4 ARGS...: the peak RSS of gpuflame ARGS F4 stays
# under 4x that of ARGS F1 plus 8 MB (an ARG '@' stands for the file too)
rss_check() {
  local name=$1 what=$2 f1=$3 f4=$4 a r1 r4 k1 k4
  shift 4
  local -a a1=() a4=()
  for a in "$@"; do if [ "$a" = @ ]; then a1+=("$f1"); a4+=("$f4"); else a1+=("$a"); a4+=("$a"); fi; done
  "$TIMEBIN" -f %M -o "$T/rss1" timeout "$LIMIT" "$GFR" "${a1[@]}" "$f1" >/dev/null 2>&1
  r1=$?
  "$TIMEBIN" -f %M -o "$T/rss4" timeout "$LIMIT" "$GFR" "${a4[@]}" "$f4" >/dev/null 2>&1
  r4=$?
  k1=$(tail -1 "$T/rss1"); k4=$(tail -1 "$T/rss4")
  if [ "$r1" -ne 0 ] || [ "$r4" -ne 0 ]; then
    fail "$name" "$1 failed on $what (exit $r1, $r4)"
  elif [ "$k4" -lt $((4 * k1 + 8192)) ]; then
    pass "$name"
  else
    fail "$name" "peak RSS ${k1} KB on $what, ${k4} KB on 4x as much: grows faster than the input"
  fi
}
if [ -x "$TIMEBIN" ]; then
  python3 "$GEN" --shape steps -n 1000 -o "$T/st1.json" && python3 "$GEN" --shape steps -n 4000 -o "$T/st4.json"
  rss_check "scale-report-nested-steps-rss" "1000 nested steps" "$T/st1.json" "$T/st4.json" report
  # two ranks of overlapping steps: each NCCL kernel is one collective,
  # not one per step holding it
  rss_check "scale-report-ranks-overlap-rss" "two ranks of N=$N overlapping steps" "$T/o1.json" "$T/o4.json" report @
  # the deep speedscope profile: memory linear too
  rss_check "scale-speedscope-deep-rss" "$((2 * N)) nested speedscope frames" "$T/deep1.speedscope.json" \
    "$T/deep4.speedscope.json" top
else
  skip "scale-report-nested-steps-rss" "GNU time absent"
  skip "scale-report-ranks-overlap-rss" "GNU time absent"
  skip "scale-speedscope-deep-rss" "GNU time absent"
fi

# the answers are still right on the deep trace: one sync site, the user's
# frame found under 4N torch frames, one sync per two windows
gf syncs --format json "$T/n4.json"
expect_rc "scale-syncs-rc" 0
expect_grep "scale-syncs-site" '"site": "train.py\(10\): main"' "$T/out"
expect_grep "scale-syncs-count" "\"count\": $((N4))," "$T/out"

# --families: a regex sees the first 4096 bytes of a kernel name
python3 - "$T/long.json" <<'EOF'
import sys
long = "a" * 5000 + "x"
short = "b" * 1000 + "x"
ev = []
for i, name in enumerate([long, short]):
    ev.append('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":2,"args":{"correlation":%d}}' % (10 * i, i + 1))
    ev.append('{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":5,"args":{"device":0,"stream":7,"correlation":%d}}' % (name, 10 * i + 3, i + 1))
open(sys.argv[1], "w").write('{"traceEvents":[' + ",".join(ev) + "]}")
EOF
printf 'x$\tends_x\n' >"$T/fam.txt"
gf fold --families "$T/fam.txt" "$T/long.json"
expect_rc "families-long-rc" 0
expect_grep "families-short-whole-name" '^ends_x 5000$' "$T/out"
expect_grep "families-long-prefix-only" '^a{5000}x 5000$' "$T/out"
expect_grep "families-long-warned" "warning: '$T/fam.txt': 1 kernel names longer than 4096 bytes were matched against its regexes by their first 4096 bytes" "$T/err"
gf diff --families "$T/fam.txt" "$T/long.json" "$T/long.json"
expect_grep "families-long-warned-diff" "warning: .*: 1 kernel names longer than 4096 bytes" "$T/err"

# --families with a backtracking-prone rule ('(a|aa)*b': glibc's regexec takes ~0.25 s on
# one 4096-byte name): 300 distinct kernel names of L and 4L bytes, the cost linear in L
# (base/rx.h: a DFA, one step a byte; the old regexec: quadratic, 16x, past the limit)
python3 - "$T" <<'EOF'
import sys
for tag, L in (("1", 1000), ("4", 4000)):
    ev = []
    for i in range(300):
        name = "a" * (L - 6) + "%06d" % i
        ev.append('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,"dur":2,"args":{"correlation":%d}}' % (10 * i, i + 1))
        ev.append('{"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":5,"args":{"device":0,"stream":7,"correlation":%d}}' % (name, 10 * i + 3, i + 1))
    open("%s/fam%s.json" % (sys.argv[1], tag), "w").write('{"traceEvents":[' + ",".join(ev) + "]}")
EOF
printf '(a|aa)*b\tbacktrack\n' >"$T/bt.txt"
ratio_check "scale-families-backtracking-rule" "$T/fam1.json" "$T/fam4.json" fold --families "$T/bt.txt"
gf fold --families "$T/bt.txt" "$T/fam4.json"
expect_eq "families-backtracking-answer" "$(grep -c '^a*[0-9]\{6\} 5000$' "$T/out")" 300
