#!/usr/bin/env bash
# store_pg.sh — the release store on a real PostgreSQL server (tests/cli/store_cases.inc):
# Debian's postgresql, initdb'ed into a temporary folder and started on a socket of its
# own (tests/cli/pg.inc), stopped on exit, on failure too. Plus: passwords never printed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.inc"
trap 'pg_stop; rm -rf "$T"' EXIT
pg_start || exit 0
ENGINE=pg
DB=$PG_URL
sql() { $PG_PSQL -c "$1"; }
fresh_db() { $PG_PSQL -c "SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null; }
blit() { printf "'\\\\x%s'::bytea" "$(printf %s "$1" | od -An -v -tx1 | tr -d ' \n')"; }
bhex() { echo "encode($1, 'hex')"; }
# what a read must not change: every table with its columns' types, and gf_meta
snapshot() { sql "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 2"
  sql "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1"
  sql "SELECT * FROM gf_meta ORDER BY key" 2>/dev/null; sql "SELECT count(*) FROM runs" 2>/dev/null; }
# schema 2 back to schema 1: migration 2 undone
downgrade() { sql "DROP INDEX runs_digest; ALTER TABLE runs DROP COLUMN digest,
  ALTER COLUMN release TYPE TEXT USING convert_from(release, 'UTF8'),
  ALTER COLUMN source TYPE TEXT USING convert_from(source, 'UTF8');
  ALTER TABLE labels ALTER COLUMN value TYPE TEXT USING convert_from(value, 'UTF8');
  UPDATE gf_meta SET value = '1' WHERE key = 'schema'" >/dev/null; }
. "$(dirname "$0")/store_cases.inc"
# a wrong server is a clear error, exit 1
"$GF" store list --db "postgresql:///gftest?host=$T&port=1&user=postgres" >"$T/out" 2>"$T/err"; rc=$?
expect_rc "pg-unreachable-rc" 1
expect_grep "pg-unreachable-msg" "cannot connect to PostgreSQL" "$T/err"
# a database that does not exist is not created
"$GF" store list --db "${PG_URL/gftest/gfnosuch}" >"$T/out" 2>"$T/err"; rc=$?
expect_rc "pg-no-database-rc" 1
expect_eq "pg-no-database-not-created" "$($PG_PSQL -c "SELECT count(*) FROM pg_database WHERE datname = 'gfnosuch'")" 0
# passwords are never printed: user:pass@, ?password=, &password=, a bad %-escape libpq echoes
PGH="host=$PG_DIR&port=1"
for url in "postgresql://alice:s3cretpw@/gftest?$PGH" "postgresql:///gftest?password=s3cretpw&$PGH" \
  "postgresql:///gftest?$PGH&password=s3cretpw" "postgresql://alice:s3cret%zzpw@/gftest?$PGH" \
  "postgres://alice:s3cretpw@localhost:1/gftest"; do
  i=$((${i:-0} + 1)); n="form $i"
  for a in list add diff; do
    case $a in add) args=(add --release x "$G/v2.folded") ;; diff) args=(diff 1 2) ;; *) args=(list) ;; esac
    "$GF" store "${args[@]}" --db "$url" >"$T/out" 2>"$T/err"; rc=$?
    expect_rc "pg-password-rc $a $n" 1
    expect_nogrep "pg-password-hidden $a $n" "s3cret" "$T/err"
  done
  "$GF" push --url http://127.0.0.1:1 --app x --db "$url" run:1 >"$T/out" 2>"$T/err"; rc=$?
  expect_nogrep "pg-password-hidden-push $n" "s3cret" "$T/err"
done
exit 0
