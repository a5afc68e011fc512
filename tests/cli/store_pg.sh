#!/usr/bin/env bash
# store_pg.sh — the release store on a real PostgreSQL server (tests/cli/store_cases.inc):
# Debian's postgresql, initdb'ed into a temporary folder and started on a socket of its
# own (tests/cli/pg.inc), stopped on exit, on failure too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.inc"
trap 'pg_stop; rm -rf "$T"' EXIT
pg_start || exit 0
ENGINE=pg
DB=$PG_URL
sql() { $PG_PSQL -c "$1"; }
fresh_db() { $PG_PSQL -c "DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null; }
STEPS_LO="'\\x232073746570733b'::bytea" STEPS_HI="'\\x232073746570733c'::bytea" # the per-step stacks' range (store_cases.inc)
. "$(dirname "$0")/store_cases.inc"
# a wrong server is a clear error, exit 1
"$GF" store list --db "postgresql:///gftest?host=$T&port=1&user=postgres" >"$T/out" 2>"$T/err"; rc=$?
expect_rc "pg-unreachable-rc" 1
expect_grep "pg-unreachable-msg" "cannot connect to PostgreSQL" "$T/err"
exit 0
