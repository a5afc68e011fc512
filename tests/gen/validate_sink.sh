#!/usr/bin/env bash
# validate_sink.sh DIR — the JSON outputs the CLI tests kept in DIR (tests/cli/lib.sh, GF_JSON_SINK),
# named CMD.*.json, each validated against docs/schema/CMD.schema.json (tests/gen/validate_json.py).
# One PASS/FAIL line per command; SKIP without python3-jsonschema.
dir=$1
python3 -c 'import jsonschema' 2>/dev/null || { echo "SKIP json-outputs: python3-jsonschema not installed"; exit 0; }
for c in info report syncs top; do
  files=("$dir"/"$c".*.json)
  [ -e "${files[0]}" ] || { echo "SKIP json-outputs-$c: no $c JSON output kept"; continue; }
  if out=$(python3 tests/gen/validate_json.py "docs/schema/$c.schema.json" "${files[@]}" 2>&1); then
    echo "PASS json-outputs-$c: $out"
  else
    echo "FAIL json-outputs-$c: $(printf '%s' "$out" | head -c 1500)"
  fi
done
