#!/usr/bin/env bash
# import_perf.sh — `perf script` text imported (stacks/import_perf.c) against
# the ecosystem's own expected outputs, byte for byte:
#  - FlameGraph's test/results/*-collapsed-{pid,tid,kernel,jit,all,addrs}.txt
#    (stackcollapse-perf.pl's output for each of its inputs and flags): all
#    78 must match `gpuflame fold --FLAG`;
#  - inferno's tests/data/collapse-perf/results/: equal, or differing for one
#    of the reasons listed below (and in docs/formats.md, "Imports"), each
#    checked by undoing exactly that difference;
# plus the sniffer, the other commands, the warnings and the errors.
. "$(dirname "$0")/lib.sh"

# --- hand-made cases, no corpus needed ---
cat >"$T/p.txt" <<'EOF'
# cmdline : /usr/bin/perf record -g python train.py
python 1234/1240 [001] 12345.678901:     250000 cpu-clock: 
	    7f0123456789 func+0x10 (/usr/lib/libx.so)
	    7f0123456000 main (/usr/bin/python3.11)

python 1234/1240 [001] 12345.679901:     250000 cpu-clock: 
	ffffffff81000000 do_syscall_64+0x5b ([kernel.kallsyms])
	    7f0123456789 [unknown] (/usr/lib/libcuda.so.1)
	    7f0123456000 main (/usr/bin/python3.11)

py thread 1234/1241 [002] 12345.680000:     100 cycles: 
	    7f0123456000 other (/usr/bin/python3.11)

python 1234/1240 [001] 12345.680901:     250000 cpu-clock: 
	    7f0000000001 jitted;fn"x'(int) (/tmp/perf-1234.map)
	    7f0123456000 [unknown] ([unknown])

EOF
gf fold "$T/p.txt"; expect_rc plain-rc 0
# the import's header (issue 26): cpu-clock periods are ns; the stacks follow
expect_grep plain-header '^# gpuflame: format=perf; unit=ns; event=cpu-clock; samples=3;$' "$T/out"
nohdr() { sed '1{/^# gpuflame:/d}' "$@"; }
nohdr "$T/out" >"$T/o"; mv "$T/o" "$T/out"
printf '%s\n' 'python;[unknown];jitted:fnx 250000' 'python;main;[libcuda.so.1];do_syscall_64 250000' \
  'python;main;func 250000' >"$T/want"
expect_same plain-out "$T/out" "$T/want"
expect_grep plain-event-warn "1 samples of event 'cycles' left out: only the first event type, 'cpu-clock'" "$T/err"
gf fold --tid --all --addrs "$T/p.txt"; expect_rc flags-rc 0
printf '%s\n' 'python-1234/1240;[unknown <7f0123456000>];jitted:fnx_[j] 250000' \
  'python-1234/1240;main;[libcuda.so.1 <7f0123456789>];do_syscall_64_[k] 250000' \
  'python-1234/1240;main;func 250000' >"$T/want"
nohdr "$T/out" >"$T/o"; mv "$T/o" "$T/out"
expect_same flags-out "$T/out" "$T/want"
gf fold --pid "$T/p.txt"; expect_grep pid-root '^python-1234;main;func 250000$' "$T/out"
# every folded command takes it: svg, top, merge, diff (and compressed, stdin)
gf svg "$T/p.txt"; expect_rc svg-rc 0
expect_grep svg-frame '<title>do_syscall_64 \(250 us' "$T/out"   # 250000 ns of cpu-clock
gzip -c "$T/p.txt" >"$T/p.txt.gz"
gf_in "$T/p.txt.gz" top; expect_rc top-stdin-gz-rc 0
expect_grep top-stdin-gz 'total 750000 ns in 3 stacks' "$T/out"
gf merge "$T/p.txt" "$T/p.txt"; expect_grep merge-sum '^python;main;func 500000$' "$T/out"
gf diff "$T/p.txt" "$T/p.txt.gz"; expect_rc diff-rc 0
# a trace command names what to run instead
gf report "$T/p.txt"; expect_rc report-rc 1
expect_grep report-hint "is perf script output, not a PyTorch profiler trace: run 'gpuflame svg " "$T/err"
# the options belong to their input kinds
gf fold --pid /dev/null; expect_rc pid-on-folded-rc 2
gf fold --weight cpu "$T/p.txt"; expect_rc weight-on-perf-rc 2
expect_grep weight-on-perf-msg "\-\-weight applies to traces; .* is perf script output" "$T/err"
# perf 3.x: no timestamp, frames at column 0; a sample cut at the end
printf 'java 19983 cycles:\nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n7f00 Interpreter (/tmp/perf-19983.map)\n\njava 19983 cycles:\n7f00 Interpreter (/tmp/perf-19983.map)\n' >"$T/old.txt"
gf fold --kernel "$T/old.txt"; expect_rc old-rc 0
printf '%s\n' 'java;Interpreter;native_write_msr_safe_[k] 1' >"$T/want"
expect_grep old-header '^# gpuflame: format=perf; unit=samples; samples=1;$' "$T/out"   # no periods: samples
nohdr "$T/out" >"$T/o"; mv "$T/o" "$T/out"
expect_same old-out "$T/out" "$T/want"
expect_grep old-cut-warn "the last sample has no blank line after it: left out, as stackcollapse-perf.pl does" "$T/err"
# a period beyond 64 bits is an error naming the line
printf 'a 1 1.5: 99999999999999999999 cycles:\n\t 1 f (m)\n\n' >"$T/big.txt"
gf fold "$T/big.txt"; expect_rc big-rc 1
expect_grep big-msg "line 1: period '99999999999999999999' does not fit" "$T/err"
# periods that fit one by one but whose total does not: exit 1, one line, nothing on stdout
printf 'a 1 1.5: 9000000000000000000 cycles:\n\t 1 f (m)\n\na 1 1.6: 9000000000000000000 cycles:\n\t 1 g (m)\n\n' >"$T/sum.txt"
gf fold "$T/sum.txt"; expect_rc total-overflow-rc 1
expect_grep total-overflow-msg "sum.txt': line [0-9]+: weights overflow 64-bit integers \(their total\)" "$T/err"
expect_eq total-overflow-one-line "$(wc -l <"$T/err")" 1
expect_eq total-overflow-no-output "$(wc -c <"$T/out")" 0

need_shared import-perf-corpus || exit 0
FG=$GF_SHARED/corpus/flamegraph/brendangregg-FlameGraph/test
IN=$GF_SHARED/corpus/flamegraph/jonhoo-inferno/tests/data/collapse-perf
n=0 bad=0
for f in "$FG"/*.txt; do
  b=$(basename "$f" .txt)
  for o in pid tid kernel jit all addrs; do
    exp=$FG/results/$b-collapsed-$o.txt
    [ -f "$exp" ] || continue
    n=$((n + 1))
    "$GF" fold --$o "$f" 2>/dev/null | nohdr >"$T/o"
    cmp -s "$T/o" "$exp" || { bad=$((bad + 1)); fail "flamegraph-$b-$o" "$(diff "$T/o" "$exp" | head -3)"; }
  done
done
expect_eq flamegraph-results-count "$n" 78
[ "$bad" = 0 ] && pass "flamegraph-results-byte-for-byte ($n files)"

# inferno: the expected file, the input, the flag, and how gpuflame differs
#   same      byte for byte
#   eof       inferno keeps a last sample with no blank line after it;
#             stackcollapse-perf.pl (and gpuflame, with a warning) leave it
#             out: equal once the input ends with a blank line
#   rust      inferno demangles Rust's legacy symbols (the "::h<16 hex>"
#             hash dropped, a leading "_$" as "$", the escapes $LT$ $GT$
#             $u20$ $u27$ $u5b$ $u5d$ $u7b$ $u7d$ $LP$ $RP$ $RF$ $BP$ $C$,
#             ".." as "::"); perl
#             keeps them: equal once demangled (and the stacks that become
#             equal summed)
#   cpp       inferno keeps C++ argument lists inside template arguments
#             ("std::function<int (int, int)>::operator()"); perl cuts at
#             the first '(': equal after perl's cut of inferno's frames
#   jitdump   inferno marks jitdump modules (jitted-PID-N.so) with _[j];
#             perl only /tmp/perf-PID.map: equal once inferno's are removed
#   inline    the frames are on the event line; perl reads no frame (and
#             gpuflame's sniffer does not see perf script): not compared
#   vmlinux   inferno takes "vmlinux-<version>" modules as kernel (_[k]) and
#             keeps the cut last sample; perl only "vmlinux" and "[...]"
cases="example-perf-stacks-collapsed.txt|FG:../example-perf-stacks.txt.gz||same
no-events-collapsed.txt|no-events.txt||same
go-stacks-collapsed.txt|go-stacks.txt||eof
java-inline-collapsed.txt|java-inline.txt||eof
single-event-collapsed.txt|single-event.txt||eof+rust
cpp-stacks-std-function-collapsed.txt|cpp-stacks-std-function.txt||cpp
sourcepawn-jitdump-collapsed-jit.txt|sourcepawn-jitdump.txt|--jit|jitdump
versioned-vmlinux-collapsed-kernel.txt|versioned-vmlinux.txt|--kernel|vmlinux
single-line-stacks-collapsed.txt|single-line-stacks.txt||inline"
for o in pid tid kernel jit all addrs; do
  cases="$cases
perf-rust-Yamakaky-dcpu-collapsed-$o.txt|FG:perf-rust-Yamakaky-dcpu.txt|--$o|rust"
done
rust_sed='s/::h[0-9a-f]\{16\}\(;\| [0-9]*$\)/\1/g; s/::h[0-9a-f]\{16\}\(;\| [0-9]*$\)/\1/g; s/\(^\|;\)_\$/\1$/g; s/\$LT\$/</g; s/\$GT\$/>/g; s/\$u20\$/ /g; s/\$u27\$/'"'"'/g; s/\$u5b\$/[/g; s/\$u5d\$/]/g; s/\$u7b\$/{/g; s/\$u7d\$/}/g; s/\$LP\$/(/g; s/\$RP\$/)/g; s/\$RF\$/\&/g; s/\$BP\$/*/g; s/\$C\$/,/g; s/\.\./::/g'
ninf=0
while IFS='|' read -r exp inp flag why; do
  [ -n "$exp" ] || continue
  ninf=$((ninf + 1))
  case $inp in FG:*) inp=$FG/${inp#FG:};; *) inp=$IN/$inp;; esac
  [ -f "$inp" ] || { fail "inferno-$exp" "no input $inp"; continue; }
  want=$IN/results/$exp
  case $why in
    same) "$GF" fold $flag "$inp" 2>/dev/null | nohdr >"$T/o"; cp "$want" "$T/w";;
    eof) { zcat -f "$inp"; echo; } | "$GF" fold $flag - 2>/dev/null | nohdr >"$T/o"; cp "$want" "$T/w";;
    eof+rust) { zcat -f "$inp"; echo; } | "$GF" fold $flag - 2>/dev/null | nohdr | sed "$rust_sed" |
              python3 tests/gen/fold_sum.py - >"$T/o"; cp "$want" "$T/w";;
    rust) "$GF" fold $flag "$inp" 2>/dev/null | nohdr | sed "$rust_sed" | python3 tests/gen/fold_sum.py - >"$T/o"
          cp "$want" "$T/w";;
    cpp) "$GF" fold $flag "$inp" 2>/dev/null | nohdr >"$T/o"
         python3 tests/gen/fold_sum.py --cut-args "$want" >"$T/w";;
    jitdump) "$GF" fold $flag "$inp" 2>/dev/null | nohdr >"$T/o"
         grep -q '_\[j\]' "$want" || { fail "inferno-$exp" "no jitdump frame to remove"; continue; }
         # inferno's extra _[j] are on frames of jitted-*.so modules; perl's
         # /tmp/perf-N.map ones the input has none of
         grep -q '/tmp/perf-[0-9]*\.map' "$inp" && { fail "inferno-$exp" "perf map frames too"; continue; }
         sed 's/_\[j\]//g' "$want" >"$T/w";;
    vmlinux) { zcat -f "$inp"; echo; } | "$GF" fold $flag - 2>/dev/null | nohdr >"$T/o"
         grep -q 'vmlinux-' "$inp" || { fail "inferno-$exp" "no versioned vmlinux"; continue; }
         sed 's/_\[k\]//g' "$want" >"$T/w";;
    inline) "$GF" fold $flag "$inp" >"$T/o" 2>"$T/e"; r=$?
         expect_eq "inferno-$exp-not-perf" "$r" 1; continue;;
  esac
  if cmp -s "$T/o" "$T/w"; then pass "inferno-$exp ($why)"; else fail "inferno-$exp ($why)" "$(diff "$T/o" "$T/w" | head -3 | cut -c1-200)"; fi
done <<<"$cases"
expect_eq inferno-results-count "$ninf" "$(ls "$IN"/results | wc -l)"

# speedscope's perf samples (the issue's forks.linux-perf.txt: 3,220 invalid
# lines before): every line read, nothing invalid
SP=$GF_SHARED/corpus/flamegraph/jlfwong-speedscope/sample/profiles/linux-perf
gf fold "$SP/forks.linux-perf.txt"; expect_rc forks-rc 0
expect_nogrep forks-no-unrecognized "unrecognized" "$T/err"
# its total is the sum of the periods of the samples ended by a blank line
want=$(awk 'BEGIN{RS=""} { if (match($0, /: *[0-9]+ +[^ ]+: *\n/)) { split(substr($0, RSTART, RLENGTH), a, " "); s += a[2] } } END {print s}' "$SP/forks.linux-perf.txt")
got=$(awk '{s += $NF} END {print s}' "$T/out")
expect_eq forks-total "$got" "$want"
