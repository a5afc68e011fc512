#!/usr/bin/env bash
# json_schemas.sh — every JSON output validates against its JSON Schema
# under docs/schema/ (issue 17), with Debian's python3-jsonschema (Draft
# 2020-12; scripts/deps.sh test installs it, SKIP without): info, report
# (one trace, and several ranks: ranks.schema.json), the rank summaries of
# summarise (summary.schema.json), syncs (trace, py-spy folded, several inputs
# as an array) and top, over every trace of the corpus, generated traces and
# the golden JSON files; store list, show and trend --json over a SQLite store. A schema that accepts anything fails the negative
# checks: a changed version, a missing field, an unknown field, a wrong type.
. "$(dirname "$0")/lib.sh"
GFR=${GF_REL:-}; [ -x "$GFR" ] || GFR=$GF
V=tests/gen/validate_json.py
S=docs/schema
python3 -c 'import jsonschema' 2>/dev/null || { skip json-schemas "python3-jsonschema not installed (scripts/deps.sh test installs it)"; exit 0; }
mkdir -p "$T/j"
n=0
run() { # NAME CMD ARGS...: the JSON output of gpuflame CMD ARGS into $T/j/NAME.json when it succeeds
  local name=$1; shift
  "$GFR" "$@" >"$T/j/$name.json" 2>/dev/null || rm -f "$T/j/$name.json"
}
python3 tests/gen/gen_decode.py --variant sync --steps 4 --layers 1 -o "$T/g1.json" || fail gen "generator failed"
python3 tests/gen/gen_decode.py --variant graph --steps 3 --layers 1 -o "$T/g2.json" || fail gen "generator failed"
traces=("$T/g1.json" "$T/g2.json" examples/decode-sync.json.gz)
if [ -n "$GF_SHARED" ] && [ -d "$GF_SHARED/corpus/traces" ]; then
  while IFS= read -r f; do traces+=("$f"); done < <(find "$GF_SHARED/corpus/traces" -name '*.json' -o -name '*.json.gz' -o -name '*.json.zst' | sort)
else
  skip corpus-traces "../shared absent: generated traces only"
fi
for f in "${traces[@]}"; do
  n=$((n + 1))
  run "info.$n" info --format json "$f"
  run "report.$n" report --format json "$f"
  run "syncs.$n" syncs --format json "$f"
  run "top.$n" top --format json <("$GFR" fold "$f" 2>/dev/null)
done
expect_eq traces-read "$(ls "$T"/j/report.*.json | wc -l)" "$(ls "$T"/j/info.*.json | wc -l)"
run info.many info --format json "$T/g1.json" "$T/g2.json"
python3 tests/gen/gen_decode.py --variant tp --rank 0 --steps 3 --layers 1 -o "$T/tp0.json" || fail gen "generator failed"
python3 tests/gen/gen_decode.py --variant tp --rank 1 --steps 3 --layers 1 -o "$T/tp1.json" || fail gen "generator failed"
run report.ranks report --format json "$T/tp0.json" "$T/tp1.json"
# many ranks (gpuflame.ranks/1) and their summaries (gpuflame.summary/1): two
# process groups (bench/gen_trace.c), a trace without groups, the corpus
cc -O2 -o "$T/gen_trace" bench/gen_trace.c || fail gen "bench/gen_trace.c does not build"
for r in 0 1 2 3; do "$T/gen_trace" 100 1 --rank "$r" --world 4 --pg 2 --steps 3 >"$T/pg$r.json"; done
run ranks.pg2 report --format json "$T"/pg?.json
# every trace report reads (report.N) summarises
k=0 unsummarised=
for f in "${traces[@]}"; do
  k=$((k + 1))
  [ -s "$T/j/report.$k.json" ] || continue
  "$GFR" summarise "$f" -o "$T/j/summary.$k.json" 2>/dev/null || unsummarised="$unsummarised $f"
done
expect_eq summarise-every-trace "$unsummarised" ""
for f in "$T"/pg?.json; do "$GFR" summarise "$f" -o "$T/j/summary.$(basename "$f")" 2>/dev/null; done
"$GFR" summarise --no-flames "$T/pg0.json" -o "$T/j/summary.noflames.json" 2>/dev/null
printf 'main (engine.py:10);step (engine.py:251);item (torch/_tensor.py:9);cudaStreamSynchronize (libcudart.so) 7\nmain (engine.py:10) 93\n' >"$T/pyspy.folded"
run syncs.folded syncs --format json "$T/pyspy.folded"
run syncs.many syncs --format json "$T/g1.json" "$T/pyspy.folded"
run top.pyspy top --format json "$T/pyspy.folded"
for f in $(find "${GF_SHARED:-/nonexistent}/corpus/flamegraph" -name '*.folded' -o -name '*.txt' 2>/dev/null | grep -v SOURCES | sort | head -40); do
  n=$((n + 1)); run "top.$n" top --allow-ranks --format json "$f"
done
check() { # name schema files...
  local name=$1 schema=$2; shift 2
  python3 "$V" "$schema" "$@" >"$T/v" 2>&1
  expect_grep "$name" "^ok [1-9][0-9]*$" "$T/v"
}
check info-valid "$S/info.schema.json" "$T"/j/info.*.json tests/golden/*/info.json
check report-valid "$S/report.schema.json" "$T"/j/report.*.json "$T"/j/ranks.*.json tests/golden/*/report*.json
check ranks-valid "$S/ranks.schema.json" "$T"/j/ranks.*.json "$T/j/report.ranks.json" tests/golden/*/report-ranks.json
check summary-valid "$S/summary.schema.json" "$T"/j/summary.*.json
check syncs-valid "$S/syncs.schema.json" "$T"/j/syncs.*.json tests/golden/*/syncs.json
check top-valid "$S/top.schema.json" "$T"/j/top.*.json tests/golden/folded/top.json
# store list/show/trend --json (a SQLite file of two releases: traces and a py-spy folded file)
db="$T/store.db"
"$GFR" store add --db "$db" --release v1 --label batch=32 "$T/g1.json" >/dev/null 2>&1 || fail store-add "store add failed"
"$GFR" store add --db "$db" --release v2 "$T/g2.json" >/dev/null 2>&1 || fail store-add "store add failed"
"$GFR" store add --db "$db" --release v2 "$T/pyspy.folded" >/dev/null 2>&1 || fail store-add "store add (folded) failed"
run store_list.1 store list --db "$db" --json
run store_list.2 store list --db "$db" --release v2 --json
run store_show.1 store show --db "$db" --json 1
run store_show.3 store show --db "$db" --json 3
run store_trend.1 store trend --db "$db" --metric step_wall --json
run store_trend.2 store trend --db "$db" --metric weight.gpu --json
check store-list-valid "$S/store_list.schema.json" "$T"/j/store_list.*.json
check store-show-valid "$S/store_show.schema.json" "$T"/j/store_show.*.json
check store-trend-valid "$S/store_trend.schema.json" "$T"/j/store_trend.*.json
expect_grep store-show-folded-kind '"kind": "folded"' "$T/j/store_show.3.json"
expect_grep report-ranks-made '"schema": "gpuflame.ranks/1"' "$T/j/report.ranks.json"
expect_grep syncs-many-is-array '^\[' "$T/j/syncs.many.json"

# negative checks: each schema refuses what it must
mutate() { # in out python-expression-on-d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[3]); json.dump(d, open(sys.argv[2], "w"))' "$1" "$2" "$3"
}
refuse() { # name schema file
  python3 "$V" "$2" "$3" >"$T/v" 2>&1; local r=$?
  if [ "$r" -eq 1 ]; then pass "$1"; else fail "$1" "accepted (rc $r): $(head -c 200 "$T/v")"; fi
}
mutate "$T/j/info.1.json" "$T/bad1.json" 'd["gpuflame_info"] = 2'
refuse info-refuses-version "$S/info.schema.json" "$T/bad1.json"
mutate "$T/j/info.1.json" "$T/bad2.json" 'del d["traces"][0]["events"]'
refuse info-refuses-missing "$S/info.schema.json" "$T/bad2.json"
mutate "$T/j/report.1.json" "$T/bad3.json" 'd["schema"] = "gpuflame.report/1"'
refuse report-refuses-version "$S/report.schema.json" "$T/bad3.json"
mutate "$T/j/report.1.json" "$T/bad4.json" 'd["surprise"] = 1'
refuse report-refuses-unknown "$S/report.schema.json" "$T/bad4.json"
mutate "$T/j/report.1.json" "$T/bad5.json" 'd["steps"][0]["wall_us"] = "12"'
refuse report-refuses-type "$S/report.schema.json" "$T/bad5.json"
mutate "$T/j/syncs.folded.json" "$T/bad6.json" 'd["samples"] = -0.5 if False else "many"'
refuse syncs-refuses-type "$S/syncs.schema.json" "$T/bad6.json"
mutate "$T/j/top.pyspy.json" "$T/bad7.json" 'del d["schema"]'
refuse top-refuses-unversioned "$S/top.schema.json" "$T/bad7.json"
mutate "$T/j/store_list.1.json" "$T/bad8.json" 'd[0]["run"] = "1"'
refuse store-list-refuses-type "$S/store_list.schema.json" "$T/bad8.json"
mutate "$T/j/store_show.1.json" "$T/bad9.json" 'del d["metrics"]'
refuse store-show-refuses-missing "$S/store_show.schema.json" "$T/bad9.json"
mutate "$T/j/store_trend.1.json" "$T/bad10.json" 'd["releases"][0]["extra"] = 1'
refuse store-trend-refuses-unknown "$S/store_trend.schema.json" "$T/bad10.json"
mutate "$T/j/ranks.pg2.json" "$T/bad11.json" 'd["schema"] = "gpuflame.ranks/2"'
refuse ranks-refuses-version "$S/ranks.schema.json" "$T/bad11.json"
refuse report-refuses-ranks-version "$S/report.schema.json" "$T/bad11.json"
mutate "$T/j/ranks.pg2.json" "$T/bad12.json" 'd["groups"][0]["waited_us"] = "7"'
refuse ranks-refuses-type "$S/ranks.schema.json" "$T/bad12.json"
mutate "$T/j/ranks.pg2.json" "$T/bad13.json" 'del d["per_rank"][0]["step_wall_us"]'
refuse ranks-refuses-missing "$S/ranks.schema.json" "$T/bad13.json"
mutate "$T/j/summary.pg0.json" "$T/bad14.json" 'd["schema"] = "gpuflame.summary/2"'
refuse summary-refuses-version "$S/summary.schema.json" "$T/bad14.json"
mutate "$T/j/summary.pg0.json" "$T/bad15.json" 'd["report"]["summary"]["syncs"] = "0"'
refuse summary-refuses-bad-report "$S/summary.schema.json" "$T/bad15.json"
mutate "$T/j/summary.pg0.json" "$T/bad16.json" 'd["collectives"]["seq"][0] = "1"'
refuse summary-refuses-type "$S/summary.schema.json" "$T/bad16.json"
mutate "$T/j/summary.pg0.json" "$T/bad17.json" 'd["surprise"] = 1'
refuse summary-refuses-unknown "$S/summary.schema.json" "$T/bad17.json"
exit 0
