#!/usr/bin/env bash
# info_corpus.sh — differential check of the trace reader on the real corpus.
#
# For every Chrome/Kineto trace under $GF_SHARED/corpus/traces, `gpuflame info
# --format json` must read it without error and report the same event count,
# counts per phase and per raw `cat` string, and truncation flag as an
# independent parser (tests/gen/count_events.py, Python's json). Non-trace
# auxiliary JSON (TraceLens execution_details.json) must give our clean
# "not a trace" error (exit 1, one line, byte offset). SKIPs without ../shared.
. "$(dirname "$0")/lib.sh"
need_shared "info-corpus" || exit 0
n=0
while IFS= read -r f; do
  rel=${f#"$GF_SHARED"/corpus/traces/}
  case "$(basename "$f")" in
    execution_details.json)
      gf info --format json "$f"
      expect_rc "info-corpus-aux-$rel" 1
      expect_grep "info-corpus-aux-msg-$rel" "byte [0-9]+.*not a Chrome/Kineto trace" "$T/err"
      continue ;;
  esac
  n=$((n + 1))
  gf info --format json "$f"
  if [ "$rc" -ne 0 ]; then fail "info-corpus-$rel" "exit $rc: $(head -c 300 "$T/err")"; continue; fi
  python3 tests/gen/count_events.py "$f" >"$T/py.json" 2>"$T/py.err" || { fail "info-corpus-$rel" "count_events.py failed: $(head -c 200 "$T/py.err")"; continue; }
  if python3 - "$T/out" "$T/py.json" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["traces"][0]
ref = json.load(open(sys.argv[2]))
bad = []
for k in ("events", "events_by_phase", "events_by_category", "truncated"):
    if ours[k] != ref[k]:
        bad.append("%s: ours %s, python %s" % (k, json.dumps(ours[k])[:300], json.dumps(ref[k])[:300]))
if bad:
    print("; ".join(bad))
    sys.exit(1)
PY
  then pass "info-corpus-$rel"; else fail "info-corpus-$rel" "$(python3 - "$T/out" "$T/py.json" 2>&1 | head -c 600)"; fi
done < <(find "$GF_SHARED/corpus/traces" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort)
if [ "$n" -ge 40 ]; then pass "info-corpus-count ($n traces)"; else fail "info-corpus-count" "only $n traces found"; fi
