#!/usr/bin/env bash
# packaging.sh — `make install` / `make uninstall` into a temporary PREFIX
# (the binary stripped, `man gpuflame-report` works, completions and docs in
# place; uninstall leaves nothing), `gpuflame --version` names the decoders
# built in, and `dpkg-buildpackage -us -uc -b` builds a .deb holding the
# binary, the man pages and the completions (issue 17). The .deb is built in
# a copy of the tree; it SKIPs where debhelper is absent (scripts/deps.sh test
# installs it, so CI runs it).
. "$(dirname "$0")/lib.sh"
root=$(pwd)
REL=${GF_REL:-$root/build/rel/gpuflame}

# make install / uninstall (the release build; built here when missing)
make -s -C "$root" install MODE=rel PREFIX="$T/p" >"$T/inst.log" 2>&1; rc=$?
expect_rc install-rc 0
p=$T/p
for f in bin/gpuflame share/man/man1/gpuflame.1 share/man/man1/gpuflame-report.1 share/man/man1/gpuflame-svg.1 \
         share/bash-completion/completions/gpuflame share/zsh/site-functions/_gpuflame \
         share/doc/gpuflame/README.md share/doc/gpuflame/docs/cli.md; do
  if [ -f "$p/$f" ]; then pass "installed-$f"; else fail "installed-$f" "missing"; fi
done
if readelf -S "$p/bin/gpuflame" 2>/dev/null | grep -qE '\.(debug_info|symtab)'; then
  fail installed-stripped "debug sections or a symbol table left"; else pass installed-stripped; fi
n_cmds=$(ls "$root"/src/cli/cmd_*.c | wc -l)
expect_eq installed-one-page-per-command "$(ls "$p/share/man/man1" | grep -c '^gpuflame-')" "$n_cmds"
MANWIDTH=100 man -M "$p/share/man" gpuflame-report >"$T/man.txt" 2>"$T/man.err"; rc=$?
expect_rc man-report-rc 0
expect_grep man-report-options "^OPTIONS" "$T/man.txt"
expect_grep man-report-max-steps "--max-steps N" "$T/man.txt"
expect_grep man-report-docs "$p/share/doc/gpuflame/docs/report.md" "$T/man.txt"
"$p/bin/gpuflame" --version >"$T/version"
expect_grep version-decoders "^decoders: plain, gzip \(zlib [0-9.]+.*\), zstd \(libzstd [0-9]+\.[0-9]+\.[0-9]+\)$" "$T/version"
if grep -q -- '-DGF_HAVE_ISAL=1' <(make -s -n -B -C "$root" MODE=rel build/rel/obj/src/input/source.o 2>/dev/null); then
  expect_grep version-isal "ISA-L igzip fast path" "$T/version"
else
  expect_grep version-no-isal "no ISA-L fast path" "$T/version"
fi
make -s -C "$root" uninstall MODE=rel PREFIX="$T/p" >"$T/uninst.log" 2>&1; rc=$?
expect_rc uninstall-rc 0
left=$(find "$p" -type f | head -5)
expect_eq uninstall-removes-all "$left" ""

# ISA-L is explicit: ISAL=1 without its header stops with the way out
make -s -C "$root" MODE=rel ISAL_H=/nonexistent/igzip_lib.h isal-check >"$T/isal.out" 2>&1; rc=$?
expect_rc isal-missing-rc 2
expect_grep isal-missing-msg "ISA-L is missing .*scripts/deps.sh build.*make ISAL=0" "$T/isal.out"
make -s -C "$root" MODE=rel ISAL=0 ISAL_H=/nonexistent/igzip_lib.h isal-check >"$T/isal.out" 2>&1; rc=$?
expect_rc isal-off-rc 0
# make demo / make test install nothing themselves: their first step is scripts/deps.sh, printed
for t in demo test; do
  make -n --no-print-directory -C "$root" "$t" 2>/dev/null | head -1 >"$T/first"
  expect_grep "make-$t-deps-first" "^scripts/deps.sh (build|test)$" "$T/first"
  if make -n -C "$root" "$t" 2>/dev/null | grep -q 'apt-get'; then fail "make-$t-no-apt"; else pass "make-$t-no-apt"; fi
done
DEPS_CHECK=1 bash "$root/scripts/deps.sh" build >"$T/deps.out" 2>&1
expect_grep deps-says-what "^deps: build: (all [0-9]+ Debian packages present, nothing to install|missing .*)$" "$T/deps.out"

# the Debian package
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh >/dev/null; then
  skip deb-build "debhelper not installed (scripts/deps.sh test installs it)"
  exit 0
fi
src=$T/deb/gpuflame-0.1.0
mkdir -p "$src"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$root" && git ls-files -co --exclude-standard -z | grep -zv '^tests/golden/' | xargs -0 cp --parents -t "$src")
else
  (cd "$root" && tar --exclude=./build --exclude=./.git -cf - .) | (cd "$src" && tar -xf -)
fi
(cd "$src" && DEB_BUILD_OPTIONS="parallel=2 nocheck" dpkg-buildpackage -us -uc -b >"$T/deb.log" 2>&1); rc=$?
expect_rc deb-build "0"
[ "$rc" -eq 0 ] || tail -20 "$T/deb.log"
deb=$(ls "$T"/deb/gpuflame_0.1.0_*.deb 2>/dev/null | head -1)
if [ -z "$deb" ]; then fail deb-file "no .deb"; exit 0; fi
dpkg-deb -c "$deb" | awk '{print $6}' >"$T/contents"
for f in ./usr/bin/gpuflame ./usr/share/man/man1/gpuflame.1.gz ./usr/share/man/man1/gpuflame-report.1.gz \
         ./usr/share/bash-completion/completions/gpuflame ./usr/share/zsh/vendor-completions/_gpuflame \
         ./usr/share/doc/gpuflame/docs/cli.md; do
  expect_grep "deb-has-$f" "^${f//./\\.}$" "$T/contents"
done
mkdir "$T/root" && dpkg-deb -x "$deb" "$T/root"
"$T/root/usr/bin/gpuflame" --version >"$T/v2" 2>&1; rc=$?
expect_rc deb-binary-runs 0
expect_grep deb-man-docdir "/usr/share/doc/gpuflame/docs/report.md" <(zcat "$T/root/usr/share/man/man1/gpuflame-report.1.gz")
exit 0
