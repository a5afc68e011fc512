#!/usr/bin/env bash
# bench/run.sh — run every bench/bench_*.sh in turn (not part of make test).
# Each prints throughput and peak RSS next to its named baseline, measured in
# the same run. Scratch files go to bench/out/ (ignored by git).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mkdir -p bench/out
for b in bench/bench_*.sh; do
  [ -n "${1:-}" ] && [[ "$b" != *"$1"* ]] && continue
  echo "== $b"
  bash "$b" || echo "(benchmark $b failed)"
done
