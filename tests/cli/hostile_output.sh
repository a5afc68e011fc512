#!/usr/bin/env bash
# hostile_output.sh — output files and standard streams under attack, for
# every command that writes (merge top svg info fold report syncs diff norm):
# a symlink planted at the guessable temporary name is not followed; -o
# writes through a symlink (the link stays) and keeps an existing file's
# mode; -o /dev/stdout writes to stdout and leaves /dev/stdout alone; closed
# stdout / stdin / stderr give the right exit code and lose nothing; a full
# disk (root: a 64 KiB tmpfs) is exit 3 with one line, no partial or
# temporary file, the old output untouched; SIGINT/SIGTERM/SIGHUP mid-run and
# out of memory (ulimit -v) leave no temporary file; merge to stdout does not
# stage through /tmp and writes the same bytes as -o.
. "$(dirname "$0")/lib.sh"
GF_REL=${GF_REL:-build/rel/gpuflame}
MNT=
trap 'if [ -n "$MNT" ]; then umount "$MNT" 2>/dev/null; fi; rm -rf "$T"' EXIT

F=$T/f.folded
J=$T/t.json
HAVE_TRACE=1
if command -v python3 >/dev/null && python3 tests/gen/gen_decode.py --steps 3 -o "$J" >/dev/null 2>&1 &&
	"$GF" fold "$J" >"$F" 2>/dev/null; then :; else
	HAVE_TRACE=0
	printf 'a;b 1\na;c 2\nd 3\n' >"$F"
fi
CMDS="merge top svg norm diff"
[ "$HAVE_TRACE" = 1 ] && CMDS="$CMDS info fold report syncs" || skip "hostile-trace-commands" "python3 or tests/gen/gen_decode.py absent"

# the arguments of command $1 reading the test inputs; stdin_args: reading stdin
args() {
	case $1 in
	merge | top | svg | norm) echo "$1 $F" ;;
	diff) echo "diff $F $F" ;;
	info | fold | report | syncs) echo "$1 $J" ;;
	esac
}
stdin_args() {
	case $1 in
	diff) echo "diff $F -" ;;
	*) echo "$1" ;;
	esac
}
stdin_file() { case $1 in info | fold | report | syncs) echo "$J" ;; *) echo "$F" ;; esac; }
# temporary files left in directory $1 (any *.tmp.* name)
temps() { find "$1" -name '*.tmp.*' 2>/dev/null | head -3 | tr '\n' ' '; }
# error lines (warnings excluded) in $T/err
errlines() { grep -cv ': warning: ' "$T/err"; }

cat >"$T/plant.sh" <<'X'
#!/bin/sh
# plant.sh VICTIM OUT CMD...: a symlink OUT.tmp.<pid> -> VICTIM, then exec
# CMD under that same pid (the old, guessable temporary name)
victim=$1 out=$2
shift 2
ln -s "$victim" "$out.tmp.$$" || exit 99
exec "$@"
X
chmod +x "$T/plant.sh"

STDOUT_KIND=$(stat -c %F /dev/stdout 2>/dev/null)
STDOUT_LINK=$(readlink /dev/stdout 2>/dev/null)

for c in $CMDS; do
	D=$T/o_$c
	mkdir -p "$D"
	# shellcheck disable=SC2046
	"$GF" $(args "$c") >"$D/ref" 2>/dev/null
	if [ $? -ne 0 ] || [ ! -s "$D/ref" ]; then
		fail "hostile-$c-ref" "gpuflame $(args "$c") failed"
		continue
	fi

	# a symlink at the old guessable temporary name is not followed
	printf precious >"$D/victim"
	"$T/plant.sh" "$D/victim" "$D/out" "$GF" $(args "$c") -o "$D/out" >/dev/null 2>"$T/err"
	rc=$?
	expect_rc "hostile-$c-planted-rc" 0
	expect_eq "hostile-$c-planted-victim-untouched" "$(cat "$D/victim")" precious
	expect_same "hostile-$c-planted-out" "$D/out" "$D/ref"
	if [ -L "$D/out" ]; then fail "hostile-$c-planted-out-regular" "out is a symlink"; else pass "hostile-$c-planted-out-regular"; fi
	find "$D" -maxdepth 1 -name 'out.tmp.*' -type l -delete

	# -o through a symlink: the link stays, its target gets the output
	printf old >"$D/real"
	ln -s real "$D/link"
	gf $(args "$c") -o "$D/link"
	expect_rc "hostile-$c-symlink-rc" 0
	if [ -L "$D/link" ]; then pass "hostile-$c-symlink-kept"; else fail "hostile-$c-symlink-kept" "the link was replaced"; fi
	expect_same "hostile-$c-symlink-target" "$D/real" "$D/ref"

	# an existing file keeps its mode
	printf old >"$D/secret"
	chmod 600 "$D/secret"
	gf $(args "$c") -o "$D/secret"
	expect_rc "hostile-$c-mode-rc" 0
	expect_eq "hostile-$c-mode-600-kept" "$(stat -c %a "$D/secret")" 600
	expect_same "hostile-$c-mode-content" "$D/secret" "$D/ref"
	expect_eq "hostile-$c-no-temp" "$(temps "$D")" ""

	# -o /dev/stdout with stdout a regular file: written there, /dev/stdout
	# stays what it was (as root a rename would replace it)
	"$GF" $(args "$c") -o /dev/stdout >"$D/so" 2>"$T/err"
	rc=$?
	expect_rc "hostile-$c-devstdout-rc" 0
	expect_same "hostile-$c-devstdout-content" "$D/so" "$D/ref"
	kind=$(stat -c %F /dev/stdout 2>/dev/null)
	expect_eq "hostile-$c-devstdout-kept" "$kind" "$STDOUT_KIND"
	if [ "$kind" != "$STDOUT_KIND" ] && [ -n "$STDOUT_LINK" ] && [ "$(id -u)" = 0 ]; then
		rm -f /dev/stdout && ln -s "$STDOUT_LINK" /dev/stdout # repair what the bug broke
	fi
	"$GF" $(args "$c") -o /dev/stdout 2>"$T/err" | cat >"$D/sp"
	expect_same "hostile-$c-devstdout-pipe" "$D/sp" "$D/ref"

	# closed stdout: exit 3 and the message; with -o nothing is lost
	"$GF" $(args "$c") >&- 2>"$T/err"
	rc=$?
	expect_rc "hostile-$c-stdout-closed-rc" 3
	expect_grep "hostile-$c-stdout-closed-msg" "^gpuflame $c: write failure on standard output: " "$T/err"
	expect_eq "hostile-$c-stdout-closed-one-line" "$(errlines)" 1
	"$GF" $(args "$c") -o "$D/o1" >&- 2>"$T/err"
	rc=$?
	expect_rc "hostile-$c-stdout-closed-o-rc" 0
	expect_same "hostile-$c-stdout-closed-o" "$D/o1" "$D/ref"
	"$GF" $(args "$c") -o "$D/o2" <&- >&- 2>&-
	rc=$?
	expect_rc "hostile-$c-all-closed-o-rc" 0
	expect_same "hostile-$c-all-closed-o" "$D/o2" "$D/ref"
	"$GF" "$c" --help >&- 2>"$T/err"
	rc=$?
	expect_rc "hostile-$c-help-stdout-closed" 3

	# closed stdin: reading it is an error (exit 1), never another file
	"$GF" $(stdin_args "$c") <&- >"$D/si" 2>"$T/err"
	rc=$?
	expect_rc "hostile-$c-stdin-closed-rc" 1
	expect_grep "hostile-$c-stdin-closed-msg" "<stdin>" "$T/err"
	"$GF" $(stdin_args "$c") <"$(stdin_file "$c")" >"$D/si" 2>/dev/null
	rc=$?
	expect_rc "hostile-$c-stdin-rc" 0
	"$GF" $(args "$c") <&- >"$D/o3" 2>/dev/null
	rc=$?
	expect_rc "hostile-$c-stdin-closed-files-rc" 0
	expect_same "hostile-$c-stdin-closed-files" "$D/o3" "$D/ref"

	# closed stderr: the output is still right, an error still exits 3
	"$GF" $(args "$c") 2>&- >"$D/o4"
	rc=$?
	expect_rc "hostile-$c-stderr-closed-rc" 0
	expect_same "hostile-$c-stderr-closed" "$D/o4" "$D/ref"
	"$GF" $(args "$c") >&- 2>&-
	rc=$?
	expect_rc "hostile-$c-stderr-stdout-closed-rc" 3
done

# --- the temporary file is opened O_CREAT|O_EXCL|O_NOFOLLOW, 0600; merge to
# stdout opens nothing in /tmp (it used tmpfile()) ---
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=open,openat -o "$T/st" "$GF" merge "$F" -o "$T/so.folded" 2>/dev/null
	if grep -E '\.tmp\.[^"]*".*O_CREAT' "$T/st" | grep -q 'O_EXCL' &&
		grep -E '\.tmp\.[^"]*".*O_CREAT' "$T/st" | grep -q 'O_NOFOLLOW' &&
		grep -E '\.tmp\.[^"]*".*O_CREAT' "$T/st" | grep -q '0600'; then
		pass "hostile-temp-open-flags"
	else
		fail "hostile-temp-open-flags" "$(grep -E '\.tmp\.' "$T/st" | head -2 | tr '\n' '|')"
	fi
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=open,openat -o "$T/st" "$GF" merge "$F" >"$T/so2" 2>/dev/null
	if grep -qE 'O_TMPFILE|"/tmp"|"/tmp/tmpf' "$T/st"; then
		fail "hostile-merge-stdout-no-tmp" "$(grep -E 'O_TMPFILE|"/tmp"|"/tmp/tmpf' "$T/st" | head -1)"
	else
		pass "hostile-merge-stdout-no-tmp"
	fi
	expect_same "hostile-merge-stdout-no-tmp-content" "$T/so2" "$T/o_merge/ref"
else
	skip "hostile-temp-open-flags" "strace unavailable"
	skip "hostile-merge-stdout-no-tmp" "strace unavailable"
fi

# --- merge: stdout (a file, a pipe) writes the same bytes as -o, for sorted,
# tree-ordered and unsorted (in-memory fallback) inputs ---
printf 'a;b 1\na;c 2\nd 3\n' >"$T/s1"
printf 'a;b 4\nb 1\n' >"$T/s2"
printf 'f1 1\nf1;a 2\nf12 3\n' >"$T/tree" # not in byte order, in tree order
printf 'z 1\na 2\nm 3\n' >"$T/u1"          # unsorted: merged in memory
for set in "s1 s2" "tree s1" "u1 s1" "u1 tree" "F F"; do
	files=
	for x in $set; do if [ "$x" = F ]; then files="$files $F"; else files="$files $T/$x"; fi; done
	name=$(echo "$set" | tr ' ' '_')
	"$GF" merge $files -o "$T/m_o" 2>/dev/null
	r1=$?
	"$GF" merge $files >"$T/m_s" 2>/dev/null
	r2=$?
	"$GF" merge $files 2>/dev/null | cat >"$T/m_p"
	expect_eq "hostile-merge-$name-rc" "$r1 $r2" "0 0"
	expect_same "hostile-merge-$name-stdout" "$T/m_s" "$T/m_o"
	expect_same "hostile-merge-$name-pipe" "$T/m_p" "$T/m_o"
done
# -o a FIFO: written in place, never rewound; unsorted input still merges
mkfifo "$T/mfifo"
cat "$T/mfifo" >"$T/m_f" &
catpid=$!
"$GF" merge "$T/u1" "$T/s1" -o "$T/mfifo" 2>/dev/null
rc=$?
wait "$catpid"
"$GF" merge "$T/u1" "$T/s1" -o "$T/m_o" 2>/dev/null
expect_rc "hostile-merge-fifo-unsorted-rc" 0
expect_same "hostile-merge-fifo-unsorted" "$T/m_f" "$T/m_o"
if [ -p "$T/mfifo" ]; then pass "hostile-merge-fifo-kept"; else fail "hostile-merge-fifo-kept" "not a FIFO any more"; fi
# an output over the 1 MiB merge keeps in memory: the inputs are read twice
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "root;mod_%d;fn_%07d_cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc;leaf 1.5\n", i % 7, i }' |
	LC_ALL=C sort >"$T/big16.folded"
"$GF" merge "$T/big16.folded" "$T/s1" -o "$T/m_o" 2>/dev/null
r1=$?
"$GF" merge "$T/big16.folded" "$T/s1" 2>/dev/null | cat >"$T/m_p"
expect_eq "hostile-merge-big-rc" "$r1" 0
expect_same "hostile-merge-big-pipe" "$T/m_p" "$T/m_o"
if [ "$(wc -c <"$T/m_o")" -gt 1048576 ]; then pass "hostile-merge-big-size"; else fail "hostile-merge-big-size" "output under 1 MiB"; fi
rm -f "$T/big16.folded" "$T/m_o" "$T/m_p"
# unsorted stdin cannot be re-read: an error (exit 1), as before
cat "$T/u1" | "$GF" merge - "$T/s1" >"$T/out" 2>"$T/err"
rc=$?
expect_rc "hostile-merge-unsorted-stdin-rc" 1

# --- full disk: a 64 KiB tmpfs, filled ---
if [ "$(id -u)" != 0 ]; then
	skip "hostile-full-disk" "not root (mount -t tmpfs needs it)"
elif ! mkdir -p "$T/full" || ! mount -t tmpfs -o size=64k gf_full "$T/full" 2>"$T/err"; then
	skip "hostile-full-disk" "mount -t tmpfs failed: $(head -c 200 "$T/err")"
else
	MNT=$T/full
	printf keep >"$T/full/out"
	dd if=/dev/zero of="$T/full/fill" bs=4k 2>/dev/null
	for c in $CMDS; do
		gf $(args "$c") -o "$T/full/out"
		expect_rc "hostile-$c-full-rc" 3
		expect_grep "hostile-$c-full-msg" "^gpuflame $c: cannot (write|create) '.*out'.*No space left on device" "$T/err"
		expect_eq "hostile-$c-full-one-line" "$(errlines)" 1
		expect_eq "hostile-$c-full-old-kept" "$(cat "$T/full/out")" keep
		expect_eq "hostile-$c-full-no-temp" "$(ls "$T/full" | tr '\n' ' ')" "fill out "
		"$GF" $(args "$c") >"$T/full/so" 2>"$T/err"
		rc=$?
		expect_rc "hostile-$c-full-stdout-rc" 3
		expect_grep "hostile-$c-full-stdout-msg" "^gpuflame $c: write failure on standard output: No space left on device" "$T/err"
		rm -f "$T/full/so"
	done
	umount "$T/full" && MNT=
fi

# --- signals mid-run: merge has its output open while it waits on a FIFO
# input held open; the signal kills it, no temporary file stays, the old
# output is untouched ---
S=$T/sig
mkdir -p "$S"
mkfifo "$S/fifo"
HAVE_DEFSIG=0
env --default-signal=INT true 2>/dev/null && HAVE_DEFSIG=1
for sig in INT TERM HUP; do
	if [ "$sig" = INT ] && [ "$HAVE_DEFSIG" = 0 ]; then
		skip "hostile-sig$sig" "env --default-signal unavailable (background jobs ignore SIGINT)"
		continue
	fi
	rm -f "$S"/out.tmp.*
	printf keep >"$S/out"
	if [ "$HAVE_DEFSIG" = 1 ]; then
		env --default-signal "$GF" merge "$S/fifo" -o "$S/out" 2>"$T/err" &
	else
		"$GF" merge "$S/fifo" -o "$S/out" 2>"$T/err" &
	fi
	pid=$!
	exec 7<>"$S/fifo" # held open: merge blocks reading it, its output open
	printf 'a;b 1\n' >&7
	for _ in $(seq 50); do [ -n "$(temps "$S")" ] && break; sleep 0.1; done
	seen=$(temps "$S")
	kill -s "$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null
	rc=$?
	exec 7>&-
	if [ -z "$seen" ]; then fail "hostile-sig$sig-temp-seen" "no temporary file while running"; fi
	expect_eq "hostile-sig$sig-killed" "$rc" "$((128 + $(kill -l "$sig")))"
	expect_eq "hostile-sig$sig-no-temp" "$(temps "$S")" ""
	expect_eq "hostile-sig$sig-old-kept" "$(cat "$S/out")" keep
done

# every command, mid-write: strace delays each write(2) by 0.6 s, so the
# process is caught with its temporary file open; SIGTERM and SIGINT kill
# it, no temporary file stays, the old output is untouched
if command -v strace >/dev/null && strace -f -o /dev/null -e trace=write -e inject=write:delay_enter=1 true 2>/dev/null; then
	for c in $CMDS; do
		for sig in TERM INT; do
			if [ "$sig" = INT ] && [ "$HAVE_DEFSIG" = 0 ]; then continue; fi
			rm -f "$S"/out.tmp.*
			printf keep >"$S/out"
			defsig=
			[ "$HAVE_DEFSIG" = 1 ] && defsig=--default-signal
			ASAN_OPTIONS=detect_leaks=0 env $defsig strace -f -o /dev/null -e trace=write \
				-e inject=write:delay_enter=600000 "$GF" $(args "$c") -o "$S/out" >/dev/null 2>&1 &
			spid=$!
			seen=
			for _ in $(seq 1000); do
				if compgen -G "$S/out.tmp.*" >/dev/null; then seen=1; break; fi
				kill -0 "$spid" 2>/dev/null || break
				sleep 0.01
			done
			kid=$(cat "/proc/$spid/task/$spid/children" 2>/dev/null)
			[ -n "$seen" ] && [ -n "$kid" ] && kill -s "$sig" $kid
			{ wait "$spid"; } 2>/dev/null
			rc=$?
			if [ -z "$seen" ] || [ -z "$kid" ]; then
				fail "hostile-$c-sig$sig-mid-write" "never saw the temporary file (rc $rc)"
				continue
			fi
			expect_eq "hostile-$c-sig$sig-mid-write-killed" "$rc" "$((128 + $(kill -l "$sig")))"
			expect_eq "hostile-$c-sig$sig-mid-write-no-temp" "$(temps "$S")" ""
			expect_eq "hostile-$c-sig$sig-mid-write-old-kept" "$(cat "$S/out")" keep
		done
	done
else
	skip "hostile-sig-mid-write" "strace with fault injection unavailable"
fi

# stdout a pipe whose reader has gone: killed by SIGPIPE as usual (141), or,
# when SIGPIPE is ignored, exit 3 with the one-line message
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "root;fn_%d_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;leaf 1\n", i }' >"$T/big.folded"
"$GF" top "$T/big.folded" 2>"$T/err" | head -c 10 >/dev/null
rc=${PIPESTATUS[0]}
expect_eq "hostile-sigpipe-default" "$rc" 141
(
	trap '' PIPE
	"$GF" top "$T/big.folded" 2>"$T/err" | head -c 10 >/dev/null
	exit "${PIPESTATUS[0]}"
)
rc=$?
expect_rc "hostile-sigpipe-ignored-rc" 3
expect_grep "hostile-sigpipe-ignored-msg" "^gpuflame top: write failure on standard output: Broken pipe" "$T/err"

# --- out of memory (ulimit -v; the release binary: ASan reserves more
# address space than any limit): exit 4, no temporary file, old output kept.
# merge opens its output first, then merges the unsorted input in memory ---
if [ ! -x "$GF_REL" ]; then
	skip "hostile-oom" "no release binary ($GF_REL)"
else
	awk 'BEGIN { for (i = 400000; i > 0; i--) printf "root;mod_%d;fn_%09d_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb;leaf 1\n", i % 89, i }' >"$T/unsorted.folded"
	limit=
	for kb in 20000 40000 80000 160000; do
		if (ulimit -v "$kb" && "$GF_REL" merge "$T/s1" -o "$S/small") 2>/dev/null; then
			limit=$((kb + 20000))
			break
		fi
	done
	if [ -z "$limit" ]; then
		skip "hostile-oom" "no ulimit -v under which a small merge runs"
	else
		rm -f "$S"/out.tmp.*
		printf keep >"$S/out"
		(ulimit -v "$limit" && exec "$GF_REL" merge "$T/unsorted.folded" -o "$S/out") >/dev/null 2>"$T/err"
		rc=$?
		if [ "$rc" -eq 0 ]; then
			skip "hostile-oom" "the merge fit in $limit KiB"
		else
			expect_rc "hostile-oom-rc" 4
			expect_grep "hostile-oom-msg" "out of memory" "$T/err"
			expect_eq "hostile-oom-no-temp" "$(temps "$S")" ""
			expect_eq "hostile-oom-old-kept" "$(cat "$S/out")" keep
		fi
	fi
fi
exit 0
