#!/bin/zsh -f
# zsh_complete.zsh — what zsh's completion offers for a command line, asked
# the way an interactive zsh does (for tests/cli/cli_docs.sh).
#
# Usage: zsh -f tests/gen/zsh_complete.zsh DIR OUT 'gpuflame fold --weight '
#
# Starts an interactive `zsh -f` on a pseudo-terminal (zsh/zpty) with DIR (a
# folder holding _gpuflame) first in $fpath and compinit run, wraps compadd
# so that every candidate it is given is appended to the file OUT, types the
# line and a TAB, and stops the shell. OUT then holds the candidates, one a
# line (unsorted, with repeats).
zmodload zsh/zpty || exit 3
dir=$1 out=$2 line=$3
zpty z zsh -f -i
zpty -w z "PS1='>' ; fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -D; gpuflame() { :; }"
zpty -w z "compadd() { local -a __c; builtin compadd -O __c \"\$@\"; print -r -l -- \$__c >> $out; builtin compadd \"\$@\"; }"
zpty -w z "$line"$'\t'
sleep ${ZSH_COMPLETE_WAIT:-1.5}
zpty -d z
