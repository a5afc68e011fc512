#!/usr/bin/env bash
# top_basic.sh — `gpuflame top`: known answers on a hand-made profile
# (recursion counted once per stack, stack counts, exact decimals), every
# format and sort, --limit, the 100-column text layout, escaping, errors.
. "$(dirname "$0")/lib.sh"

printf 'main;f;f;f 5\nmain;mm 30\nmain;mm;gemm 70\nmain;f;g;f 2\n' >"$T/p.folded"
gf top --format tsv "$T/p.folded"
expect_rc top-tsv 0
expect_eq top-tsv-header "$(head -1 "$T/out")" "$(printf 'self\tself_pct\ttotal\ttotal_pct\tstacks\tname')"
expect_eq top-tsv-gemm "$(grep 'gemm$' "$T/out")" "$(printf '70\t65.42\t70\t65.42\t1\tgemm')"
expect_eq top-tsv-mm "$(grep '	mm$' "$T/out")" "$(printf '30\t28.04\t100\t93.46\t2\tmm')"
expect_eq top-tsv-f-recursive "$(grep '	f$' "$T/out")" "$(printf '7\t6.54\t7\t6.54\t2\tf')"
expect_eq top-tsv-main "$(grep 'main$' "$T/out")" "$(printf '0\t0.00\t107\t100.00\t4\tmain')"
expect_eq top-sort-self "$(cut -f6 "$T/out" | tail -n +2 | tr '\n' ' ')" "gemm mm f main g "
gf top --format tsv --sort total "$T/p.folded"
expect_eq top-sort-total "$(cut -f6 "$T/out" | tail -n +2 | tr '\n' ' ')" "main mm gemm f g "
gf top --format tsv --sort name --limit 2 "$T/p.folded"
expect_eq top-sort-name-limit "$(cut -f6 "$T/out" | tail -n +2 | tr '\n' ' ')" "f g "

gf top "$T/p.folded"
expect_grep top-text-header '^total 107 samples in 4 stacks$' "$T/out"
expect_grep top-text-row '^ +70 +65.42 +70 +65.42 +1  gemm$' "$T/out"
gf top --format md "$T/p.folded"
expect_grep top-md '^\| 30 \| 28.04 \| 100 \| 93.46 \| 2 \| mm \|$' "$T/out"
gf top --format json "$T/p.folded"
expect_rc top-json 0
python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
assert d["total"]==107 and d["stacks"]==4, d
r={f["name"]:f for f in d["frames"]}
assert r["f"]["total"]==7 and r["f"]["stacks"]==2 and r["mm"]["self"]==30, r
' "$T/out" && pass top-json-values || fail top-json-values "$(head -c 300 "$T/out")"

# exact decimals, metadata unit
printf '# gpuflame: unit=ms;\na;b 0.1\na;b 0.2\na 1.25\n' >"$T/d.folded"
gf top --format tsv "$T/d.folded"
expect_eq top-decimal-exact "$(grep '	b$' "$T/out")" "$(printf '0.3\t19.35\t0.3\t19.35\t1\tb')"
gf top "$T/d.folded"
expect_grep top-unit-from-meta '^total 1.55 ms in 2 stacks$' "$T/out"

# long and hostile names: text fits 100 columns, cut with an ellipsis; escaped
python3 -c 'print("main;" + "x"*300 + " 5"); print("main;esc\x1b[31m;t<a>|b 2")' >"$T/long.folded"
gf top "$T/long.folded"
w=$(python3 -c 'import sys; print(max(len(l) for l in open(sys.argv[1], encoding="utf-8").read().splitlines()))' "$T/out")
[ "$w" -le 100 ] && pass top-text-100-cols || fail top-text-100-cols "width $w"
expect_grep top-text-ellipsis 'xxx…$' "$T/out"
expect_grep top-text-esc 'esc\\x1B\[31m' "$T/out"
gf top --format md "$T/long.folded"
expect_grep top-md-escaped 't&lt;a(>|&gt;)\\\|b' "$T/out"
gf top --format json "$T/long.folded"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(len(f["name"])==300 for f in d["frames"])' "$T/out" \
  && pass top-json-full-names || fail top-json-full-names ""

# errors
: >"$T/empty.folded"
gf top "$T/empty.folded"; expect_rc top-empty 1
gf top --format xml "$T/p.folded"; expect_rc top-bad-format 2
gf top --limit -3 "$T/p.folded"; expect_rc top-bad-limit 2
gf top --help; expect_rc top-help 0
exit 0
