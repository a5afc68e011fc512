#!/usr/bin/env bash
# cli_errors.sh — one line per usage error, with the nearest option
# (issue 17): an unknown option, a missing value, a value given to a flag, an
# ambiguous abbreviation, an unknown short option, in every command and in
# svg's single-dash (flamegraph.pl) spelling. Each is exit 2 and exactly one
# line on stderr naming the option and, when one is near, the suggestion.
. "$(dirname "$0")/lib.sh"
printf 'a;b 1\n' >"$T/x.folded"

one_line() { # name pattern: exit 2, one stderr line matching pattern, nothing on stdout
  expect_rc "$1-rc" 2
  expect_eq "$1-one-line" "$(wc -l <"$T/err")" 1
  expect_grep "$1-msg" "$2" "$T/err"
  expect_eq "$1-no-stdout" "$(wc -c <"$T/out")" 0
}

gf fold --wieght gpu "$T/x.folded"
one_line fold-typo "^gpuflame fold: unknown option '--wieght'; did you mean '--weight'\? \(see 'gpuflame fold --help'\)$"
gf svg -title
one_line svg-missing "^gpuflame svg: option '--title' needs a value \(TEXT\)"
gf svg --title
one_line svg-missing-long "^gpuflame svg: option '--title' needs a value \(TEXT\)"
gf svg -titel x "$T/x.folded"
one_line svg-single-dash-typo "unknown option '-titel'; did you mean '--title'\?"
gf top --sortt name "$T/x.folded"
one_line top-typo "unknown option '--sortt'; did you mean '--sort'\?"
gf top --strict=yes "$T/x.folded"
one_line flag-value "option '--strict' takes no value"
gf report --max-stpes 3 "$T/x.folded"
one_line report-typo "did you mean '--max-steps'\?"
gf syncs --devise 1 "$T/x.folded"
one_line syncs-typo "did you mean '--device'\?"
gf diff --s "$T/x.folded" "$T/x.folded"
one_line diff-ambiguous "option '--s' is ambiguous: .*'--svg'.*'--scale'"
gf merge --alow-ranks "$T/x.folded"
one_line merge-abbrev-typo "did you mean '--allow-ranks'\?"
gf norm --zzzzzz "$T/x.folded"
one_line norm-no-suggestion "^gpuflame norm: unknown option '--zzzzzz' \(see 'gpuflame norm --help'\)$"
gf info -x "$T/x.folded"
one_line info-short "^gpuflame info: unknown option '-x'"
gf fold -o
one_line fold-short-missing "option '--output' needs a value \(FILE\)"
# value errors are one line too
gf fold --weight heat "$T/x.folded"
one_line fold-bad-value "invalid argument 'heat' for '--weight'; valid arguments are: gpu, cpu, wall, idle, calls"
gf fold --weight wal "$T/x.folded"
one_line fold-near-value "invalid argument 'wal' for '--weight'; did you mean 'wall'\? valid arguments are: gpu, cpu, wall, idle, calls$"
gf report --max-steps x "$T/x.folded"
one_line report-bad-number "invalid value 'x' for '--max-steps'"
# an unknown command keeps its suggestion
gf fodl
expect_rc cmd-typo-rc 2
expect_grep cmd-typo "'fodl' is not a gpuflame command. The most similar command is 'fold'" "$T/err"
# abbreviations still work (getopt_long), and --help wins
gf top --so name "$T/x.folded"
expect_rc top-abbrev 0
for c in svg top info fold report syncs diff merge norm; do
  gf "$c" --help
  expect_rc "$c-help-rc" 0
  expect_grep "$c-help-usage" "^usage: gpuflame $c " "$T/out"
  expect_grep "$c-help-self" "^  -h, --help " "$T/out"
done
exit 0
