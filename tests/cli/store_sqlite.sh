#!/usr/bin/env bash
# store_sqlite.sh — the release store on a real SQLite file (tests/cli/store_cases.inc),
# plus what only a file can show: a full disk (a file size limit) fails cleanly.
. "$(dirname "$0")/lib.sh"
ENGINE=sqlite
DB=$T/store.db
sql() { python3 -c "
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=60)
for r in c.execute(sys.argv[2]): print('|'.join(str(x) for x in r))
c.commit()" "$DB" "$1"; }
integrity() { sql "PRAGMA integrity_check"; }
fresh_db() { rm -f "$DB" "$DB-wal" "$DB-shm"; }
STEPS_LO="X'232073746570733b'" STEPS_HI="X'232073746570733c'" # the per-step stacks' range (store_cases.inc)
. "$(dirname "$0")/store_cases.inc"

# a store where folded stacks are expected: the hint names store list
gf svg "$DB"; expect_rc "sqlite-hint-rc" 1
expect_grep "sqlite-hint-msg" "is an SQLite database \(an Nsight Systems export\?\), not folded stacks: a gpuflame store\? run 'gpuflame store list --db .*store.db'" "$T/err"
# not a database: refused, the file untouched
cp "$G/v2.folded" "$T/not.db"
gf store list --db "$T/not.db"; expect_rc "sqlite-not-db-rc" 1
expect_grep "sqlite-not-db-msg" "'.*not.db': not a usable SQLite database: file is not a database" "$T/err"
expect_same "sqlite-not-db-untouched" "$T/not.db" "$G/v2.folded"
# the default database: $GPUFLAME_DB
GPUFLAME_DB=$T/env.db "$GF" store add --release e "$G/v2.folded" >/dev/null 2>&1
expect_eq "sqlite-env-db" "$(DB=$T/env.db sql "SELECT release FROM runs")" e
# a full disk (here: the file size limit) leaves no partial run and a sound file
fresh_db
"$GF" store add --db "$DB" --release small "$G/v2.folded" >/dev/null 2>&1
( trap '' XFSZ; ulimit -f 200; exec "$GF" store add --db "$DB" --release huge "$G/big.folded" "$G/big.folded" ) >"$T/out" 2>"$T/err"
rc=$?
expect_rc "sqlite-full-rc" 3
expect_grep "sqlite-full-msg" "store\.db'.*(disk|full|I/O|write)" "$T/err"
expect_eq "sqlite-full-no-run" "$(sql "SELECT count(*) FROM runs WHERE release = 'huge'")" 0
expect_eq "sqlite-full-integrity" "$(integrity)" ok
exit 0
