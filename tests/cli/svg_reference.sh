#!/usr/bin/env bash
# svg_reference.sh — `gpuflame svg` against flamegraph.pl's own output on the
# shared corpus (reference-flamegraph.pl/RUNS.tsv: input, options, expected
# SVG), compared structurally with tools/svgframes.py (stack path -> weight),
# and the frame colours (name -> fill) where they are deterministic.
# Where flamegraph.pl has a known bug (docs/svg.md, "Differences") we assert
# our correct result instead.
. "$(dirname "$0")/lib.sh"
need_shared svg-reference || exit 0
C=$GF_SHARED/corpus/flamegraph
R=$C/reference-flamegraph.pl
SF=$GF_SHARED/tools/svgframes.py
[ -f "$SF" ] || { skip svg-reference "svgframes.py absent"; exit 0; }

exact="deep-3000 diff-small duplicate-lines empty-frames odd-counts semicolon-in-name
sibling-split diff-small-negate wide-5000-minwidth0 deep-3000-inverted cycles-diff
cycles-diff-negate flamechart-hash java-colors-java-hash js-colors-js-hash
async-profiler-colors-java-hash example-perf-default example-perf-java-hash
grey-frames-hash narrow-blocks-hash bad-lines"
filtered="vertx-default vertx-hash-minwidth0.01pct vertx-inverted-hash vertx-reverse-hash
vertx-colors-mem vertx-colors-io-random vertx-bgcolors-flat vertx-total-1000 wide-5000"

CMP=tests/gen/svg_compare.py
: >"$T/list"
while IFS= read -r line; do
  out=$(printf '%s' "$line" | cut -f1); in=$(printf '%s' "$line" | cut -f2)
  opts=$(printf '%s' "$line" | cut -f3)
  [ "$out" = out ] && continue
  name=$(basename "$out" .svg)
  case " $(echo $exact) " in *" $name "*) kind=exact;; *)
  case " $(echo $filtered) " in *" $name "*) kind=filtered;; *) continue;; esac;; esac
  # shellcheck disable=SC2086
  (cd "$C" && "$GF" svg $opts "$in") >"$T/$name.svg" 2>"$T/err"; rc=$?
  if [ $rc -ne 0 ]; then fail "svg-ref-$name" "exit $rc: $(head -c 300 "$T/err")"; continue; fi
  case "$opts" in *--random*) fl=no;; *) fl=yes;; esac
  printf 'svg-ref-%s\t%s\t%s\t%s\t%s\n' "$name" "$kind" "$T/$name.svg" "$R/$out" "$fl" >>"$T/list"
done <"$R/RUNS.tsv"
python3 "$CMP" "$SF" "$T/list" || fail svg-ref-compare-list "svg_compare.py failed"

V=jonhoo-inferno/tests/data/flamegraph/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt
# options with blanks and markup (flamegraph.pl writes them unescaped: its SVG is not XML)
(cd "$C" && "$GF" svg --title 'T <&> "q"' --subtitle 'sub <&>' --notes 'n &' --countname bytes \
  --nametype Frame: "$V") >"$T/tsn.svg" 2>"$T/err"; rc=$?
expect_rc svg-ref-title-options 0
printf 'svg-ref-title-paths\tfiltered\t%s\t%s\tyes\n' "$T/tsn.svg" "$R/fixtures/vertx-default.svg" >"$T/tlist"
expect_grep svg-ref-title-escaped '<text id="title" x="600.00" y="24">T &lt;&amp;&gt; &quot;q&quot;</text>' "$T/tsn.svg"
expect_grep svg-ref-subtitle-escaped '>sub &lt;&amp;&gt;</text>' "$T/tsn.svg"
expect_grep svg-ref-notes '<!-- NOTES: n &amp; -->' "$T/tsn.svg"
expect_grep svg-ref-countname '\(38 bytes, 13.29%\)' "$T/tsn.svg"
expect_grep svg-ref-nametype 'nametype: "Frame:"' "$T/tsn.svg"
(cd "$C" && "$GF" svg --width 600 --height 24 --fontsize 10 --fonttype 'DejaVu Sans' "$V") >"$T/w.svg" 2>"$T/err"
printf 'svg-ref-width-font\tfiltered\t%s\t%s\tyes\n' "$T/w.svg" "$R/fixtures/vertx-width600-height24-font.svg" >>"$T/tlist"
python3 "$CMP" "$SF" "$T/tlist" || fail svg-ref-compare-tlist "svg_compare.py failed"
expect_grep svg-ref-width-font-height 'width="600" height="[0-9]+"' "$T/w.svg"
expect_grep svg-ref-font 'font-family:DejaVu Sans; font-size:10px' "$T/w.svg"

# ---- inferno's fixtures (TESTS.md; inferno prunes at 0.01 %) ----
I=jonhoo-inferno/tests/data
inferno_case() { # name expected input... -- options...
  local name=$1 exp=$2; shift 2
  local args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  (cd "$C" && "$GF" svg --minwidth 0.01% "$@" "${args[@]}") >"$T/$name.svg" 2>"$T/err" ||
    { fail "svg-inferno-$name" "exit: $(head -c 300 "$T/err")"; return; }
  printf 'svg-inferno-%s\tfiltered\t%s\t%s\tno\n' "$name" "$T/$name.svg" "$C/$exp" >>"$T/ilist"
}
: >"$T/ilist"
D=$I/flamegraph/differential/perf-cycles-instructions-01-collapsed-all-diff.txt
inferno_case differential $I/flamegraph/differential/diff.svg "$D"
inferno_case differential-negated $I/flamegraph/differential/diff-negated.svg "$D" -- --negate
inferno_case multiple-inputs $I/flamegraph/perf-vertx-stacks/perf-vertx-stacks-01-collapsed-all.svg \
  $I/flamegraph/multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-1.txt \
  $I/flamegraph/multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-2.txt -- --hash
inferno_case narrow-blocks $I/flamegraph/narrow-blocks/narrow-blocks.svg \
  $I/flamegraph/narrow-blocks/narrow-blocks.txt -- --hash
inferno_case grey-frames $I/flamegraph/grey-frames/grey-frames.svg $I/flamegraph/grey-frames/grey-frames.txt -- --hash
inferno_case example-perf-stacks $I/flamegraph/example-perf-stacks/example-perf-stacks.svg \
  $I/collapse-perf/results/example-perf-stacks-collapsed.txt
inferno_case async-profiler-java $I/flamegraph/colors/async-profiler-java.svg \
  $I/flamegraph/colors/async-profiler-collapsed-part.txt -- --colors java --hash
inferno_case title-with-symbols $I/flamegraph/options/title_with_symbols.svg "$D" -- --title "Test <& ' \""
# inferno's own options (issue 26): --deterministic and --colordiffusion frame
# by frame with the colours; --base (the test sets the title "Flame Chart")
inferno_fill_case() { # name expected input -- options
  inferno_case "$@"
  sed -i '$ s/\tno$/\tyes/' "$T/ilist"
}
inferno_fill_case deterministic $I/flamegraph/colors/deterministic.svg \
  $I/flamegraph/colors/async-profiler-collapsed-part.txt -- --deterministic
# (inferno's copy of perf-vertx: the two multiple-inputs parts, 286 samples)
inferno_fill_case colordiffusion $I/flamegraph/options/colordiffusion.svg \
  $I/flamegraph/multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-1.txt \
  $I/flamegraph/multiple-inputs/perf-vertx-stacks-01-collapsed-all-unsorted-2.txt -- --colordiffusion
# --base: inferno drops a stack whose only match is its root frame (its cursor
# reaches 0 either way); gpuflame keeps it (docs/svg.md): those stacks are taken
# out of the input first
base_input() { # out sym...
  local out=$1; shift
  python3 - "$C/$I/flamegraph/base/flames.txt" "$out" "$@" <<'PY'
import sys
src, out, base = sys.argv[1], sys.argv[2], set(sys.argv[3:])
keep = []
for line in open(src):
    stack = line.rstrip("\n").rsplit(" ", 1)[0].split(";")
    inner = [i for i, f in enumerate(stack[:-1]) if f in base]
    if not inner or inner[-1] > 0:
        keep.append(line)
open(out, "w").writelines(keep)
PY
}
base_input "$T/base1.txt" Final
base_input "$T/base2.txt" Final Samples
inferno_case base-single $I/flamegraph/base/single-base.svg "$T/base1.txt" -- --base Final --title "Flame Chart"
inferno_case base-multi $I/flamegraph/base/multi-base.svg "$T/base2.txt" -- --base Final --base Samples \
  --title "Flame Chart"
python3 "$CMP" "$SF" "$T/ilist" || fail svg-ref-compare-ilist "svg_compare.py failed"
expect_grep svg-inferno-title-escaped '>Test &lt;&amp; &#39; &quot;</text>' "$T/title-with-symbols.svg"

# ---- flamegraph.pl bugs: we assert our (correct) result ----
E=$C/edge-cases
# sibling split: flamegraph.pl draws b twice under a; we draw it once
"$GF" svg "$E/sibling-split.folded" >"$T/ss.svg" 2>/dev/null
n=$(python3 "$SF" frames "$T/ss.svg" | awk -F'\t' '$1==2 && $5=="b"' | wc -l)
expect_eq svg-bug-sibling-split-once "$n" 1
n=$(python3 "$SF" frames "$R/edge-cases/sibling-split.svg" | awk -F'\t' '$1==2 && $5=="b"' | wc -l)
expect_eq svg-bug-sibling-split-reference-twice "$n" 2
# comment lines are not frames
"$GF" svg "$E/comments-and-blank.folded" >"$T/cb.svg" 2>/dev/null
expect_nogrep svg-bug-comments-not-frames '<title># ' "$T/cb.svg"
(cd "$C" && "$GF" svg jonhoo-inferno/tests/data/flamegraph/austin/flames.txt) >"$T/au.svg" 2>/dev/null
expect_nogrep svg-bug-austin-header-not-frames '<title># ' "$T/au.svg"
# CRLF input renders like LF input (flamegraph.pl: "No stack counts found")
gf svg "$E/crlf.folded"; expect_rc svg-bug-crlf-ok 0
tr -d '\r' <"$E/crlf.folded" >"$T/lf.folded"; "$GF" svg "$T/lf.folded" >"$T/lf.svg"
expect_same svg-bug-crlf-same-as-lf "$T/out" "$T/lf.svg"
# decimal counts: exact weights and percentages (flamegraph.pl: "a (4 samples, 94.12%)")
"$GF" svg "$E/decimal-counts.folded" >"$T/dc.svg"
expect_grep svg-bug-decimal-exact '<title>a \(4.25 samples, 100.00%\)</title>' "$T/dc.svg"
# huge counts: exact (flamegraph.pl: 239,807,672,958,951,488)
"$GF" svg "$E/huge-counts.folded" >"$T/hc.svg"
expect_grep svg-bug-huge-exact '239,807,672,958,951,499 samples' "$T/hc.svg"
# ESC and invalid UTF-8 in names: well-formed XML (flamegraph.pl copies ESC raw)
"$GF" svg "$E/xml-escape-unicode.folded" >"$T/xe.svg"
if python3 -c 'import sys,xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$T/xe.svg" 2>"$T/perr"; then
  pass svg-bug-xml-well-formed; else fail svg-bug-xml-well-formed "$(cat "$T/perr")"; fi
if python3 -c 'import sys,xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$R/edge-cases/xml-escape-unicode.svg" 2>/dev/null; then
  fail svg-bug-xml-reference-broken "reference parses now?"; else pass svg-bug-xml-reference-broken; fi
# fractional samples: the root is the exact sum of the input's counts
F=jonhoo-inferno/tests/data/flamegraph/fractional-samples/fractional.txt
(cd "$C" && "$GF" svg "$F") >"$T/fr.svg"
sum=$(cd "$C" && python3 -c 'import sys,decimal
s=sum(decimal.Decimal(l.rsplit(None,1)[1]) for l in open(sys.argv[1]) if l.strip())
print(format(s.normalize(),",f"))' "$F")
expect_grep svg-bug-fractional-exact "<title>all \\($sum samples, 100%\\)</title>" "$T/fr.svg"
# --factor 2.5: exact products (flamegraph.pl rounds them half-even)
(cd "$C" && "$GF" svg --hash --factor 2.5 --minwidth 0.01% "$V") >"$T/f25.svg"
expect_grep svg-bug-factor-exact '<title>read \(2.5 samples, 0.35%\)</title>' "$T/f25.svg"
# empty input: no SVG at all and exit 1 (flamegraph.pl writes an error SVG, exit 2)
(cd "$C" && "$GF" svg jonhoo-inferno/tests/data/flamegraph/empty/empty.txt -o "$T/empty.svg") 2>"$T/err"; rc=$?
expect_rc svg-bug-empty-exit1 1
if [ -e "$T/empty.svg" ]; then fail svg-bug-empty-no-file "file written"; else pass svg-bug-empty-no-file; fi
exit 0
