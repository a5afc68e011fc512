/*
 * store_pg.c — the PostgreSQL engine of the release store (store_eng.h),
 * through libpq: '?' placeholders become $1..$n, results come back in
 * binary (int8 big-endian, bytea raw), blobs go as binary parameters, bulk
 * loads are one COPY ... FROM STDIN (text format, every byte escaped).
 * Write transactions take a transaction-scoped advisory lock, so writers
 * (adds, migrations, gc) run one after the other and all land; the store
 * takes it before it reads or creates anything (a first use by several
 * processes at once). A read session is read-only
 * (default_transaction_read_only): it cannot change the database.
 */
#include "store/store_eng.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_MAX_PARAMS 16
#define PG_LOCK_KEY "7364001" /* the store's advisory lock */

struct pg_eng {
	struct store_eng e;
	PGconn *c;
	unsigned nstmt;
	char kinds[8];
	int ncols;
	struct sbuf copy; /* COPY rows not sent yet */
};

struct pg_stmt {
	struct store_stmt h;
	struct pg_eng *e;
	char name[24];
	int nparams;
	char *val[PG_MAX_PARAMS];
	int len[PG_MAX_PARAMS], fmt[PG_MAX_PARAMS];
	PGresult *res;
	int row, nrows;
	bool ran;
};

static const struct store_eng_ops pg_ops;

static int pg_fail(struct pg_eng *q, const char *what, const PGresult *r, struct sbuf *err)
{
	const char *m = r ? PQresultErrorMessage(r) : PQerrorMessage(q->c);
	size_t n = strlen(m);
	while (n && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	sbuf_setf(err, "'%s': %s: %.*s", q->e.where, what, (int)n, m);
	for (size_t i = 0; i < err->len; i++)
		if (err->buf[i] == '\n')
			err->buf[i] = ' ';
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	/* 53100 disk full, 53200 out of memory, 25006 read-only transaction */
	if (state && (!strcmp(state, "53100") || !strcmp(state, "25006")))
		return GF_EOUTPUT;
	return GF_EINPUT;
}

static int pg_exec(struct store_eng *e, const char *sql, struct sbuf *err)
{
	struct pg_eng *q = (struct pg_eng *)e;
	PGresult *r = PQexec(q->c, sql);
	ExecStatusType s = PQresultStatus(r);
	int rc = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? GF_OK : pg_fail(q, "SQL failed", r, err);
	PQclear(r);
	return rc;
}

static int pg_begin_write(struct store_eng *e, struct sbuf *err)
{
	return pg_exec(e, "BEGIN; SELECT pg_advisory_xact_lock(" PG_LOCK_KEY ")", err);
}

static int pg_prepare(struct store_eng *e, const char *sql, struct store_stmt **out, struct sbuf *err)
{
	struct pg_eng *q = (struct pg_eng *)e;
	struct sbuf s = SBUF_INIT;
	int n = 0;
	for (const char *p = sql; *p; p++) {
		if (*p == '?')
			sbuf_addf(&s, "$%d", ++n);
		else
			sbuf_addch(&s, *p);
	}
	struct pg_stmt *st = gf_xcalloc(1, sizeof *st);
	st->h.ops = &pg_ops;
	st->e = q;
	st->nparams = n;
	snprintf(st->name, sizeof st->name, "gf%u", ++q->nstmt);
	PGresult *r = PQprepare(q->c, st->name, s.buf, n, NULL);
	sbuf_release(&s);
	if (n > PG_MAX_PARAMS || PQresultStatus(r) != PGRES_COMMAND_OK) {
		int rc = pg_fail(q, "cannot prepare a statement", r, err);
		PQclear(r);
		free(st);
		return rc;
	}
	PQclear(r);
	*out = &st->h;
	return GF_OK;
}

static void pg_set(struct pg_stmt *st, int i, const char *s, size_t n, int fmt)
{
	if (i < 1 || i > st->nparams)
		return;
	free(st->val[i - 1]);
	st->val[i - 1] = gf_xmalloc(n + 1);
	memcpy(st->val[i - 1], s, n);
	st->val[i - 1][n] = 0;
	st->len[i - 1] = (int)n;
	st->fmt[i - 1] = fmt;
}

static void pg_bind_i64(struct store_stmt *h, int i, int64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof b, "%lld", (long long)v);
	pg_set((struct pg_stmt *)h, i, b, (size_t)n, 0);
}

static void pg_bind_text(struct store_stmt *h, int i, const char *s, size_t n, bool blob)
{
	pg_set((struct pg_stmt *)h, i, s, n, blob ? 1 : 0);
}

static int pg_step(struct store_stmt *h, struct sbuf *err)
{
	struct pg_stmt *st = (struct pg_stmt *)h;
	if (!st->ran) {
		st->ran = true;
		st->res = PQexecPrepared(st->e->c, st->name, st->nparams, (const char *const *)st->val, st->len,
					 st->fmt, 1);
		ExecStatusType s = PQresultStatus(st->res);
		if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
			return pg_fail(st->e, "query failed", st->res, err);
		st->nrows = PQntuples(st->res);
		st->row = -1;
	}
	return ++st->row < st->nrows ? 1 : 0;
}

static int64_t pg_col_i64(struct store_stmt *h, int i)
{
	struct pg_stmt *st = (struct pg_stmt *)h;
	if (PQgetisnull(st->res, st->row, i))
		return 0;
	const unsigned char *p = (const unsigned char *)PQgetvalue(st->res, st->row, i);
	int n = PQgetlength(st->res, st->row, i);
	uint64_t v = 0;
	for (int k = 0; k < n; k++)
		v = v << 8 | p[k];
	if (n == 4) /* int4 (a count cast as such) */
		return (int32_t)(uint32_t)v;
	return (int64_t)v;
}

static const char *pg_col_text(struct store_stmt *h, int i, size_t *n)
{
	struct pg_stmt *st = (struct pg_stmt *)h;
	*n = (size_t)PQgetlength(st->res, st->row, i);
	return PQgetvalue(st->res, st->row, i);
}

static bool pg_col_null(struct store_stmt *h, int i)
{
	struct pg_stmt *st = (struct pg_stmt *)h;
	return PQgetisnull(st->res, st->row, i);
}

static void pg_reset(struct store_stmt *h)
{
	struct pg_stmt *st = (struct pg_stmt *)h;
	PQclear(st->res);
	st->res = NULL;
	st->ran = false;
	for (int i = 0; i < st->nparams; i++) {
		free(st->val[i]);
		st->val[i] = NULL;
		st->len[i] = 0;
		st->fmt[i] = 0;
	}
}

static void pg_free(struct store_stmt *h)
{
	struct pg_stmt *st = (struct pg_stmt *)h;
	pg_reset(h);
	char sql[48];
	snprintf(sql, sizeof sql, "DEALLOCATE %s", st->name);
	PQclear(PQexec(st->e->c, sql));
	free(st);
}

static int pg_bulk_begin(struct store_eng *e, const char *table, const char *cols, const char *kinds,
			 struct sbuf *err)
{
	struct pg_eng *q = (struct pg_eng *)e;
	q->ncols = (int)strlen(kinds);
	memcpy(q->kinds, kinds, (size_t)q->ncols + 1);
	struct sbuf sql = SBUF_INIT;
	sbuf_addf(&sql, "COPY %s(%s) FROM STDIN", table, cols);
	PGresult *r = PQexec(q->c, sql.buf);
	sbuf_release(&sql);
	int rc = PQresultStatus(r) == PGRES_COPY_IN ? GF_OK : pg_fail(q, "COPY failed", r, err);
	PQclear(r);
	sbuf_reset(&q->copy);
	return rc;
}

static int pg_flush(struct pg_eng *q, struct sbuf *err)
{
	if (q->copy.len && PQputCopyData(q->c, q->copy.buf, (int)q->copy.len) != 1)
		return pg_fail(q, "COPY failed", NULL, err);
	sbuf_reset(&q->copy);
	return GF_OK;
}

/* COPY text format: \\ \t \n \r escaped; bytea as \\x<hex> (the backslash
 * of bytea's hex form is itself escaped for COPY). */
static void pg_copy_text(struct sbuf *b, const char *s, size_t n, bool blob)
{
	static const char hex[] = "0123456789abcdef";
	if (blob) {
		sbuf_addstr(b, "\\\\x");
		for (size_t i = 0; i < n; i++) {
			sbuf_addch(b, hex[(unsigned char)s[i] >> 4]);
			sbuf_addch(b, hex[(unsigned char)s[i] & 15]);
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\\' || c == '\t' || c == '\n' || c == '\r') {
			sbuf_addch(b, '\\');
			c = c == '\t' ? 't' : c == '\n' ? 'n' : c == '\r' ? 'r' : c;
		}
		sbuf_addch(b, c);
	}
}

static int pg_bulk_row(struct store_eng *e, const int64_t *iv, const char *const *sv, const size_t *sn,
		       struct sbuf *err)
{
	struct pg_eng *q = (struct pg_eng *)e;
	for (int i = 0; i < q->ncols; i++) {
		if (i)
			sbuf_addch(&q->copy, '\t');
		if (q->kinds[i] == 'i')
			sbuf_addf(&q->copy, "%lld", (long long)iv[i]);
		else
			pg_copy_text(&q->copy, sv[i], sn[i], q->kinds[i] == 'b');
	}
	sbuf_addch(&q->copy, '\n');
	return q->copy.len >= (1u << 20) ? pg_flush(q, err) : GF_OK;
}

static int pg_bulk_end(struct store_eng *e, struct sbuf *err)
{
	struct pg_eng *q = (struct pg_eng *)e;
	int rc = pg_flush(q, err);
	if (PQputCopyEnd(q->c, rc ? "gpuflame: aborted" : NULL) != 1 && !rc)
		rc = pg_fail(q, "COPY failed", NULL, err);
	PGresult *r;
	while ((r = PQgetResult(q->c))) {
		if (PQresultStatus(r) != PGRES_COMMAND_OK && !rc)
			rc = pg_fail(q, "COPY failed", r, err);
		PQclear(r);
	}
	return rc;
}

static void pg_close(struct store_eng *e)
{
	struct pg_eng *q = (struct pg_eng *)e;
	PQfinish(q->c);
	sbuf_release(&q->copy);
	free(q->e.where);
	free(q);
}

static int pg_own(struct store_eng *e, struct sbuf *err)
{
	return GF_OK;
}

static const struct store_eng_ops pg_ops = {
	"postgresql", pg_exec, pg_begin_write, pg_prepare, pg_bind_i64, pg_bind_text, pg_step, pg_col_i64,
	pg_col_text, pg_col_null, pg_reset, pg_free, pg_bulk_begin, pg_bulk_row, pg_bulk_end, pg_own, pg_close,
	"SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() "
	"ORDER BY table_name",
};

int store_eng_pg_open(struct store_eng **out, const char *url, unsigned flags, struct sbuf *err)
{
	struct pg_eng *q = gf_xcalloc(1, sizeof *q);
	q->e.ops = &pg_ops;
	q->e.where = store_eng_redact(url);
	sbuf_init(&q->copy, 0);
	q->c = PQconnectdb(url);
	if (PQstatus(q->c) != CONNECTION_OK) {
		pg_fail(q, "cannot connect to PostgreSQL", NULL, err);
		pg_close(&q->e);
		return GF_EINPUT;
	}
	int rc = pg_exec(&q->e, flags & STORE_ENG_READONLY ? "SET client_min_messages = warning; "
			 "SET default_transaction_read_only = on" : "SET client_min_messages = warning", err);
	if (rc) {
		pg_close(&q->e);
		return rc;
	}
	*out = &q->e;
	return GF_OK;
}
