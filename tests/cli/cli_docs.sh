#!/usr/bin/env bash
# cli_docs.sh — --help, the man pages and the bash/zsh completions come from
# one table of options per command (src/cli/cliopt.h), so they agree (issue
# 17): every option of every `--help` is in the command's man page, in the
# bash completion (asked through the completion function itself, as bash
# would) and in the zsh one, and the reverse. The man pages render without
# troff warnings; the zsh script parses; the bash completion offers the
# commands, option values (weights, comma lists of stack levels) and files of
# the command's kind.
. "$(dirname "$0")/lib.sh"
cmds=$("$GF" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on=0}')
expect_eq commands-listed "$(echo $cmds | wc -w)" 12
"$GF" --print-completion bash >"$T/gpuflame.bash"; expect_rc_ok() { :; }
"$GF" --print-completion zsh >"$T/_gpuflame"
# complete WORDS...: what the bash completion offers for the last word
complete_words() {
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpuflame; printf "%s\n" "${COMPREPLY[@]}"' _ "$T/gpuflame.bash" "$@"
}
for c in $cmds; do
  "$GF" "$c" --help >"$T/help"
  "$GF" --print-man "$c" >"$T/man"
  complete_words gpuflame "$c" - >"$T/bash"
  python3 - "$c" "$T/help" "$T/man" "$T/bash" "$T/_gpuflame" >"$T/check" 2>&1 <<'PY'
import re, sys
cmd, helpf, manf, bashf, zshf = sys.argv[1:]
def opts(words):
    return sorted(set(w for w in words if re.fullmatch(r'--?[A-Za-z0-9][\w-]*', w)))
help_text = open(helpf).read().split('\noptions:\n', 1)[1].split('\n\n', 1)[0]
h = opts(re.findall(r'^  (?:(-\w), )?\s*(--[\w-]+)', help_text, re.M) and
         [x for pair in re.findall(r'^  (?:(-\w), )?\s*(--[\w-]+)', help_text, re.M) for x in pair if x])
man = open(manf).read().replace('\\-', '-')
m = opts([x for pair in re.findall(r'^\.TP\n(?:\\fB(-\w)\\fR, )?\\fB(--[\w-]+)\\fR', man, re.M) for x in pair if x])
b = opts(open(bashf).read().split())
zsh = open(zshf).read()
body = re.search(r'^_gpuflame_%s\(\) \{\n(.*?)^\}' % re.escape(cmd), zsh, re.M | re.S).group(1)
specs = [l.strip().split('[', 1)[0] for l in body.split('\n') if l.strip().startswith("'") and not l.strip().startswith("'*:")]
z = opts(re.findall(r"(?<![\w-])(--?[A-Za-z0-9][\w-]*)", ' '.join(specs)))
bad = []
for name, got in (('man', m), ('bash', b), ('zsh', z)):
    if got != h:
        bad.append('%s: only in --help %s, only in %s %s' % (name, sorted(set(h) - set(got)), name, sorted(set(got) - set(h))))
print('\n'.join(bad) if bad else 'same %d' % len(h))
PY
  expect_grep "$c-help-man-completions-agree" "^same [0-9]+$" "$T/check"
  [ "$(cat "$T/check")" = "same 0" ] && fail "$c-has-options" "no option parsed"
  expect_grep "$c-man-sections" "^\.SH OPTIONS$" "$T/man"
  groff -man -ww -z "$T/man" >"$T/groff" 2>&1
  expect_eq "$c-man-renders-clean" "$(cat "$T/groff")" ""
done
"$GF" --print-man >"$T/main.1"
expect_grep main-man-commands "^\\\\fBgpuflame\\\\-report\\\\fR\(1\)$" "$T/main.1"
groff -man -ww -z "$T/main.1" >"$T/groff" 2>&1
expect_eq main-man-renders-clean "$(cat "$T/groff")" ""
gf --print-man nosuch
expect_rc print-man-unknown 2
gf --print-completion fish
expect_rc print-completion-unknown 2

# bash: commands, values, comma lists, files of the command's kind
expect_eq bash-commands "$(complete_words gpuflame re | tr '\n' ' ')" "report "
expect_eq bash-weights "$(complete_words gpuflame fold --weight '' | tr '\n' ' ')" "gpu cpu wall idle calls "
expect_eq bash-weights-short "$(complete_words gpuflame diff -w w | tr '\n' ' ')" "wall "
expect_eq bash-stack-list "$(complete_words gpuflame fold --stack python,mo | tr '\n' ' ')" "python,module "
expect_eq bash-format "$(complete_words gpuflame top --format '' | tr '\n' ' ')" "text tsv md json "
mkdir -p "$T/files/sub" && : >"$T/files/a.json.gz" && : >"$T/files/b.folded" && : >"$T/files/c.txt" && : >"$T/files/d.png"
( cd "$T/files" && complete_words gpuflame fold '' | sort | tr '\n' ' ' ) >"$T/f1"
expect_eq bash-trace-files "$(cat "$T/f1")" "a.json.gz sub "
( cd "$T/files" && complete_words gpuflame svg '' | sort | tr '\n' ' ' ) >"$T/f2"
expect_eq bash-folded-files "$(cat "$T/f2")" "b.folded c.txt sub "
( cd "$T/files" && complete_words gpuflame diff '' | sort | tr '\n' ' ' ) >"$T/f3"
expect_eq bash-any-files "$(cat "$T/f3")" "a.json.gz b.folded c.txt sub "
( cd "$T/files" && complete_words gpuflame svg -o '' | sort | tr '\n' ' ' ) >"$T/f4"
expect_eq bash-output-any-file "$(cat "$T/f4")" "a.json.gz b.folded c.txt d.png sub "
# zsh: the script parses, and an interactive zsh (on a pty, tests/gen/zsh_complete.zsh) completes
# commands, every option of --help, values and comma lists (zsh is in scripts/deps.sh test)
if command -v zsh >/dev/null; then
  zsh -n "$T/_gpuflame" 2>"$T/zerr"; rc=$?
  expect_rc zsh-parses 0
  expect_grep zsh-compdef "^#compdef gpuflame$" "$T/_gpuflame"
  zc() { rm -f "$T/zout"; timeout 120 zsh -f tests/gen/zsh_complete.zsh "$T" "$T/zout" "$1" >/dev/null 2>&1; sort -u "$T/zout" 2>/dev/null | grep -v '^$' | tr '\n' ' '; }
  expect_grep zsh-commands "(^| )report( |$)" <(zc 'gpuflame re')
  expect_eq zsh-weights "$(zc 'gpuflame fold --weight ')" "calls cpu gpu idle wall "
  expect_eq zsh-formats "$(zc 'gpuflame report -f ')" "html json md text "
  expect_eq zsh-syncs-formats "$(zc 'gpuflame syncs -f ')" "json md text "
  expect_grep zsh-stack-list "module" <(zc 'gpuflame fold --stack python,')
  "$GF" fold --help | sed -n '/^options:/,/^$/p' | grep -oE -- '^ +(-[a-z], )? *--[a-z][a-z-]+' | grep -oE -- '--[a-z-]+' | sort -u | tr '\n' ' ' >"$T/hl"
  zc 'gpuflame fold --' | tr ' ' '\n' | grep -E -- '^--' | sed 's/=$//' | sort -u | tr '\n' ' ' >"$T/zl"
  expect_eq zsh-fold-options "$(cat "$T/zl")" "$(cat "$T/hl")"
else
  skip zsh-parses "zsh not installed"
fi
exit 0
