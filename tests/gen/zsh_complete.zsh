#!/bin/zsh -f
# zsh_complete.zsh — what zsh's completion offers for a command line, asked
# the way an interactive zsh does (for tests/cli/cli_docs.sh).
#
# Usage: zsh -f tests/gen/zsh_complete.zsh DIR OUT 'gpuflame fold --weight '
#
# Starts an interactive `zsh -f` on a pseudo-terminal (zsh/zpty) with DIR (a
# folder holding _gpuflame) first in $fpath and compinit run, wraps compadd
# so that every candidate it is given is appended to the file OUT, and waits
# until the line editor says it reads a line (its zle-line-init hook prints
# a marker: what is typed while the set-up runs may be dropped); types the
# line and a TAB, then waits for the completion to be over: it types ^U ^U
# (the first answers zsh's "list all?" question if one was asked) and a
# command whose output, gf42done, differs from its echo, and reads the
# terminal until that output appears. No fixed sleep: each wait is for the
# shell's own output (on a loaded machine it just takes longer; the caller
# bounds it with timeout). OUT then holds the candidates, one a line
# (unsorted, with repeats).
zmodload zsh/zpty || exit 3
dir=$1 out=$2 line=$3
zpty z zsh -f -i
zpty -w z "PS1='>' ; LISTMAX=100000; fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D; gpuflame() { :; }"
zpty -w z "compadd() { local -a __c; builtin compadd -O __c \"\$@\"; print -r -l -- \$__c >> $out; builtin compadd \"\$@\"; }"
# ready: the line editor itself says it reads the next line (zle-line-init runs
# once the terminal is set up; what is typed earlier may be dropped meanwhile)
zpty -w z 'zle-line-init() { (( ${+GF_READY} )) && print -rn -- "<gf${GF_READY}ready>"; }; zle -N zle-line-init'
zpty -w z 'GF_READY=$((7*7))'
zpty -r z reply '*<gf49ready>*'
zpty -w -n z "$line"$'\t'
zpty -w z $'\C-u\C-u''print -r -- gf$((6*7))done'
zpty -r z reply '*gf42done*'
zpty -d z
