#!/usr/bin/env bash
# scripts/deps.sh — install what building and testing gpuflame needs on Debian 12.
#
# Usage: scripts/deps.sh [build|test|bench]
#   build: C toolchain, the compression libraries (zlib, zstd, ISA-L) and the
#          release store's engines (libsqlite3-dev, libpq-dev).
#   test:  the above, plus clang (libFuzzer), python3 (test generators and checkers),
#          chromium and playwright-core (the browser test of the interactive SVG),
#          gzip/zstd (real compressor outputs), strace (signals caught mid-write),
#          cmark-gfm and python3-markdown (hostile names rendered as Markdown),
#          python3-torch (Debian's PyTorch 1.13, CPU, built without Kineto: the
#          real legacy capture of tests/cli/legacy_torch.sh, run by /usr/bin/python3),
#          protobuf-compiler, golang-go and npm speedscope, pprof-format, ajv (the
#          exports' tests: protoc --decode, go tool pprof, speedscope's schema and
#          app, a pprof decoder).
#          postgresql (the private server of tests/cli/store_pg.sh).
#          debhelper (the .deb of tests/cli/packaging.sh), python3-jsonschema (the JSON
#          Schemas of docs/schema/), zsh (its completion script parses), man-db and
#          groff-base (the generated man pages render), slurm-wlm and munge (the
#          private single-node Slurm of tests/cli/ranks_slurm.sh), GNU parallel
#          (tests/cli/ranks_parallel.sh).
#   bench: build, plus what bench/ compares against: GNU time, python3, gzip,
#          zstd, libsimdjson-dev (bench/ref_simdjson.cpp, a reference row) and GNU
#          parallel (bench/bench_ranks.sh).
# Only missing pieces are installed, and the script says which (and the apt-get
# command) before it runs it; a machine that has them all is left alone, and
# the script says that too. `make demo` and `make test` run it as their first,
# printed step; they never run apt-get themselves. DEPS_CHECK=1 only lists
# what is missing (exit 1 if anything is). Needs root (or sudo) for apt-get
# when something is missing.
set -euo pipefail
what=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)

pkgs=(build-essential pkg-config zlib1g-dev libzstd-dev libisal-dev)
pkgs+=(libsqlite3-dev libpq-dev)   # the release store's two engines (gpuflame store)
if [ "$what" = test ]; then
  pkgs+=(clang libclang-rt-14-dev python3 chromium nodejs npm time gzip zstd strace cmark-gfm python3-markdown python3-torch util-linux)
  pkgs+=(protobuf-compiler) # protoc --decode: the pprof export's test (tests/cli/export_stacks.sh)
  pkgs+=(golang-go)         # go tool pprof: what pprof shows of the export (export_stacks.sh)
  pkgs+=(postgresql)               # store_pg.sh starts a private server from it
  pkgs+=(debhelper python3-jsonschema zsh man-db groff-base)
  pkgs+=(slurm-wlm munge parallel) # ranks_slurm.sh starts a private munged + slurmctld/slurmd; ranks_parallel.sh
elif [ "$what" = bench ]; then
  pkgs+=(time python3 gzip zstd g++ libsimdjson-dev)
  pkgs+=(postgresql)               # bench_store.sh: the PostgreSQL rows
  pkgs+=(parallel)                 # bench_ranks.sh: summarise fanned out by GNU parallel
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
# nodejs/npm may come from elsewhere (nodesource); accept any working node+npm.
if command -v node >/dev/null && command -v npm >/dev/null; then
  tmp=(); for p in "${missing[@]}"; do [ "$p" = nodejs ] || [ "$p" = npm ] || tmp+=("$p"); done
  missing=("${tmp[@]+"${tmp[@]}"}")
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ -n "${DEPS_CHECK:-}" ]; then echo "deps: $what: missing ${missing[*]}" >&2; exit 1; fi
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "deps: $what: installing ${missing[*]}" >&2
  echo "deps: running: $SUDO apt-get install -y --no-install-recommends ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >&2
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "deps: $what: all ${#pkgs[@]} Debian packages present, nothing to install" >&2
fi

if [ "$what" = test ]; then
  # playwright-core drives Debian's chromium; it never downloads a browser itself.
  # speedscope, pprof-format and ajv: the exports' tests against the ecosystem's own code
  if [ ! -d "$here/tests/browser/node_modules/playwright-core" ] || [ ! -d "$here/tests/browser/node_modules/speedscope" ] ||
     [ ! -d "$here/tests/browser/node_modules/pprof-format" ] || [ ! -d "$here/tests/browser/node_modules/ajv" ]; then
    echo "deps: npm install (tests/browser)" >&2
    (cd "$here/tests/browser" && npm install --no-audit --no-fund --silent >&2) ||
      echo "deps: npm install failed; the browser test will be skipped" >&2
  fi
fi
