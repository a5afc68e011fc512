#!/usr/bin/env bash
# jfast_cases.sh — tests/unit/jfast_cases.h (the expected values of test_jfast) is what
# tests/gen/jfast_cases.py computes now.
set -u
cd "$(dirname "$0")/../.." && python3 tests/gen/jfast_cases.py --check tests/unit/jfast_cases.h
