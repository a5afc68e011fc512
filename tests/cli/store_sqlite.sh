#!/usr/bin/env bash
# store_sqlite.sh — the release store on a real SQLite file (tests/cli/store_cases.inc),
# plus what only a file can show: a full disk (a file size limit) fails cleanly, a store in
# a read-only folder is still read, /dev/null and a missing --db are refused untouched.
. "$(dirname "$0")/lib.sh"
ENGINE=sqlite
DB=$T/store.db
sql() { python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=60)
q = sys.argv[2].strip().rstrip(';')
if ';' in q:
    c.executescript(q)
else:
    for r in c.execute(q): print('|'.join(str(x) for x in r))
c.commit()
c.close()" "$DB" "$1"; }
integrity() { sql "PRAGMA integrity_check"; }
fresh_db() { rm -f "$DB" "$DB-wal" "$DB-shm" "$DB-journal"; }
blit() { printf "x'%s'" "$(printf %s "$1" | od -An -v -tx1 | tr -d ' \n')"; }
bhex() { echo "lower(hex($1))"; }
# what a read must not change: the file's bytes (its journal mode included) and the folder's names
snapshot() { ls -a "$(dirname "$DB")"; { md5sum <"$DB"; } 2>/dev/null || echo absent; }
# schema 2 back to schema 1: migration 2 undone
downgrade() { sql "DROP INDEX runs_digest; ALTER TABLE runs DROP COLUMN digest" >/dev/null
  sql "UPDATE runs SET release = CAST(release AS TEXT), source = CAST(source AS TEXT)" >/dev/null
  sql "UPDATE labels SET value = CAST(value AS TEXT)" >/dev/null
  sql "UPDATE gf_meta SET value = '1' WHERE key = 'schema'" >/dev/null; }
. "$(dirname "$0")/store_cases.inc"

# a store where folded stacks are expected: the hint names store list
fresh_db
"$GF" store add --db "$DB" --release v2 "$G/v2.folded" >/dev/null 2>&1
gf svg "$DB"; expect_rc "sqlite-hint-rc" 1
expect_grep "sqlite-hint-msg" "is an SQLite database \(an Nsight Systems export\?\), not folded stacks: a gpuflame store\? run 'gpuflame store list --db .*store.db'" "$T/err"
# not a database: refused, the file untouched
cp "$G/v2.folded" "$T/not.db"
gf store list --db "$T/not.db"; expect_rc "sqlite-not-db-rc" 1
expect_grep "sqlite-not-db-msg" "'.*not.db': not a usable SQLite database: file is not a database" "$T/err"
expect_same "sqlite-not-db-untouched" "$T/not.db" "$G/v2.folded"
gf store add --db "$T/not.db" --release x "$G/v2.folded"; expect_rc "sqlite-not-db-add-rc" 1
expect_same "sqlite-not-db-add-untouched" "$T/not.db" "$G/v2.folded"
# a missing --db: reads and gc create no file; add does
for a in "list" "show 1" "trend --metric steps" "diff 1 2" "gc --keep 1"; do
  # shellcheck disable=SC2086
  gf store $a --db "$T/typo.db"; expect_rc "sqlite-typo-$a-rc" 1
  expect_grep "sqlite-typo-$a-msg" "typo.db': no such store \('gpuflame store add' creates one\)" "$T/err"
done
expect_eq "sqlite-typo-no-file" "$(ls "$T" | grep -c typo)" 0
# not a regular file: /dev/null, a FIFO (never opened: no -journal beside it, no hang)
had_journal=$([ -e /dev/null-journal ] && echo yes || echo no)
for a in "list" "add --release x $G/v2.folded"; do
  # shellcheck disable=SC2086
  gf store $a --db /dev/null; expect_rc "sqlite-devnull-$a-rc" 1
  expect_grep "sqlite-devnull-$a-msg" "'/dev/null': not a regular file: an SQLite store is a file" "$T/err"
done
if [ "$had_journal" = no ]; then
  expect_eq "sqlite-devnull-no-journal" "$([ -e /dev/null-journal ] && echo yes || echo no)" no
else
  skip "sqlite-devnull-no-journal" "/dev/null-journal was there before the test"
fi
mkfifo "$T/fifo.db"
timeout 30 "$GF" store add --db "$T/fifo.db" --release x "$G/v2.folded" >"$T/out" 2>"$T/err"; rc=$?
expect_rc "sqlite-fifo-rc" 1
expect_eq "sqlite-fifo-no-journal" "$(ls "$T" | grep -c fifo.db-)" 0
# a conninfo given as a path: its password is not printed
gf store list --db "host=/nonexistent password=s3cretpw dbname=x"; expect_rc "sqlite-conninfo-rc" 1
expect_nogrep "sqlite-conninfo-no-password" "s3cretpw" "$T/err"
expect_grep "sqlite-conninfo-redacted" "password=\*\*\*" "$T/err"
# a store in a read-only folder (or mount): read, as a user who cannot write there
fresh_db
"$GF" store add --db "$DB" --release ro1 "$G/v1a.folded" >/dev/null
"$GF" store add --db "$DB" --release ro2 "$G/v2.folded" >/dev/null
"$GF" store diff --db "$DB" ro1 ro2 >"$T/ro.want"
RO=$T/ro; mkdir -p "$RO"; cp "$DB" "$RO/store.db"
chmod 755 "$T"; chmod 555 "$RO"; chmod 444 "$RO/store.db"
as_user() { if [ "$(id -u)" = 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi; }
if as_user test -w "$RO"; then
  skip "sqlite-readonly-folder" "the folder stays writable for this user"
else
  as_user "$GF" store list --db "$RO/store.db" >"$T/out" 2>"$T/err"; rc=$?
  expect_rc "sqlite-readonly-list-rc" 0
  expect_eq "sqlite-readonly-list-rows" "$(grep -cE '^ +[12]  ro[12] ' "$T/out")" 2
  as_user "$GF" store diff --db "$RO/store.db" ro1 ro2 >"$T/out" 2>"$T/err"; rc=$?
  expect_rc "sqlite-readonly-diff-rc" 0
  expect_same "sqlite-readonly-diff" "$T/out" "$T/ro.want"
  as_user "$GF" store add --db "$RO/store.db" --release x "$G/v3.folded" >"$T/out" 2>"$T/err"; rc=$?
  expect_rc "sqlite-readonly-add-rc" 3
  expect_eq "sqlite-readonly-folder-untouched" "$(ls -A "$RO")" store.db
fi
chmod 755 "$RO"
# the default database: $GPUFLAME_DB
GPUFLAME_DB=$T/env.db "$GF" store add --release e "$G/v2.folded" >/dev/null 2>&1
expect_eq "sqlite-env-db" "$(DB=$T/env.db sql "SELECT CAST(release AS TEXT) FROM runs")" e
# a full disk (here: the file size limit) leaves no partial run and a sound file
fresh_db
"$GF" store add --db "$DB" --release small "$G/v2.folded" >/dev/null 2>&1
( trap '' XFSZ; ulimit -f 200; exec "$GF" store add --db "$DB" --release huge "$G/big.folded" "$G/big.folded" ) >"$T/out" 2>"$T/err"
rc=$?
expect_rc "sqlite-full-rc" 3
expect_grep "sqlite-full-msg" "store\.db'.*(disk|full|I/O|write)" "$T/err"
expect_eq "sqlite-full-no-run" "$(sql "SELECT count(*) FROM runs WHERE release = $(blit huge)")" 0
expect_eq "sqlite-full-integrity" "$(integrity)" ok
exit 0
