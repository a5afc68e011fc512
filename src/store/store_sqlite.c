/*
 * store_sqlite.c — the SQLite engine of the release store (store_eng.h):
 * one database file, WAL journal once it is a store (readers never block
 * the writer), a busy timeout so concurrent writers wait their turn, BEGIN
 * IMMEDIATE for write transactions. Disk full and read-only files are
 * GF_EOUTPUT. Reads run no write (query_only), on a connection opened for
 * writing when the file and folder allow it (so the -wal and -shm files a
 * WAL database needs are removed at close), read-only otherwise; a WAL
 * database in a folder that cannot take its -shm file (read-only folder or
 * mount) is read as an immutable file, unless its -wal holds data that
 * would then be missed.
 */
#include "store/store_eng.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct sq_eng {
	struct store_eng e;
	sqlite3 *db;
	sqlite3_stmt *bulk;
	char kinds[8];
	int ncols;
};

struct sq_stmt {
	struct store_stmt h;
	struct sq_eng *e;
	sqlite3_stmt *s;
};

static const struct store_eng_ops sq_ops;

static int sq_fail(struct sq_eng *q, int rc, const char *what, struct sbuf *err)
{
	sbuf_setf(err, "'%s': %s: %s", q->e.where, what, sqlite3_errmsg(q->db));
	int x = rc & 0xff;
	return x == SQLITE_FULL || x == SQLITE_READONLY || x == SQLITE_IOERR || x == SQLITE_CANTOPEN
		       ? GF_EOUTPUT : GF_EINPUT;
}

static int sq_exec(struct store_eng *e, const char *sql, struct sbuf *err)
{
	struct sq_eng *q = (struct sq_eng *)e;
	int rc = sqlite3_exec(q->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? GF_OK : sq_fail(q, rc, "SQL failed", err);
}

static int sq_begin_write(struct store_eng *e, struct sbuf *err)
{
	return sq_exec(e, "BEGIN IMMEDIATE", err);
}

static int sq_prepare(struct store_eng *e, const char *sql, struct store_stmt **out, struct sbuf *err)
{
	struct sq_eng *q = (struct sq_eng *)e;
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(q->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return sq_fail(q, rc, "cannot prepare a statement", err);
	struct sq_stmt *st = gf_xcalloc(1, sizeof *st);
	st->h.ops = &sq_ops;
	st->e = q;
	st->s = s;
	*out = &st->h;
	return GF_OK;
}

static void sq_bind_i64(struct store_stmt *h, int i, int64_t v)
{
	sqlite3_bind_int64(((struct sq_stmt *)h)->s, i, v);
}

static void sq_bind_text(struct store_stmt *h, int i, const char *s, size_t n, bool blob)
{
	sqlite3_stmt *x = ((struct sq_stmt *)h)->s;
	if (blob)
		sqlite3_bind_blob64(x, i, s, n, SQLITE_TRANSIENT);
	else
		sqlite3_bind_text64(x, i, s, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

static int sq_step(struct store_stmt *h, struct sbuf *err)
{
	struct sq_stmt *st = (struct sq_stmt *)h;
	int rc = sqlite3_step(st->s);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return sq_fail(st->e, rc, "query failed", err);
}

static int64_t sq_col_i64(struct store_stmt *h, int i) { return sqlite3_column_int64(((struct sq_stmt *)h)->s, i); }

static const char *sq_col_text(struct store_stmt *h, int i, size_t *n)
{
	sqlite3_stmt *x = ((struct sq_stmt *)h)->s;
	const char *p = sqlite3_column_blob(x, i);
	*n = (size_t)sqlite3_column_bytes(x, i);
	return p ? p : "";
}

static bool sq_col_null(struct store_stmt *h, int i)
{
	return sqlite3_column_type(((struct sq_stmt *)h)->s, i) == SQLITE_NULL;
}

static void sq_reset(struct store_stmt *h)
{
	sqlite3_stmt *x = ((struct sq_stmt *)h)->s;
	sqlite3_reset(x);
	sqlite3_clear_bindings(x);
}

static void sq_free(struct store_stmt *h)
{
	struct sq_stmt *st = (struct sq_stmt *)h;
	sqlite3_finalize(st->s);
	free(st);
}

static int sq_bulk_begin(struct store_eng *e, const char *table, const char *cols, const char *kinds,
			 struct sbuf *err)
{
	struct sq_eng *q = (struct sq_eng *)e;
	struct sbuf sql = SBUF_INIT;
	q->ncols = (int)strlen(kinds);
	memcpy(q->kinds, kinds, (size_t)q->ncols + 1);
	sbuf_addf(&sql, "INSERT INTO %s(%s) VALUES (", table, cols);
	for (int i = 0; i < q->ncols; i++)
		sbuf_addstr(&sql, i ? ",?" : "?");
	sbuf_addch(&sql, ')');
	int rc = sqlite3_prepare_v2(q->db, sql.buf, -1, &q->bulk, NULL);
	sbuf_release(&sql);
	return rc == SQLITE_OK ? GF_OK : sq_fail(q, rc, "cannot prepare a bulk insert", err);
}

static int sq_bulk_row(struct store_eng *e, const int64_t *iv, const char *const *sv, const size_t *sn,
		       struct sbuf *err)
{
	struct sq_eng *q = (struct sq_eng *)e;
	for (int i = 0; i < q->ncols; i++) {
		if (q->kinds[i] == 'i')
			sqlite3_bind_int64(q->bulk, i + 1, iv[i]);
		else if (q->kinds[i] == 'b')
			sqlite3_bind_blob64(q->bulk, i + 1, sv[i], sn[i], SQLITE_STATIC);
		else
			sqlite3_bind_text64(q->bulk, i + 1, sv[i], sn[i], SQLITE_STATIC, SQLITE_UTF8);
	}
	int rc = sqlite3_step(q->bulk);
	sqlite3_reset(q->bulk);
	return rc == SQLITE_DONE ? GF_OK : sq_fail(q, rc, "insert failed", err);
}

static int sq_bulk_end(struct store_eng *e, struct sbuf *err)
{
	struct sq_eng *q = (struct sq_eng *)e;
	sqlite3_finalize(q->bulk);
	q->bulk = NULL;
	return GF_OK;
}

static void sq_close(struct store_eng *e)
{
	struct sq_eng *q = (struct sq_eng *)e;
	if (q->bulk)
		sqlite3_finalize(q->bulk);
	sqlite3_close(q->db);
	free(q->e.where);
	free(q);
}

/* A store: WAL journal (kept in the file), NORMAL sync (durable at
 * checkpoints, never corrupt: a crash loses at most the last commit). */
static int sq_own(struct store_eng *e, struct sbuf *err)
{
	return sq_exec(e, "PRAGMA journal_mode=WAL", err);
}

static const struct store_eng_ops sq_ops = {
	"sqlite", sq_exec, sq_begin_write, sq_prepare, sq_bind_i64, sq_bind_text, sq_step, sq_col_i64,
	sq_col_text, sq_col_null, sq_reset, sq_free, sq_bulk_begin, sq_bulk_row, sq_bulk_end, sq_own, sq_close,
	"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
};

/* The first read of the schema: whether the file is a database at all,
 * and whether it can be read here. @return the SQLite code. */
static int sq_probe(struct sq_eng *q)
{
	return sqlite3_exec(q->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
}

static int sq_connect(struct sq_eng *q, const char *name, int flags)
{
	if (q->db)
		sqlite3_close(q->db);
	q->db = NULL;
	int rc = sqlite3_open_v2(name, &q->db, flags, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(q->db, 60000);
		sqlite3_extended_result_codes(q->db, 1);
		rc = sq_probe(q);
	}
	return rc;
}

/* Read-only and the folder cannot take a -shm file: the file read as
 * immutable (file:PATH?immutable=1), when no -wal file holds data. */
static int sq_immutable(struct sq_eng *q, const char *path, struct sbuf *err)
{
	struct sbuf w = SBUF_INIT, uri = SBUF_INIT;
	sbuf_addf(&w, "%s-wal", path);
	struct stat sb;
	bool wal = !stat(w.buf, &sb) && sb.st_size > 0;
	sbuf_release(&w);
	if (wal) {
		sbuf_setf(err, "'%s': cannot be read here: its -wal file holds data and its folder cannot take the -shm "
			  "file SQLite needs to read it (open it once where it can be written)", q->e.where);
		return GF_EINPUT;
	}
	sbuf_addstr(&uri, "file:");
	for (const char *p = path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			sbuf_addf(&uri, "%%%02X", (unsigned char)*p);
		else
			sbuf_addch(&uri, *p);
	}
	sbuf_addstr(&uri, "?immutable=1");
	int rc = sq_connect(q, uri.buf, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
	sbuf_release(&uri);
	if (rc == SQLITE_OK)
		return GF_OK;
	sq_fail(q, rc, "cannot read the SQLite database", err);
	return GF_EINPUT;
}

int store_eng_sqlite_open(struct store_eng **out, const char *path, unsigned flags, struct sbuf *err)
{
	bool ro = flags & STORE_ENG_READONLY;
	struct stat sb;
	char *where = store_eng_redact(path);
	int rc = GF_OK;
	if (stat(path, &sb)) {
		if (errno != ENOENT)
			sbuf_setf(err, "'%s': cannot open the SQLite database: %s", where, strerror(errno));
		else if (ro || !(flags & STORE_ENG_CREATE))
			sbuf_setf(err, "'%s': no such store ('gpuflame store add' creates one)", where);
		rc = errno != ENOENT || ro || !(flags & STORE_ENG_CREATE) ? GF_EINPUT : GF_OK;
	} else if (!S_ISREG(sb.st_mode)) {
		sbuf_setf(err, "'%s': not a regular file: an SQLite store is a file", where);
		rc = GF_EINPUT;
	}
	if (rc) {
		free(where);
		return rc;
	}
	struct sq_eng *q = gf_xcalloc(1, sizeof *q);
	q->e.ops = &sq_ops;
	q->e.where = where;
	/* a read opens the file for writing when it can (the last connection
	 * then removes the -wal and -shm files it made) but runs no write
	 * (query_only); read-only when it cannot; immutable when even that
	 * cannot make the -shm file */
	int sr = sq_connect(q, path, ro || !(flags & STORE_ENG_CREATE) ? SQLITE_OPEN_READWRITE
							: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	int x = sr & 0xff;
	if (ro && (x == SQLITE_CANTOPEN || x == SQLITE_READONLY || x == SQLITE_IOERR)) {
		sr = sq_connect(q, path, SQLITE_OPEN_READONLY);
		x = sr & 0xff;
	}
	if (ro && (x == SQLITE_CANTOPEN || x == SQLITE_READONLY || x == SQLITE_IOERR)) {
		rc = sq_immutable(q, path, err);
	} else if (sr == SQLITE_NOTADB || x == SQLITE_NOTADB || x == SQLITE_CORRUPT) {
		sbuf_setf(err, "'%s': not a usable SQLite database: %s", where, sqlite3_errmsg(q->db));
		rc = GF_EINPUT;
	} else if (sr != SQLITE_OK) {
		bool wr = !ro && (x == SQLITE_READONLY || x == SQLITE_CANTOPEN || x == SQLITE_IOERR);
		sbuf_setf(err, "'%s': cannot %s the SQLite database: %s", where, wr ? "write" : "open",
			  q->db ? sqlite3_errmsg(q->db) : sqlite3_errstr(sr));
		rc = wr ? GF_EOUTPUT : GF_EINPUT;
	}
	if (!rc)
		rc = sq_exec(&q->e, ro ? "PRAGMA query_only=ON; PRAGMA cache_size=-65536"
				       : "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF; PRAGMA temp_store=MEMORY; "
					 "PRAGMA cache_size=-65536", err);
	if (rc) {
		sq_close(&q->e);
		return rc;
	}
	*out = &q->e;
	return GF_OK;
}
