#!/usr/bin/env bash
# svg_pruned.sh — the fast path for named files (stacks/ftrie.h: a
# tail-compressed trie, only the drawable part materialised) renders exactly
# the same bytes as the whole call tree (--full-tree), on random profiles with
# many options, the corpus, differential input (falls back) and several files.
. "$(dirname "$0")/lib.sh"

python3 - "$T" <<'PY'
import random, sys
d = sys.argv[1]
rng = random.Random(7)
names = ["f%d" % i for i in range(60)] + ["", "a b", "x<y>", "k_[k]"]
def stack():
    n = rng.randint(1, 12)
    s = [rng.choice(names[:8])]
    for _ in range(n - 1):
        s.append(rng.choice(names) if rng.random() < 0.3 else "g%d" % rng.randint(0, 3))
    return ";".join(s)
with open(d + "/r1.folded", "w") as f:
    for _ in range(3000):
        f.write("%s %d\n" % (stack(), rng.randint(1, 50)))
    f.write("bad line\n# comment\n\n")
with open(d + "/r2.folded", "w") as f:
    for _ in range(1500):
        f.write("%s %s\n" % (stack(), rng.choice(["1", "2.5", "0.125", "7"])))
    f.write("f1;f2; 3\n")
PY
same() { # name args...
  local name=$1; shift
  "$GF" svg "$@" >"$T/fast.svg" 2>"$T/fast.err"; local r1=$?
  "$GF" svg --full-tree "$@" >"$T/full.svg" 2>"$T/full.err"; local r2=$?
  if [ $r1 -ne $r2 ]; then fail "$name" "exit $r1 vs $r2"; return; fi
  if cmp -s "$T/fast.svg" "$T/full.svg" && cmp -s "$T/fast.err" "$T/full.err"; then pass "$name"
  else fail "$name" "$(diff "$T/fast.svg" "$T/full.svg" | head -5 | tr '\n' '|') $(head -c 200 "$T/fast.err")"; fi
}
same svg-pruned-random "$T/r1.folded"
same svg-pruned-random-minwidth0 --minwidth 0 "$T/r1.folded"
same svg-pruned-random-minwidth5 --minwidth 5 "$T/r1.folded"
same svg-pruned-random-pct --minwidth 1% "$T/r1.folded"
same svg-pruned-random-total --total 1000000 "$T/r1.folded"
same svg-pruned-random-reverse --reverse "$T/r1.folded"
same svg-pruned-random-inverted-hash --inverted --hash --width 300 "$T/r1.folded"
same svg-pruned-decimals-rescale "$T/r2.folded"
same svg-pruned-two-files "$T/r1.folded" "$T/r2.folded"
same svg-pruned-strict --strict "$T/r1.folded"
printf 'main;foo 1 2\nmain;foo;bar 0 4\nmain;baz 5 1\n' >"$T/d.folded"
same svg-pruned-diff-fallback "$T/d.folded"
grep -q 'rgb(255,0,0)' "$T/fast.svg" && pass svg-pruned-diff-colours || fail svg-pruned-diff-colours ""
: >"$T/empty.folded"
same svg-pruned-empty "$T/empty.folded"
if need_shared svg-pruned-corpus; then
  C=$GF_SHARED/corpus/flamegraph
  for f in jonhoo-inferno/tests/data/collapse-perf/results/example-perf-stacks-collapsed.txt \
           jonhoo-inferno/tests/data/flamegraph/unsorted-input/perf-vertx-stacks-01-collapsed-all-unsorted.txt \
           edge-cases/empty-frames.folded edge-cases/whitespace-separators.folded \
           edge-cases/deep-3000.folded edge-cases/wide-5000.folded edge-cases/huge-counts.folded \
           edge-cases/xml-escape-unicode.folded edge-cases/crlf.folded; do
    same "svg-pruned-corpus-$(basename "$f")" "$C/$f"
  done
fi
exit 0
