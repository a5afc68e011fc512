#!/usr/bin/env bash
# report_device.sh — `gpuflame report --device N`: the host stacks charged
# with GPU idle time (idle_stacks) are those of the analysed device only,
# checked EXACTLY against an independent Python computation on generated
# traces of one thread launching on two GPUs (tests/gen/gen_twodev.py).
# Before, the idle stacks summed the idle time of every device.
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
got = [[s["stack"], int(s["idle_us"] * 1000)] for s in (r["idle_stacks"] or [])]
print("ok" if got == e and r["device"] == int(sys.argv[3]) else "got %s expected %s" % (got, e))
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
  expect_grep "device-$seed-text" 'What the host was doing while the GPU idled' "$T/out"
  expect_grep "device-$seed-text-device" 'device 1, ' "$T/out"
done
exit 0
