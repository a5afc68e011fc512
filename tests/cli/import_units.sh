#!/usr/bin/env bash
# import_units.sh — units travel from every importer (issue 26, items 3 and 4):
# the "# gpuflame:" header each import writes (format, unit, event, mode,
# samples, rate) and its stacks, byte for byte against outputs made from
# samples known by construction (tests/gen/gen_imports.py: perf script with
# cpu-clock and cycles periods, austin wall and memory, PyTorch export_stacks,
# py-spy raw as it runs on Linux with --subprocesses, py-spy's speedscope
# 1/rate seconds, py-spy's chrometrace B/E events); then what svg, syncs,
# export and push make of those units: svg's tooltip unit, syncs' sample
# counts (10 perf samples, 3 in a sync: 10.8-60.3 %), pprof's sample types
# (protoc --decode and tests/gen/check_export.py), and the ns Pyroscope would
# store by its folded ingest rule (value x 1e9 / sampleRate for cpu and wall:
# pkg/ingester/pyroscope/ingest_adapter.go). Last, a real `perf record -g` +
# `perf script` where the kernel allows it (SKIP with the reason where not).
. "$(dirname "$0")/lib.sh"
GI=$T/gi
python3 tests/gen/gen_imports.py "$GI" >/dev/null || { fail import-units-gen "gen_imports.py failed"; exit 0; }

# header keys of EXPECT's first line all present in the output's header
header_has() { # name got expect
  python3 - "$2" "$3" <<'PY' | { read -r r; if [ "$r" = ok ]; then pass "$1"; else fail "$1" "$r"; fi; }
import sys
got = open(sys.argv[1], encoding="utf-8").readline()
want = open(sys.argv[2], encoding="utf-8").readline().strip()
if not got.startswith("# gpuflame:"):
    print("no header: %r" % got[:80]); sys.exit()
kv = {p.strip() for p in got[len("# gpuflame:"):].split(";") if p.strip()}
miss = [p for p in want.split(";") if p and p not in kv]
print("ok" if not miss else "missing %s in %r" % (miss, got.strip()))
PY
}

for c in perf10:txt perfcyc:txt austin_wall:txt austin_mem:txt export_stacks:txt pyspy_raw:txt pyspy_ss:json \
         pyspy_chrome:json; do
  n=${c%%:*}; f=$GI/$n.${c##*:}
  gf fold "$f"; expect_rc "import-$n-rc" 0
  cp "$T/out" "$T/$n.folded"
  header_has "import-$n-header" "$T/$n.folded" "$GI/$n.expect"
  tail -n +2 "$T/$n.folded" >"$T/got"; tail -n +2 "$GI/$n.expect" >"$T/want"
  expect_same "import-$n-stacks" "$T/got" "$T/want"
done

# py-spy as it runs on Linux: decimal thread ids sniffed, every ancestor's
# process frame and the thread frame dropped by --threads merge
gf fold --threads merge "$GI/pyspy_raw.txt"; expect_rc import-pyspy-merge-rc 0
grep -v '^#' "$T/out" >"$T/got"
expect_same import-pyspy-merge-stacks "$T/got" "$GI/pyspy_raw.merged"
# the chrometrace is not a PyTorch trace: the trace commands say what it is
gf info "$GI/pyspy_chrome.json"; expect_rc import-chrome-info-rc 1
expect_grep import-chrome-info-hint "is py-spy chrometrace output, not a PyTorch profiler trace: run 'gpuflame svg" "$T/err"

# svg: ns shown as us, events by their event, bytes as bytes
gf svg "$GI/perf10.txt"
expect_grep import-svg-ns-as-us '<title>python \(101,010\.1 us, 100\.00%\)</title>' "$T/out"
gf svg "$GI/perfcyc.txt"
expect_grep import-svg-events '<title>python \(625,001 cycles:u, 100\.00%\)</title>' "$T/out"
gf svg "$GI/austin_mem.txt"
expect_grep import-svg-bytes '<title>\[freed\] \(3,072 bytes, 40\.00%\)</title>' "$T/out"

# syncs counts samples, whatever the weights were (perf periods, speedscope seconds)
gf syncs "$GI/perf10.txt"; expect_rc import-syncs-perf-rc 0
tr '\n' ' ' <"$T/out" | sed 's/  */ /g' >"$T/line"
expect_grep import-syncs-perf-interval "^perf samples: 10 in .*, 3 in blocking CUDA/HIP calls \(30\.0%, 95% CI 10\.8-60\.3%\)" "$T/line"
expect_grep import-syncs-perf-site "/w/train\.py: step +cudaStreamSynchronize" "$T/out"
gf syncs --format json "$GI/pyspy_ss.json"; expect_rc import-syncs-speedscope-rc 0
expect_eq import-syncs-speedscope-samples "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["samples"], d["sync_samples"])' "$T/out")" "8 0"
gf syncs "$T/perf10.folded"; expect_rc import-syncs-folded-perf-rc 1
expect_grep import-syncs-folded-perf-msg "weighted in ns, not sample counts: .* run 'gpuflame syncs' on the perf file itself" "$T/err"
gf syncs "$GI/pyspy_chrome.json"; expect_rc import-syncs-chrome-rc 1
expect_grep import-syncs-chrome-msg "chrometrace holds the times between samples, not the samples" "$T/err"

# export: the unit each import says (ns from us, bytes, counts), exact
if command -v protoc >/dev/null; then
  for n in perf10 perfcyc austin_wall austin_mem export_stacks pyspy_ss pyspy_chrome; do
    f=$(ls "$GI/$n".txt "$GI/$n".json 2>/dev/null | head -1)
    gf export --to pprof -o "$T/$n.pb.gz" "$f"; expect_rc "import-export-$n-rc" 0
    zcat "$T/$n.pb.gz" | protoc --decode perftools.profiles.Profile -I tests/gen/proto profile.proto >"$T/$n.txt"
    expect_eq "import-export-$n" "$(python3 tests/gen/check_export.py pprof "$T/$n.folded" -- "$T/$n.txt")" ok
  done
  expect_grep import-export-perf-type 'string_table: "cpu"' "$T/perf10.txt"
  expect_grep import-export-bytes 'string_table: "bytes"' "$T/austin_mem.txt"
else
  skip import-export "protoc not installed (scripts/deps.sh test installs protobuf-compiler)"
fi
gf export --to speedscope -o "$T/mem.json" "$GI/austin_mem.txt"
expect_eq import-export-speedscope-bytes "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profiles"][0]["unit"])' "$T/mem.json")" bytes

# a real perf record -g + perf script: the periods' sum and the samples, from the text
if ! command -v perf >/dev/null; then
  skip import-perf-real "perf not installed"
elif ! perf record -q -g -F 499 -o "$T/perf.data" -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' \
       >/dev/null 2>"$T/perr" || [ ! -s "$T/perf.data" ]; then
  skip import-perf-real "perf record not allowed here ($(head -c 120 "$T/perr" | tr '\n' ' '))"
else
  perf script -i "$T/perf.data" >"$T/perf.txt" 2>/dev/null
  want=$(python3 - "$T/perf.txt" <<'PY'
import re, sys
# stackcollapse-perf.pl's rule: a sample is an event line, frame lines, a blank
# line; the first event type only; the period (1 when absent) is the weight
ev, n, tot, cur = None, 0, 0, None
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    m = re.search(r":\s*(\d+)?\s+(\S+):\s*$", line)
    if m and not line.startswith((" ", "\t")):
        if ev is None:
            ev = m.group(2)
        cur = int(m.group(1) or 1) if m.group(2) == ev else None
    elif not line.strip() and cur is not None:
        n += 1; tot += cur; cur = None
unit = "ns" if re.match(r"(cpu|task)-clock(:|$)", ev or "") else "events"
print("unit=%s event=%s samples=%d total=%d" % (unit, ev, n, tot))
PY
)
  gf fold "$T/perf.txt"; expect_rc import-perf-real-rc 0
  got=$(python3 - "$T/out" <<'PY'
import sys
lines = open(sys.argv[1], errors="replace").read().split("\n")
h = dict(p.strip().split("=", 1) for p in lines[0][len("# gpuflame:"):].split(";") if "=" in p)
tot = sum(int(l.rsplit(" ", 1)[1]) for l in lines[1:] if l)
print("unit=%s event=%s samples=%s total=%d" % (h.get("unit"), h.get("event"), h.get("samples"), tot))
PY
)
  expect_eq import-perf-real "$got" "$want"
fi
exit 0
