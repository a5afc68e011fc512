#!/usr/bin/env bash
# fold_known.sh — `gpuflame fold` against the known answers of the decode-loop
# generator (tests/gen/gen_decode.py): every variant (sync, fixed, graph, tp,
# and sync with 19-digit absolute timestamps), every weight and several
# stack/step options, compared EXACTLY line by line; plus header keys,
# gzip input, stdin, and GPU-weight conservation.
. "$(dirname "$0")/lib.sh"
GEN=tests/gen/gen_decode.py

check_variant() { # label, generator args...
  local label=$1; shift
  python3 "$GEN" "$@" -o "$T/$label.json" --expect "$T/$label.exp.json" || { fail "$label-gen" "generator failed"; return; }
  # one file per fold key: args on line 1, expected lines after
  python3 - "$T/$label.exp.json" "$T/$label.k" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
for i, (k, lines) in enumerate(e["folds"].items()):
    with open("%s.%02d" % (sys.argv[2], i), "w") as fp:
        fp.write(k + "\n")
        fp.write("".join(l + "\n" for l in lines))
PY
  local f args
  for f in "$T/$label".k.*; do
    args=$(head -1 "$f")
    tail -n +2 "$f" >"$T/want"
    # shellcheck disable=SC2086
    gf fold $args "$T/$label.json"
    if [ "$rc" -ne 0 ]; then fail "$label: fold $args" "exit $rc: $(head -c 300 "$T/err")"; continue; fi
    grep -v '^# gpuflame:' "$T/out" >"$T/got"
    expect_same "$label: fold $args" "$T/got" "$T/want"
  done
}

check_variant sync --variant sync --seed 1
check_variant fixed --variant fixed --seed 2
check_variant graph --variant graph --seed 3
check_variant tp0 --variant tp --rank 0 --seed 4
check_variant tp1 --variant tp --rank 1 --seed 4
check_variant abs --variant sync --abs-ts --seed 5 --layers 3 --steps 4

# the generator is deterministic: same seed, same bytes; another seed differs
python3 "$GEN" --variant sync --seed 1 -o "$T/again.json" --expect "$T/again.exp.json"
expect_same "generator-deterministic-trace" "$T/again.json" "$T/sync.json"
expect_same "generator-deterministic-expect" "$T/again.exp.json" "$T/sync.exp.json"
python3 "$GEN" --variant sync --seed 9 -o "$T/other.json"
if cmp -s "$T/other.json" "$T/sync.json"; then fail "generator-seed" "seed 9 gave seed 1's trace"; else pass "generator-seed"; fi

# header
gf fold --label batch=4 --label dtype=bf16 "$T/tp1.json"
expect_rc "header-rc" 0
expect_grep "header-keys" '^# gpuflame: weight=gpu; unit=ns; steps=5; rank=1; world_size=2; source=tp1\.json; stack=annotation,python,op; kernel_names=family; label\.batch=4; label\.dtype=bf16;$' "$T/out"
gf fold --weight idle --unit ms --per-step-normalise "$T/sync.json"
expect_grep "header-normalised" '^# gpuflame: weight=idle; unit=ms; steps=5; rank=0; world_size=1; .*normalised=per-step;' "$T/out"

# stdin and gzip give the same bytes (source differs)
gf fold "$T/sync.json"; grep -v '^#' "$T/out" >"$T/a"
gzip -c "$T/sync.json" >"$T/sync.json.gz"
gf_in "$T/sync.json.gz" fold -; grep -v '^#' "$T/out" >"$T/b"
expect_same "stdin-gzip" "$T/b" "$T/a"
expect_grep "stdin-source" 'source=<stdin>;' "$T/out"

# conservation: gpu sum == total activity ns (generator totals), calls == launches
for v in sync fixed graph tp0; do
  gf fold --unit ns "$T/$v.json"
  got=$(grep -v '^#' "$T/out" | awk '{s+=$NF} END{printf "%d", s}')
  want=$(python3 -c "import json;print(json.load(open('$T/$v.exp.json'))['totals_ns']['gpu'])")
  expect_eq "conservation-$v" "$got" "$want"
done

# -o writes the file; nothing on stdout
gf fold -o "$T/o.folded" "$T/sync.json"
expect_rc "output-rc" 0
expect_eq "output-stdout-empty" "$(wc -c <"$T/out")" "0"
expect_grep "output-file" '^# gpuflame: weight=gpu' "$T/o.folded"
exit 0
