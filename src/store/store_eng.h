/*
 * store_eng.h — the one small interface the release store (store.h) talks
 * to a SQL engine through: SQLite (store_sqlite.c, the embedded default)
 * and PostgreSQL (store_pg.c, for a team). The store writes its schema and
 * queries once, in the SQL both engines take, with '?' placeholders (the
 * PostgreSQL engine numbers them $1, $2...); the few places where the
 * dialects differ are operations of this interface, not SQL text:
 *  - begin_write: the write transaction that serialises writers (SQLite
 *    BEGIN IMMEDIATE with a busy timeout; PostgreSQL BEGIN plus a
 *    transaction-scoped advisory lock), so two adds at once both land, one
 *    after the other, and a migration runs once;
 *  - the type of byte strings: BLOB (SQLite) / BYTEA (PostgreSQL), written
 *    "BLOB" in the schema and replaced by the engine; "WITHOUT_ROWID" after
 *    a table is SQLite's WITHOUT ROWID (the table is its key's b-tree: half
 *    the size for samples) and nothing for PostgreSQL;
 *  - bulk loading: bulk_begin/bulk_row/bulk_end (SQLite: a prepared INSERT
 *    per row inside the transaction; PostgreSQL: COPY FROM STDIN, one round
 *    trip for the whole table);
 *  - tables_sql: the query listing the database's own tables (sqlite_master;
 *    information_schema in the current schema), to tell a gpuflame store, an
 *    empty database and another program's database apart;
 *  - own: called once a write has made sure the database is a gpuflame
 *    store (SQLite switches it to the WAL journal then, never before: a
 *    read, or a refused write, leaves the file as it was).
 *
 *   struct store_eng *e;
 *   if (store_eng_open(&e, "postgresql://u@/db?host=/tmp", &err)) ...
 *   struct store_stmt *st;
 *   store_eng_prepare(e, "SELECT id FROM runs WHERE release = ?", &st, &err);
 *   store_eng_bind_text(st, 1, "v2", 2);
 *   while ((rc = store_eng_step(st, &err)) == 1) id = store_eng_col_i64(st, 0);
 *   store_eng_free(st);
 *
 * Values: integers are int64 (BIGINT), text is bytes with a length (TEXT
 * columns hold what the user typed; stack names, untrusted bytes, go to
 * BLOB columns: no encoding check can refuse them).
 * Errors: GF_EINPUT (the database could not be opened or a statement
 * failed: the engine's own message, prefixed with what was being done),
 * GF_EOUTPUT (disk full, read-only database) in err.
 *
 * Layer: store. Never prints.
 */
#ifndef GF_STORE_ENG_H
#define GF_STORE_ENG_H

#include "base/gf.h"
#include "base/sbuf.h"

struct store_eng;
struct store_stmt;

struct store_eng_ops {
	const char *kind; /* "sqlite" or "postgresql" */
	int (*exec)(struct store_eng *e, const char *sql, struct sbuf *err);
	int (*begin_write)(struct store_eng *e, struct sbuf *err);
	int (*prepare)(struct store_eng *e, const char *sql, struct store_stmt **st, struct sbuf *err);
	void (*bind_i64)(struct store_stmt *st, int i, int64_t v);
	void (*bind_text)(struct store_stmt *st, int i, const char *s, size_t n, bool blob);
	int (*step)(struct store_stmt *st, struct sbuf *err);
	int64_t (*col_i64)(struct store_stmt *st, int i);
	const char *(*col_text)(struct store_stmt *st, int i, size_t *n);
	bool (*col_null)(struct store_stmt *st, int i);
	void (*reset)(struct store_stmt *st);
	void (*free)(struct store_stmt *st);
	/* bulk load of table(cols) (ncols columns, "hash,text"): kinds[i] 'i'
	 * int64, 't' text, 'b' blob */
	int (*bulk_begin)(struct store_eng *e, const char *table, const char *cols, const char *kinds,
			  struct sbuf *err);
	int (*bulk_row)(struct store_eng *e, const int64_t *iv, const char *const *sv, const size_t *sn,
			struct sbuf *err);
	int (*bulk_end)(struct store_eng *e, struct sbuf *err);
	int (*own)(struct store_eng *e, struct sbuf *err);
	void (*close)(struct store_eng *e);
	const char *tables_sql;
};

struct store_eng {
	const struct store_eng_ops *ops;
	char *where; /* the database for messages: a path, or the URL without its password */
};

/*
 * Opens the database url: "postgresql://..." or "postgres://..." (libpq's
 * connection URI) for PostgreSQL, "sqlite:PATH" or a plain PATH for SQLite.
 * flags:
 *   STORE_ENG_READONLY  nothing is written: SQLite runs no write
 *                       (query_only; the connection is opened for writing
 *                       when it can be, so that a WAL database's -wal and
 *                       -shm files go at close, read-only otherwise, and as
 *                       an immutable file when a read-only folder cannot
 *                       take the -shm file); PostgreSQL sessions are
 *                       read-only;
 *   STORE_ENG_CREATE    SQLite creates a missing file (otherwise a missing
 *                       file is "no such store").
 * SQLite refuses what is not a regular file (/dev/null, a FIFO...) before
 * opening it. @return GF_OK or GF_EINPUT with the engine's message; the
 * URL's password (user:PASSWORD@, ?password=, password=) never appears in
 * a message, e->where included (store_eng_redact).
 */
enum { STORE_ENG_READONLY = 1, STORE_ENG_CREATE = 2 };
int store_eng_open(struct store_eng **e, const char *url, unsigned flags, struct sbuf *err);
int store_eng_sqlite_open(struct store_eng **e, const char *path, unsigned flags, struct sbuf *err);
int store_eng_pg_open(struct store_eng **e, const char *url, unsigned flags, struct sbuf *err);
void store_eng_close(struct store_eng *e);

/* url with every password replaced by "***": the userinfo's
 * (scheme://user:PASSWORD@) and every password=VALUE keyword (a URI's
 * ?password= / &password=, a conninfo's password=VALUE or
 * password='quoted value'). */
char *store_eng_redact(const char *url);
/* Replaces in msg every occurrence of the passwords of url (as written and
 * percent-decoded) by "***" (an engine may echo a part of the URL). */
void store_eng_scrub(const char *url, struct sbuf *msg);

/* The SQL of the schema for e: "BLOB" and "WITHOUT_ROWID" as above. */
void store_eng_dialect(const struct store_eng *e, const char *sql, struct sbuf *out);

static inline int store_eng_exec(struct store_eng *e, const char *sql, struct sbuf *err)
{
	return e->ops->exec(e, sql, err);
}
static inline int store_eng_prepare(struct store_eng *e, const char *sql, struct store_stmt **st,
				    struct sbuf *err)
{
	return e->ops->prepare(e, sql, st, err);
}

/* The statements of an engine (placeholders numbered from 1, columns from
 * 0). Every engine's statement starts with this header. store_eng_step:
 * 1 a row, 0 done, < 0 an error (gf_err). */
struct store_stmt {
	const struct store_eng_ops *ops;
};
int store_eng_step(struct store_stmt *st, struct sbuf *err);
void store_eng_bind_i64(struct store_stmt *st, int i, int64_t v);
void store_eng_bind_text(struct store_stmt *st, int i, const char *s, size_t n);
void store_eng_bind_blob(struct store_stmt *st, int i, const char *s, size_t n);
int64_t store_eng_col_i64(struct store_stmt *st, int i);
const char *store_eng_col_text(struct store_stmt *st, int i, size_t *n);
bool store_eng_col_null(struct store_stmt *st, int i);
void store_eng_reset(struct store_stmt *st);
void store_eng_free(struct store_stmt *st);

#endif
