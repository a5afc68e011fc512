#!/usr/bin/env bash
# diff_noise.sh — diff tells a real change from step-to-step noise (issue
# 28, docs/diff.md "Step-to-step noise"): per stack, the per-step values of
# the two runs are compared by Mann-Whitney U, Benjamini-Hochberg over the
# stacks; changes within noise are classed noise in --top, grey in the SVG,
# in the page, and the steps of each side are said.
# Truth: tests/gen/gen_noise.py — two captures whose only real difference is
# planted (one op +20% on the host and on the GPU, every value jittered
# +-10% per step), and captures of the same loop with other seeds.
. "$(dirname "$0")/lib.sh"
N=tests/gen/gen_noise.py

python3 "$N" --seed 11 -o "$T/a.json" && python3 "$N" --seed 12 --plant aten::mm -o "$T/p.json" &&
  python3 "$N" --seed 13 -o "$T/b.json" && python3 "$N" --seed 14 -o "$T/c.json" ||
  { fail "noise-gen" "gen_noise.py failed"; exit 0; }

# traces, every time weight: exactly the planted stack (and its path) is a
# change; the same loop with another seed flags nothing
for w in gpu cpu wall; do
  gf diff --top 1000 -w $w "$T/a.json" "$T/p.json"
  expect_rc "noise-planted-$w-rc" 0
  expect_eq "noise-planted-$w" "$(python3 "$N" --check-top "$T/out" aten::mm)" ok
  expect_grep "noise-planted-$w-says" "^Step-to-step noise: Mann-Whitney U on the per-step values \(16 steps before, 16 after\), Benjamini-Hochberg at 0.01 per family: 1 of [0-9]+ changed stacks" "$T/out"
  for pair in "a b" "b c" "a c"; do
    set -- $pair
    gf diff --top 1000 -w $w "$T/$1.json" "$T/$2.json"
    expect_eq "noise-null-$w-$1$2" "$(python3 "$N" --check-top "$T/out" -)" ok
  done
done
# the checker catches a flagged frame (so the cases above can fail): the
# same diff without per-step values is classed by sign alone
"$GF" fold -w gpu "$T/a.json" >"$T/a.f" 2>/dev/null
"$GF" fold -w gpu "$T/b.json" >"$T/b.f" 2>/dev/null
gf diff --top 1000 "$T/a.f" "$T/b.f"
expect_grep "noise-sign-only-says" "^Exact weights without per-step values: changes are classed by their sign" "$T/out"
expect_eq "noise-checker-catches" "$(python3 "$N" --check-top "$T/out" - | grep -c 'flagged')" "$(grep -cE '  (grew|shrank) ' "$T/out")"

# per-step folds (fold --per-step) diff as the traces do: the same classes,
# the step frames collapsed (no ProfilerStep in the stacks, no step level
# in the header)
"$GF" fold --per-step -w gpu "$T/a.json" >"$T/a.ps" 2>/dev/null
"$GF" fold --per-step -w gpu "$T/p.json" >"$T/p.ps" 2>/dev/null
gf diff --top 1000 "$T/a.ps" "$T/p.ps"; cp "$T/out" "$T/ps.top"
expect_eq "noise-perstep-files" "$(python3 "$N" --check-top "$T/ps.top" aten::mm)" ok
gf diff --top 1000 "$T/a.json" "$T/p.json"
classes() { awk '/^Biggest/{t=$4} NF>=6 && $5 ~ /^(same|grew|shrank|noise)$/ {print t, $5, $6}' "$1" | sort; }
expect_eq "noise-perstep-files-same-classes" "$(classes "$T/ps.top")" "$(classes "$T/out")"
gf diff "$T/a.ps" "$T/p.ps"
expect_nogrep "noise-perstep-collapsed" "ProfilerStep" "$T/out"
expect_grep "noise-perstep-header" "^# gpuflame: weight=gpu; .*stack=annotation,python,op; " "$T/out"
expect_nogrep "noise-perstep-header-no-key" "per_step=" "$T/out"
# its 3-column text is the diff of the folds without steps, line for line
# within one unit of the last digit (totals exact)
gf diff "$T/a.f" "$T/b.f"; cp "$T/out" "$T/plain.txt"
"$GF" fold --per-step -w gpu "$T/b.json" >"$T/b.ps" 2>/dev/null
gf diff "$T/a.ps" "$T/b.ps"
expect_eq "noise-perstep-stacks" "$(grep -v '^#' "$T/out" | awk '{$NF=""; $(NF-1)=""; print}' | sort)" \
  "$(grep -v '^#' "$T/plain.txt" | awk '{$NF=""; $(NF-1)=""; print}' | sort)"

# --scale total compares BEFORE scaled to AFTER's total, per step
gf diff --scale total --top 1000 "$T/a.json" "$T/p.json"
expect_eq "noise-scale-total" "$(python3 "$N" --check-top "$T/out" aten::mm)" ok

# too few steps to tell: said with the smallest p they allow; classed by sign
python3 "$N" --seed 21 --steps 3 -o "$T/s3a.json" && python3 "$N" --seed 22 --steps 3 -o "$T/s3b.json"
gf diff --top 5 "$T/s3a.json" "$T/s3b.json"
expect_grep "noise-too-few" "^Step-to-step noise: too few steps to tell a change from noise \(3 before, 3 after: the smallest p-value they can give, 0.1, is not below 0.01\); changes are classed by their sign\.$" "$T/out"
expect_grep "noise-too-few-sign" "  (grew|shrank) " "$T/out"
# per-step values on one side only
gf diff --top 5 "$T/a.ps" "$T/b.f"
expect_grep "noise-one-side" "^Step-to-step noise: only BEFORE has per-step values; changes are classed by their sign\.$" "$T/out"

# the SVG: the legend says it, noise is grey, a tooltip gives the p-value
gf diff --svg "$T/a.json" "$T/p.json"
expect_rc "noise-svg-rc" 0
expect_grep "noise-svg-legend" "Grey = change within step-to-step noise \([0-9]+ frames\): Step-to-step noise: Mann-Whitney U" "$T/out"
expect_grep "noise-svg-grey" 'fill="rgb\(220,220,220\)"' "$T/out"
expect_grep "noise-svg-tooltip" "within step-to-step noise, p=[0-9.e-]+\)" "$T/out"
expect_grep "noise-svg-planted" "aten::mm \(total [^<]*beyond step-to-step noise, p=" "$T/out"
# the page carries the same sentence and the classes
gf diff --format html -o "$T/d.html" "$T/a.json" "$T/p.json"
expect_rc "noise-html-rc" 0
expect_eq "noise-html-json" "$(python3 - "$T/d.html" <<'EOF'
import json, re, sys
t = open(sys.argv[1]).read()
m = re.search(r'<script type="application/json" id="gf-data">(.*?)</script>', t, re.S)
# the block is JSON made safe inside <script> (escape.h: '<' as \u003c)
d = json.loads(m.group(1))
n = d["noise"]
ok = n["steps_test"] and n["steps_before"] == 16 and n["steps_after"] == 16 and \
     n["summary"].startswith("Step-to-step noise: Mann-Whitney U") and \
     any(c["cls"] == 1 and c["frame"].endswith("aten::mm") and "p" in c for c in d["changes"]) and \
     any(c["cls"] == 3 for c in d["changes"])
print("ok" if ok else json.dumps(n)[:300])
EOF
)" ok

# hostile per-step input: a header that says per_step=yes with no step
# frame, and a step frame under another one (the first on the path counts)
printf '# gpuflame: weight=gpu; unit=us; steps=2; per_step=yes;\na;b 5\nc 7\n' >"$T/h1"
printf '# gpuflame: weight=gpu; unit=us; steps=2; per_step=yes;\nProfilerStep#1;ProfilerStep#2;x 3\nProfilerStep#2;x 4\n' >"$T/h2"
gf diff --top 5 "$T/h1" "$T/h2"
expect_rc "noise-hostile-rc" 0
gf diff "$T/h2" "$T/h2"
expect_grep "noise-hostile-nested" "^ProfilerStep#\.\.\.;x 1.5 1.5$" "$T/out"
exit 0
