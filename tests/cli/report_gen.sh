#!/usr/bin/env bash
# report_gen.sh — `gpuflame report` on generated decode-loop traces whose
# answers are known by construction (tests/gen/gen_decode.py --expect):
# per-step wall, GPU busy, kernel, memcpy, memset, idle, sync count and wait,
# launches, kernels, and the sync sites must match EXACTLY (decimal us vs
# integer ns, checked by tests/gen/report_check.py). Also: --skip/--steps,
# several ranks (tp), --expect-ms/--unprofiled-step-ms, text/md formats
# (100 columns), and the verdict naming the host stack and the sync that
# drained the GPU before it.
. "$(dirname "$0")/lib.sh"

GEN=tests/gen/gen_decode.py
CHK=tests/gen/report_check.py

# run_check NAME CMD... : runs a checker and relays its PASS/FAIL lines
run_check() {
  local name=$1; shift
  local out
  out=$("$@" 2>&1)
  if [ -z "$out" ]; then fail "$name" "checker printed nothing"; else printf '%s\n' "$out"; fi
}

for v in sync fixed graph tp; do
  python3 "$GEN" --variant $v --steps 5 -o "$T/$v.json" --expect "$T/$v.exp.json" || { fail "gen-$v"; continue; }
  gf report --format json "$T/$v.json"
  expect_rc "report-$v-rc" 0
  cp "$T/out" "$T/$v.rep.json"
  if python3 -m json.tool "$T/$v.rep.json" >/dev/null 2>&1; then pass "report-$v-json-parses"; else fail "report-$v-json-parses"; fi
  run_check "report-$v-exact" python3 "$CHK" report "$T/$v.rep.json" "$T/$v.exp.json"
done

# 19-digit absolute timestamps (no baseTimeNanoseconds), another seed
python3 "$GEN" --variant graph --abs-ts --seed 7 --steps 3 -o "$T/abs.json" --expect "$T/abs.exp.json"
gf report --format json "$T/abs.json"
cp "$T/out" "$T/abs.rep.json"
run_check "report-abs-exact" python3 "$CHK" report "$T/abs.rep.json" "$T/abs.exp.json"

# sync: the GPU idles while the host detokenises after the .item() drained
# it (the gap model's one rule: host, after the drain); the verdict names
# the host stack, Next the sync site that drained the GPU first and its fix;
# the site is in syncs[] with its fix
expect_grep "sync-verdict" '"verdict": "GPU busy .* of host work before the next launch, 100% of it scheduling and framework Python; .* of it in .*detokenizer.py\(77\): decode_incremental' "$T/sync.rep.json"
expect_grep "sync-verdict-cause" '"verdict_cause": "host"' "$T/sync.rep.json"
expect_grep "sync-next-same-site" '"action": "The GPU drained at the sync at engine.py\(251\): check_eos first, then idled while the host worked in .*detokenizer.py\(77\): decode_incremental .*pinned memory one step behind' "$T/sync.rep.json"
expect_grep "sync-op" '"op": "aten::item"' "$T/sync.rep.json"
expect_grep "sync-copy" '"copy": "cudaMemcpyAsync"' "$T/sync.rep.json"
expect_grep "sync-count-per-step" '"count_per_step": 1.00,' "$T/sync.rep.json"
expect_grep "sync-fix" 'pinned memory one step behind' "$T/sync.rep.json"
# what the host did while the GPU idled (fold --weight idle): detokenisation first
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["idle_stacks"][0]["stack"].split(";")[-1])' "$T/sync.rep.json")
expect_eq "sync-idle-stacks" "$got" "detokenizer.py(77): decode_incremental"
# fixed: the sync site is gone
got=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["syncs"]))' "$T/fixed.rep.json")
expect_eq "fixed-no-sync-site" "$got" "0"
expect_nogrep "fixed-no-check-eos" 'check_eos' "$T/fixed.rep.json"
# graph: every forward is one graph launch
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted(set(s["graph_launches"] for s in d["steps"])))' "$T/graph.rep.json")
expect_eq "graph-one-launch-per-step" "$got" "[1]"
# tp: NCCL time per step equals the generator's NCCL kernel time
run_check "tp-nccl" python3 "$CHK" nccl "$T/tp.rep.json" "$T/tp.exp.json"
expect_grep "tp-comm-object" '"hta_overlap_ratio": ' "$T/tp.rep.json"

# gaps add up to idle on every step
got=$(python3 - "$T/sync.rep.json" <<'EOF'
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
bad = 0
for s in d["steps"]:
    g = s["gaps"]
    tot = g["edge_us"] + g["sync_us"] + g["host_us"] + g["untraced_us"] + g["queued_us"] + g["launch_us"]
    hta = g["hta_rule_host_wait_us"] + g["hta_rule_kernel_wait_us"] + g["hta_rule_other_us"]
    if tot != s["idle_us"] or hta != s["idle_us"]:
        bad += 1
print(bad)
EOF
)
expect_eq "gaps-sum-to-idle" "$got" "0"

# --skip 2 keeps steps 5..7; --steps 4..5 keeps two
gf report --format json --skip 2 "$T/sync.json"
expect_rc "skip-rc" 0
cp "$T/out" "$T/skip.json"
run_check "skip-exact" python3 "$CHK" report "$T/skip.json" "$T/sync.exp.json" --skip 2
gf report --format json --steps 4..5 "$T/sync.json"
got=$(python3 -c 'import json,sys; print([s["index"] for s in json.load(open(sys.argv[1]))["steps"]])' "$T/out")
expect_eq "steps-range" "$got" "[4, 5]"
gf report --steps 100..200 "$T/sync.json"
expect_rc "steps-empty-rc" 2
expect_grep "steps-empty-msg" "no step left" "$T/err"

# a marker that matches nothing: the whole trace is one step, all syncs in it
gf report --format json --step-marker nosuch "$T/sync.json"
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["whole_trace"], len(d["steps"]), d["steps"][0]["index"], d["summary"]["syncs"])' "$T/out")
expect_eq "marker-none-whole-trace" "$got" "True 1 None 5"
gf report --step-marker nosuch "$T/sync.json"
expect_grep "marker-none-note" "no step markers" "$T/out"

# --expect-ms and --unprofiled-step-ms: exact distance to the steady step
gf report --format json --expect-ms 0.2 --unprofiled-step-ms 0.4 "$T/sync.json"
expect_rc "expect-rc" 0
got=$(python3 - "$T/out" <<'EOF'
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
s = d["summary"]["steady_step_us"]
ok = d["expect"]["distance_us"] == s - 200 and d["overhead"]["overhead_us"] == s - 400
print("ok" if ok else "bad %r" % d["expect"])
EOF
)
expect_eq "expect-distance" "$got" "ok"
gf report --expect-ms 0.2 --unprofiled-step-ms 0.4 "$T/sync.json"
expect_grep "expect-text" "Speed of light" "$T/out"
expect_grep "overhead-text" "the profiler adds" "$T/out"

# two ranks, never merged, plus the straggler: each rank's figures in the
# combine are its own report's (each exact against the generator's answers)
python3 "$GEN" --variant tp --steps 5 --rank 1 -o "$T/tp1.json" --expect "$T/tp1.exp.json"
gf report --format json "$T/tp.json" "$T/tp1.json"
expect_rc "ranks-rc" 0
cp "$T/out" "$T/ranks.json"
"$GF" report --format json "$T/tp.json" >"$T/r0.json" 2>/dev/null
"$GF" report --format json "$T/tp1.json" >"$T/r1.json" 2>/dev/null
run_check "ranks-r0-exact" python3 "$CHK" report "$T/r0.json" "$T/tp.exp.json"
run_check "ranks-r1-exact" python3 "$CHK" report "$T/r1.json" "$T/tp1.exp.json"
python3 - "$T/ranks.json" "$T/r0.json" "$T/r1.json" <<'EOF' && pass ranks-figures-are-reports || fail ranks-figures-are-reports "see above"
import json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]), parse_float=Decimal)
for p, k in zip(d["per_rank"], sys.argv[2:]):
    r = json.load(open(k), parse_float=Decimal)
    s, g, c = r["summary"], r["gaps"], r["comm"]
    want = {"step_wall_us": s["steady_step_us"], "gpu_busy_us": s["gpu_busy_us"], "idle_us": s["idle_us"],
            "sync_wait_us": s["sync_wait_us"], "syncs": s["syncs"], "launches": s["launches"], "kernels": s["kernels"],
            "comm_us": c["comm_us"], "comm_overlap_us": c["overlap_us"], "comm_exposed_us": c["exposed_us"],
            "idle_sync_us": g["sync_us"], "idle_host_us": g["host_us"], "idle_launch_us": g["launch_us"],
            "verdict_cause": s["verdict_cause"], "verdict": s["verdict"], "file": r["file"], "rank": r["rank"]}
    bad = [(k2, p[k2], v) for k2, v in want.items() if p[k2] != v]
    if bad:
        print("rank %s: %s" % (p["rank"], bad))
        sys.exit(1)
EOF
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); g=d["groups"]; print(len(d["per_rank"]), len(g), g[0]["matched"], g[0]["unmatched"])' "$T/ranks.json")
expect_eq "ranks-straggler" "$got" "2 1 10 0"
gf report "$T/tp.json" "$T/tp1.json"
expect_grep "ranks-text-straggler" "^Straggler \(minimum-wait rule" "$T/out"
expect_grep "ranks-text-columns" "^  file +tp.json +tp1.json" "$T/out"

# text and markdown: readable, 100 columns
for f in text md; do
  gf report --format $f "$T/sync.json"
  expect_rc "format-$f-rc" 0
done
gf report "$T/sync.json"
long=$(awk 'length($0) > 100' "$T/out" | wc -l)
expect_eq "text-100-columns" "$long" "0"
expect_grep "text-verdict" "^Verdict: GPU busy" "$T/out"
expect_grep "text-steady-row" "^  steady " "$T/out"
gf report --format md "$T/sync.json"
expect_grep "md-table" '^\| step \| wall \|' "$T/out"

# -o writes the file; stdin works
gf report --format json -o "$T/o.json" "$T/sync.json"
expect_rc "output-rc" 0
if cmp -s "$T/o.json" "$T/sync.rep.json"; then pass "output-same"; else fail "output-same"; fi
gf_in "$T/sync.json" report --format json
expect_grep "stdin-name" '"file": "<stdin>"' "$T/out"
if diff <(grep -v '"file":' "$T/out") <(grep -v '"file":' "$T/sync.rep.json") >/dev/null; then pass "stdin-same"; else fail "stdin-same"; fi
exit 0
