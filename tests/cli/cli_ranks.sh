#!/usr/bin/env bash
# cli_ranks.sh — svg and top refuse to add up folded files of different ranks
# (their headers' rank=), as merge does, unless --allow-ranks (issue 17);
# files of one rank, or without a header, still merge.
. "$(dirname "$0")/lib.sh"
printf '# gpuflame: weight=gpu; unit=us; rank=0; world_size=2;\na;b 1\n' >"$T/r0.folded"
printf '# gpuflame: weight=gpu; unit=us; rank=1; world_size=2;\na;b 2\n' >"$T/r1.folded"
printf '# gpuflame: weight=gpu; unit=us; rank=0; world_size=2;\na;c 4\n' >"$T/r0b.folded"
printf 'a;d 8\n' >"$T/plain.folded"

for c in svg top; do
  gf "$c" "$T/r0.folded" "$T/r1.folded"
  expect_rc "$c-ranks-rc" 2
  expect_eq "$c-ranks-one-line" "$(wc -l <"$T/err")" 1
  expect_grep "$c-ranks-msg" "'$T/r1.folded': rank '1' differs from rank '0' in '$T/r0.folded'; refusing to add up ranks .*--allow-ranks" "$T/err"
  expect_eq "$c-ranks-no-output" "$(wc -c <"$T/out")" 0
  gf_in "$T/r1.folded" "$c" "$T/r0.folded" -
  expect_rc "$c-ranks-stdin-rc" 2
  gf "$c" "$T/r0.folded" "$T/r0b.folded" "$T/plain.folded"
  expect_rc "$c-same-rank-rc" 0
  gf "$c" --allow-ranks "$T/r0.folded" "$T/r1.folded"
  expect_rc "$c-allow-rc" 0
done
gf top --allow-ranks "$T/r0.folded" "$T/r1.folded"
expect_grep top-allow-sum "^total 3 us in 1 stack$" "$T/out"
gf top "$T/r0.folded" "$T/r0b.folded" "$T/plain.folded"
expect_grep top-same-rank-sum "^total 13 us in 3 stacks$" "$T/out"
# -o is never created when refused
gf svg -o "$T/g.svg" "$T/r0.folded" "$T/r1.folded"
if [ -e "$T/g.svg" ]; then fail svg-ranks-no-file; else pass svg-ranks-no-file; fi
# merge: the same refusal, as before
gf merge "$T/r0.folded" "$T/r1.folded"
expect_rc merge-ranks-rc 2
exit 0
