#!/usr/bin/env bash
# tests/cli/golden.sh — golden outputs: every case of tests/golden/MANIFEST run with $GF and
# compared byte for byte with its expected file (as inferno's tests do).
#
#   bash tests/cli/golden.sh                     # one PASS/FAIL per case, a short diff on FAIL
#   GPUFLAME_BLESS=1 bash tests/cli/golden.sh    # rewrite the expected files from $GF instead,
#                                                # and list the ones that changed
#   GOLDEN_ONLY=train/ bash tests/cli/golden.sh  # only the cases whose expected file starts so
#   GOLDEN_DIR=tests/data bash tests/cli/golden.sh  # another set: its MANIFEST and expected files
#                                                # (tests/data: the fast tier's, no ../shared)
#
# A case is stdout (tests/golden/<case>) plus, when the command exits non-zero or writes to
# stderr, tests/golden/<case>.stderr ("exit N" then the stderr text). Commands run in a
# scratch directory whose ../shared is $GF_SHARED, ../data is tests/data and ../examples is
# examples/, so the paths the outputs print (../shared/corpus/...) are the same wherever the
# corpus lives. A set whose manifest names ../shared SKIPs when it is absent.
# An SVG (a case whose expected file ends in .svg) is compared without its viewer script: the
# script's body is replaced by one marker line on both sides, and blessed so, so a change of
# the script re-blesses no SVG (tests/browser/ tests the script).
# The expected files were blessed with the binary of d716dbe (the starting point of issue 11):
# a change in any of them is a change in behaviour, to be listed when it is blessed.
. "$(dirname "$0")/lib.sh"

root=$(pwd)
golden=$root/${GOLDEN_DIR:-tests/golden}
golden=${golden%/}
manifest=$golden/MANIFEST
set_name=$(basename "$golden")
pfx=$set_name # the checks' prefix: golden-..., data-...
bless=${GPUFLAME_BLESS:-}
only=${GOLDEN_ONLY:-}
case $GF in /*) ;; *) GF=$root/$GF ;; esac
export GPUFLAME_NO_PROGRESS=1

if [ ! -f "$manifest" ]; then fail "$pfx-manifest" "$manifest missing"; exit 0; fi
mkdir -p "$T/run" "$T/got"
if grep -v '^#' "$manifest" | grep -q '\.\./shared/'; then
	need_shared "$pfx" || exit 0
	ln -s "$(cd "$GF_SHARED" && pwd)" "$T/shared"
fi
ln -s "$root/tests/data" "$T/data"
ln -s "$root/examples" "$T/examples"

# svg_unscripted FILE : the SVG with its viewer script's body replaced by one marker line
svg_unscripted() {
	awk '/^<script type="text\/ecmascript"><!\[CDATA\[$/ { print; print "/* the viewer script: not compared (tests/cli/golden.sh) */"; skip = 1; next }
	     skip && /^\]\]><\/script>$/ { skip = 0 }
	     !skip { print }' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

# run_case OUT_PREFIX WORDS... : runs the command line in $T/run; stdout -> PREFIX,
# "exit N" + stderr -> PREFIX.stderr (removed when exit 0 and stderr empty)
run_case() {
	local out=$1; shift
	local -a a=() b=()
	local w piped=
	for w in "$@"; do
		if [ "$w" = "|" ]; then piped=1; continue; fi
		if [ -n "$piped" ]; then b+=("$w"); else a+=("$w"); fi
	done
	local st
	if [ -n "$piped" ]; then
		(cd "$T/run" && "$GF" "${a[@]}" 2>"$out.err1" | "$GF" "${b[@]}" >"$out" 2>"$out.err2"
			echo "${PIPESTATUS[0]} ${PIPESTATUS[1]}" >"$out.rc")
		read -r r1 r2 <"$out.rc"
		st=$r1; [ "$st" -eq 0 ] && st=$r2
		cat "$out.err1" "$out.err2" >"$out.err"
		rm -f "$out.err1" "$out.err2"
	else
		(cd "$T/run" && "$GF" "${a[@]}" >"$out" 2>"$out.err"; echo $? >"$out.rc")
		st=$(cat "$out.rc")
	fi
	rm -f "$out.rc"
	if [ "$st" -ne 0 ] || [ -s "$out.err" ]; then
		{ echo "exit $st"; cat "$out.err"; } >"$out.stderr"
	else
		rm -f "$out.stderr"
	fi
	rm -f "$out.err"
}

# golden_cmp NAME GOT EXPECTED : PASS when GOT and GOT.stderr equal EXPECTED and
# EXPECTED.stderr (an absent .stderr on both sides is equal); else FAIL with a short diff.
# Returns 0 on PASS.
golden_cmp() {
	local name=$1 got=$2 exp=$3 why="" es gs
	local rel=${exp#"$root"/}
	if [ ! -f "$exp" ]; then
		why="no expected file $rel (bless it: GPUFLAME_BLESS=1 bash tests/cli/golden.sh)"
	elif ! cmp -s "$got" "$exp"; then
		why="stdout differs from $rel (< expected, > got): $(diff "$exp" "$got" | head -12 | cut -c1-200 | tr '\n' '|')"
	elif [ -f "$exp.stderr" ] || [ -f "$got.stderr" ]; then
		es=$exp.stderr gs=$got.stderr
		[ -f "$es" ] || es=/dev/null
		[ -f "$gs" ] || gs=/dev/null
		if ! cmp -s "$gs" "$es"; then
			why="exit status or stderr differ from $rel.stderr (< expected, > got; no file: exit 0, empty): $(diff "$es" "$gs" | head -8 | cut -c1-200 | tr '\n' '|')"
		fi
	fi
	if [ -z "$why" ]; then pass "$name"; return 0; fi
	fail "$name" "$why"
	return 1
}

# bless_one GOT EXPECTED : copy GOT (and its .stderr) over EXPECTED; echo what changed
bless_one() {
	local got=$1 exp=$2 what=""
	if [ ! -f "$exp" ]; then what=new
	elif ! cmp -s "$got" "$exp"; then what=changed
	elif ! cmp -s "$got.stderr" "$exp.stderr" 2>/dev/null && { [ -f "$got.stderr" ] || [ -f "$exp.stderr" ]; }; then
		what="changed (exit status or stderr)"
	fi
	mkdir -p "$(dirname "$exp")"
	cp "$got" "$exp"
	if [ -f "$got.stderr" ]; then cp "$got.stderr" "$exp.stderr"; else rm -f "$exp.stderr"; fi
	[ -n "$what" ] && echo "blessed ${exp#"$root"/}: $what"
	return 0
}

n=0 nfail=0 nchanged=0
declare -A listed=()
while IFS= read -r line || [ -n "$line" ]; do
	case $line in '#'* | '') continue ;; esac
	read -r -a words <<<"$line"
	[ "${#words[@]}" -ge 2 ] || { fail "$pfx-manifest" "bad line: $line"; nfail=$((nfail + 1)); continue; }
	name=${words[0]}
	listed[$name]=1
	[ -n "$only" ] && [ "${name#"$only"}" = "$name" ] && continue
	got=$T/got/$(printf %s "$name" | tr / _)
	run_case "$got" "${words[@]:1}"
	case $name in *.svg) svg_unscripted "$got" ;; esac
	n=$((n + 1))
	if [ -n "$bless" ]; then
		msg=$(bless_one "$got" "$golden/$name")
		if [ -n "$msg" ]; then echo "$msg"; nchanged=$((nchanged + 1)); fi
	else
		golden_cmp "$pfx-$name" "$got" "$golden/$name" || nfail=$((nfail + 1))
	fi
done <"$manifest"

# every file under the set's folder is a case of the manifest (no stale expected files)
stale=""
while IFS= read -r f; do
	rel=${f#"$golden"/}
	case $rel in MANIFEST | README.md | in/*) continue ;; esac
	base=${rel%.stderr}
	[ -n "${listed[$base]:-}" ] || stale="$stale $rel"
done < <(find "$golden" -type f | sort)
if [ -n "$bless" ]; then
	echo "blessed $n cases with $GF: $nchanged new or changed${stale:+; not in the manifest (remove them):$stale}"
	exit 0
fi
if [ -n "$stale" ]; then fail "$pfx-stale" "files under ${golden#"$root"/}/ that no case of MANIFEST names:$stale"; else pass "$pfx-stale"; fi

# self-check: the comparison can fail. A copy of one expected file with one byte
# changed, one without its last line, a stderr that differs and a missing file are each reported.
first=$(grep -v '^#' "$manifest" | awk 'NF { print $1; exit }')
sc=$T/selfcheck
mkdir -p "$sc"
if [ -s "$golden/$first" ]; then
	cp "$golden/$first" "$sc/exp"; cp "$golden/$first" "$sc/got"
	[ -f "$golden/$first.stderr" ] && { cp "$golden/$first.stderr" "$sc/exp.stderr"; cp "$golden/$first.stderr" "$sc/got.stderr"; }
	ok=1
	golden_cmp x "$sc/got" "$sc/exp" >/dev/null || ok=0
	printf 'X' | dd of="$sc/got" bs=1 seek=$(($(wc -c <"$sc/exp") / 2)) conv=notrunc 2>/dev/null
	cmp -s "$sc/got" "$sc/exp" && printf 'Y' | dd of="$sc/got" bs=1 seek=$(($(wc -c <"$sc/exp") / 2)) conv=notrunc 2>/dev/null
	golden_cmp x "$sc/got" "$sc/exp" | grep -q '^FAIL x: stdout differs' || ok=0
	sed '$d' "$sc/exp" >"$sc/got"
	golden_cmp x "$sc/got" "$sc/exp" | grep -q '^FAIL x: stdout differs' || ok=0
	cp "$sc/exp" "$sc/got"; { echo "exit 1"; echo "warning: planted"; } >"$sc/got.stderr"
	golden_cmp x "$sc/got" "$sc/exp" | grep -q '^FAIL x: exit status or stderr' || ok=0
	golden_cmp x "$sc/got" "$sc/missing" | grep -q '^FAIL x: no expected file' || ok=0
	if [ "$ok" = 1 ]; then pass "$pfx-selfcheck"; else fail "$pfx-selfcheck" "a corrupted copy of $first was not reported"; fi
else
	fail "$pfx-selfcheck" "first case $first has no (or an empty) expected file"
fi
# and an SVG's viewer script is left out, the rest kept: a script change re-blesses no SVG
printf '<svg>\n<script type="text/ecmascript"><![CDATA[\nfunction zoom() {}\n]]></script>\n<g><title>a</title></g>\n</svg>\n' >"$sc/s.svg"
svg_unscripted "$sc/s.svg"
if ! grep -q 'function zoom' "$sc/s.svg" && grep -q '<g><title>a</title></g>' "$sc/s.svg" && grep -q 'not compared' "$sc/s.svg"; then
	pass "$pfx-svg-script-left-out"
else
	fail "$pfx-svg-script-left-out" "$(tr '\n' '|' <"$sc/s.svg")"
fi
echo "$pfx: $n cases, $nfail failed"
exit 0
