#!/usr/bin/env bash
# scripts/demo.sh — the main job on the embedded inputs (run by `make demo`).
#
# Folds the shipped decode-loop trace (examples/decode-sync.json.gz, made by
# our seeded generator tests/gen/gen_decode.py) three ways, renders each as
# an interactive SVG, prints the step report and the hidden syncs, and renders
# the shipped folded sample, and writes the one-file HTML page of the trace
# (demo/report.html). Outputs go to demo/ (git-ignored).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GF=${GF:-build/rel/gpuflame}
mkdir -p demo
trace=examples/decode-sync.json.gz
if [ -f "$trace" ] && "$GF" fold --help >/dev/null 2>&1; then
  for w in gpu wall idle; do
    "$GF" fold --weight "$w" "$trace" -o "demo/$w.folded"
    "$GF" svg --colors gpu --title "decode step: $w time" --countname us "demo/$w.folded" -o "demo/$w.svg"
    echo "demo: demo/$w.folded -> demo/$w.svg"
  done
  if "$GF" report --help >/dev/null 2>&1; then
    "$GF" report "$trace"
    "$GF" report --format html -o demo/report.html "$trace"
    echo "demo: $trace -> demo/report.html (open it in a browser)"
  fi
  if "$GF" syncs --help >/dev/null 2>&1; then "$GF" syncs "$trace"; fi
fi
"$GF" svg --colors gpu --title "Sample: LLM decode (folded)" examples/demo.folded -o demo/sample.svg
echo "demo: examples/demo.folded -> demo/sample.svg"
"$GF" top --limit 10 examples/demo.folded
