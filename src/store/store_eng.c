/*
 * store_eng.c — the engine interface's dispatch (store_eng.h): which engine
 * a URL names, and the statement calls through the engine's table.
 */
#include "store/store_eng.h"

#include <string.h>

int store_eng_open(struct store_eng **e, const char *url, struct sbuf *err)
{
	*e = NULL;
	if (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11))
		return store_eng_pg_open(e, url, err);
	if (!strncmp(url, "sqlite:", 7))
		url += 7;
	if (!*url) {
		sbuf_setf(err, "empty database path");
		return GF_EUSAGE;
	}
	return store_eng_sqlite_open(e, url, err);
}

void store_eng_close(struct store_eng *e)
{
	if (e)
		e->ops->close(e);
}

void store_eng_dialect(const struct store_eng *e, const char *sql, struct sbuf *out)
{
	bool pg = !strcmp(e->ops->kind, "postgresql");
	sbuf_reset(out);
	for (const char *p = sql; *p;) {
		if (!strncmp(p, "WITHOUT_ROWID", 13)) { /* SQLite: the table is its primary key's b-tree */
			sbuf_addstr(out, pg ? "" : "WITHOUT ROWID");
			p += 13;
		} else if (!strncmp(p, "BLOB", 4)) {
			sbuf_addstr(out, pg ? "BYTEA" : "BLOB");
			p += 4;
		} else {
			sbuf_addch(out, *p++);
		}
	}
}

int store_eng_step(struct store_stmt *st, struct sbuf *err) { return st->ops->step(st, err); }
void store_eng_bind_i64(struct store_stmt *st, int i, int64_t v) { st->ops->bind_i64(st, i, v); }
void store_eng_bind_text(struct store_stmt *st, int i, const char *s, size_t n) { st->ops->bind_text(st, i, s, n, false); }
void store_eng_bind_blob(struct store_stmt *st, int i, const char *s, size_t n) { st->ops->bind_text(st, i, s, n, true); }
int64_t store_eng_col_i64(struct store_stmt *st, int i) { return st->ops->col_i64(st, i); }
const char *store_eng_col_text(struct store_stmt *st, int i, size_t *n) { return st->ops->col_text(st, i, n); }
bool store_eng_col_null(struct store_stmt *st, int i) { return st->ops->col_null(st, i); }
void store_eng_reset(struct store_stmt *st) { st->ops->reset(st); }
void store_eng_free(struct store_stmt *st)
{
	if (st)
		st->ops->free(st);
}
