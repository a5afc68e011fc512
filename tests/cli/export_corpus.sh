#!/usr/bin/env bash
# export_corpus.sh — exports stay exact (issue 26): on every corpus trace, `export --to pprof`'s
# per-type totals (read by tests/gen/pprof_totals.py, a decoder of its own) equal the totals of
# `fold -w TYPE --unit ns` of the same trace, for gpu, cpu, wall, idle and calls.
. "$(dirname "$0")/lib.sh"
need_shared export-corpus-all || exit 0
n=0 bad=0
while IFS= read -r f; do
  n=$((n + 1))
  want=""
  for w in gpu cpu wall idle calls; do
    s=$("$GF" fold -q -w $w --unit ns "$f" 2>/dev/null | python3 tests/gen/pprof_totals.py --folded)
    want="$want${want:+ }$w=${s:-0}"
  done
  if ! "$GF" export -q --to pprof -w gpu,cpu,wall,idle,calls -o "$T/x.pb.gz" "$f" 2>"$T/err"; then
    if [ "$want" != "gpu=0 cpu=0 wall=0 idle=0 calls=0" ]; then
      fail "export-corpus-${f#"$GF_SHARED"/}" "export failed, the folds have $want: $(head -c 200 "$T/err")"; bad=$((bad + 1))
    fi
    continue
  fi
  got=$(python3 tests/gen/pprof_totals.py "$T/x.pb.gz")
  if [ "$got" != "$want" ]; then
    fail "export-corpus-${f#"$GF_SHARED"/}" "pprof $got, folds $want"; bad=$((bad + 1))
  fi
done < <(find "$GF_SHARED/corpus/traces" \( -name '*.json' -o -name '*.json.gz' \) | sort | head -n "${EXPORT_CORPUS_MAX:-1000}")
if [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]; then pass "export-corpus-all ($n traces: every type's total equals fold --unit ns)"
elif [ "$n" -eq 0 ]; then fail export-corpus-all "no corpus trace found"; fi
exit 0
