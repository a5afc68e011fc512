#!/usr/bin/env bash
# report_device.sh — `gpuflame report --device N`: the idle of the analysed
# device only, split by the rule of docs/report.md (issue 24) and checked
# EXACTLY against an independent Python computation, instant by instant, on
# generated traces of one thread launching on two GPUs
# (tests/gen/gen_twodev.py): every cause's total over the steps, and each
# host frame, [untraced] and [edge] the idle stacks show. Before issue 23
# the idle stacks summed the idle time of every device.
. "$(dirname "$0")/lib.sh"

GEN=tests/gen/gen_twodev.py

for seed in 3 11; do
  python3 "$GEN" --seed $seed -o "$T/t$seed.json" --expect "$T/e$seed.json" || { fail "gen-$seed"; continue; }
  for d in 0 1; do
    gf report --format json --device $d "$T/t$seed.json"
    expect_rc "device-$seed-$d-rc" 0
    got=$(python3 - "$T/out" "$T/e$seed.json" $d <<'PY'
import json, sys
from decimal import Decimal
r = json.load(open(sys.argv[1]), parse_float=Decimal)
e = json.load(open(sys.argv[2]))[sys.argv[3]]
tot = {}
for s in r["steps"]:
    for c in ("edge", "sync", "host", "untraced", "queued", "launch"):
        tot[c] = tot.get(c, 0) + int(s["gaps"][c + "_us"] * 1000)
want = {"edge": e["edge"], "sync": 0, "host": sum(e["host"].values()), "untraced": e["untraced"],
        "queued": e["queued"], "launch": e["launch"]}
bad = [] if tot == want else ["causes %s, expected %s" % (tot, want)]
shown = 0
for st in r["idle_stacks"] or []:
    lab, ns = st["stack"], int(st["idle_us"] * 1000)
    if lab.startswith("[host];[python];"):
        shown += 1
        if e["host"].get(lab[len("[host];[python];"):]) != ns:
            bad.append("%s %d, expected %s" % (lab, ns, e["host"].get(lab[len("[host];[python];"):])))
    elif lab in ("[untraced]", "[edge]") and e[lab[1:-1]] != ns:
        bad.append("%s %d, expected %d" % (lab, ns, e[lab[1:-1]]))
if not shown:
    bad.append("no host frame among the idle stacks")
print("ok" if not bad and r["device"] == int(sys.argv[3]) else "; ".join(bad) or "device %r" % r["device"])
PY
)
    expect_eq "device-$seed-$d-idle-stacks" "$got" "ok"
  done
  # the automatic choice is one device too: the same stacks as asking for it
  gf report --format json "$T/t$seed.json"
  auto=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["device"])' "$T/out")
  cp "$T/out" "$T/auto.json"
  gf report --format json --device "$auto" "$T/t$seed.json"
  expect_same "device-$seed-auto-same" "$T/out" "$T/auto.json"
  # text names the section with the analysed device's stacks
  gf report --device 1 "$T/t$seed.json"
  expect_grep "device-$seed-text" "The GPU idle flame graph's heaviest stacks" "$T/out"
  expect_grep "device-$seed-text-device" '^device 1 \(CUDA\), ' "$T/out"
done

# every device is kept (issue 23: the model kept the first 64 and said "no GPU activity" of the
# others): 70 GPUs, device d runs one kernel of (d + 1) * 10 us inside the one step, so the
# analysed device's busy time names it
python3 - "$T/many.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 10000}]
for d in range(70):
    t = 10 + d * 100
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t, "dur": 5,
               "args": {"correlation": d + 1}})
    ev.append({"ph": "X", "cat": "kernel", "name": "k%d" % d, "pid": d, "tid": 7, "ts": t + 20, "dur": (d + 1) * 10,
               "args": {"device": d, "stream": 7, "correlation": d + 1}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
for d in 0 63 64 65 69; do
  gf report --format json --device "$d" "$T/many.json"
  expect_eq "device-many-$d" "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["device"], r["summary"]["gpu_busy_us"])' "$T/out")" "$d $(( (d + 1) * 10 ))"
done
exit 0
