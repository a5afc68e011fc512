#!/usr/bin/env bash
# tests/check_gaps.sh — the gap model's scenarios of the fast tier: each trace of tests/data/in/
# that has a <name>.expect.json written by tests/gen/gen_gaps.py (the per-step split of the idle
# time into causes, the steady means, the verdict cause and the named keys, worked out by hand
# from the scenario's timeline). `gpuflame report --format json` of each, then one run of
# tests/gen/gapmodel.py --batch: the independent model against the expected answers
# ("gapmodel-py-<name>") and the report against the model ("gap-scenario-<name>").
# tests/cli/gap_model.sh runs the same scenarios freshly generated, and the corpus, in the full suite.
. "$(dirname "$0")/cli/lib.sh"
names=
for e in tests/data/in/*.expect.json; do
	base=$(basename "$e" .expect.json)
	case $base in twodev | legacy*) continue ;; esac # their answers are other scripts' (report_device.sh, legacy_torch.sh)
	[ -f "tests/data/in/$base.json" ] || continue
	cp "tests/data/in/$base.json" "$e" "$T/"
	"$GF" report --format json "$T/$base.json" >"$T/$base.report.json" 2>"$T/$base.err" ||
		fail "gap-scenario-$base" "report failed: $(head -c 300 "$T/$base.err")"
	names="$names $base"
done
[ -n "$names" ] || { fail gap-scenarios "no scenario under tests/data/in"; exit 0; }
# shellcheck disable=SC2086
python3 tests/gen/gapmodel.py --batch "$T" $names >"$T/batch" 2>&1 || fail gap-scenarios "$(tail -c 300 "$T/batch")"
for s in $names; do
	expect_eq "gapmodel-py-$s" "$(awk -v n="$s" '$1 == "model" && $2 == n { sub(/^[^ ]+ [^ ]+ /, ""); print }' "$T/batch")" "ok"
	expect_eq "gap-scenario-$s" "$(awk -v n="$s" '$1 == "report" && $2 == n { sub(/^[^ ]+ [^ ]+ /, ""); print }' "$T/batch")" "ok"
done
