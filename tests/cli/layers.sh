#!/usr/bin/env bash
# layers.sh — the dependency rules of src/README.md, checked against every #include under src/.
set -u
python3 "$(dirname "$0")/../gen/layers.py" .
