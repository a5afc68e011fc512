#!/usr/bin/env bash
# tests/browser/run.sh — the interactive SVG in headless Chromium: renders a
# small profile with known answers using $GF and runs svg_test.mjs on it
# (zoom, search "Matched: N%" also when zoomed, reset, no console errors).
# Prints PASS/FAIL lines; SKIP when chromium, node or playwright-core
# (npm install in tests/browser, done by scripts/deps.sh test) is missing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
GF=${GF:-$root/build/asan/gpuflame}
if [ ! -x /usr/bin/chromium ]; then echo "SKIP browser: /usr/bin/chromium not installed"; exit 0; fi
if ! command -v node >/dev/null; then echo "SKIP browser: node not installed"; exit 0; fi
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 20 ]; then echo "SKIP browser: playwright-core 1.65 needs node >= 20 (found $(node --version))"; exit 0; fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  echo "SKIP browser: tests/browser/node_modules missing (npm install)"; exit 0; fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
printf 'main;alpha;beta 30\nmain;alpha 10\nmain;gamma;beta 20\nmain;gamma;beta;beta 10\nmain;delta 40\n' >"$T/p.folded"
if ! "$GF" svg "$T/p.folded" -o "$T/p.svg" 2>"$T/err"; then
  echo "FAIL browser-render: $(cat "$T/err")"; exit 1; fi
cd "$here" && timeout 120 node svg_test.mjs "$T/p.svg"
