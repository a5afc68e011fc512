/*
 * store.c — the release store (store.h): schema and migrations, adding a
 * run in one transaction, reading runs back as folded text, list, show,
 * trend, gc. Every query is written once for both engines (store_eng.h).
 */
#include "store/store.h"

#include "base/escape.h"
#include "base/jsonw.h"
#include "base/names.h"
#include "base/num.h"
#include "base/sha256.h"
#include "base/rtable.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"
#include "stacks/ops/merge.h"
#include "stacks/weight.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Migration k takes the schema from version k-1 to k: the SQL both engines
 * take, or one text per engine where they differ. */
struct store_migration {
	const char *sql, *sqlite, *pg;
};
static const struct store_migration store_migrations[] = {
	{ NULL, NULL, NULL },
	{ "CREATE TABLE runs(id BIGINT PRIMARY KEY, release TEXT NOT NULL, added BIGINT NOT NULL,"
	  " source TEXT NOT NULL, kind TEXT NOT NULL, steps BIGINT NOT NULL, header BLOB NOT NULL);"
	  "CREATE INDEX runs_release ON runs(release, id);"
	  "CREATE TABLE labels(run BIGINT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(run, key));"
	  "CREATE TABLE metrics(run BIGINT NOT NULL, key TEXT NOT NULL, value BIGINT NOT NULL,"
	  " PRIMARY KEY(run, key));"
	  "CREATE TABLE profiles(id BIGINT PRIMARY KEY, run BIGINT NOT NULL, weight TEXT NOT NULL,"
	  " scale BIGINT NOT NULL, header BLOB NOT NULL, stacks BIGINT NOT NULL, total BIGINT NOT NULL);"
	  "CREATE INDEX profiles_run ON profiles(run, weight);"
	  "CREATE TABLE stacks(hash BIGINT PRIMARY KEY, text BLOB NOT NULL);"
	  "CREATE TABLE samples(profile BIGINT NOT NULL, stack BIGINT NOT NULL, value BIGINT NOT NULL,"
	  " PRIMARY KEY(profile, stack)) WITHOUT_ROWID;",
	  NULL, NULL },
	/* 2: the user's names as byte strings (PostgreSQL's TEXT refuses what is
	 * not UTF-8; SQLite compares a TEXT and a BLOB as different), and the
	 * run's digest (store_add: the same run is not stored twice) */
	{ NULL,
	  "ALTER TABLE runs ADD COLUMN digest BLOB;"
	  "UPDATE runs SET release = CAST(release AS BLOB), source = CAST(source AS BLOB);"
	  "UPDATE labels SET value = CAST(value AS BLOB);"
	  "CREATE INDEX runs_digest ON runs(release, digest);",
	  "ALTER TABLE runs ADD COLUMN digest BYTEA,"
	  " ALTER COLUMN release TYPE BYTEA USING convert_to(release, 'UTF8'),"
	  " ALTER COLUMN source TYPE BYTEA USING convert_to(source, 'UTF8');"
	  "ALTER TABLE labels ALTER COLUMN value TYPE BYTEA USING convert_to(value, 'UTF8');"
	  "CREATE INDEX runs_digest ON runs(release, digest);" },
	/* 3: a trace profile's per-step fold kept under it (store.h step_folds):
	 * no table changes, but a gpuflame of schema 2 would read those stacks
	 * as the profile's, so it must refuse such a store */
	{ "SELECT 1", NULL, NULL },
};
#define STORE_NMIG (sizeof store_migrations / sizeof store_migrations[0])


const char *store_default_url(void)
{
	const char *e = getenv("GPUFLAME_DB");
	return e && *e ? e : "gpuflame.db";
}

int64_t store_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (int64_t)h;
}

/* ---- small query helpers ---- */

static int q_exec(struct store *s, const char *sql, struct sbuf *err)
{
	struct sbuf d = SBUF_INIT;
	store_eng_dialect(s->e, sql, &d);
	int rc = store_eng_exec(s->e, d.buf, err);
	sbuf_release(&d);
	return rc;
}

static void q_rollback(struct store *s)
{
	struct sbuf e2 = SBUF_INIT;
	store_eng_exec(s->e, "ROLLBACK", &e2);
	sbuf_release(&e2);
}

/* One integer from sql with up to two parameters (text a, int b); *v = dflt
 * when there is no row or it is NULL. */
static int q_int(struct store *s, const char *sql, const char *a, const int64_t *b, int64_t dflt, int64_t *v,
		 struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, sql, &st, err);
	if (rc)
		return rc;
	int i = 1;
	if (a)
		store_eng_bind_text(st, i++, a, strlen(a));
	if (b)
		store_eng_bind_i64(st, i++, *b);
	*v = dflt;
	rc = store_eng_step(st, err);
	if (rc == 1 && !store_eng_col_null(st, 0))
		*v = store_eng_col_i64(st, 0);
	store_eng_free(st);
	return rc < 0 ? rc : GF_OK;
}

/* ---- open and migrate ---- */

/* A user's name (release, source, label value) as a parameter: a byte
 * string since schema 2, text in an older store read as it is. */
void store_bind_name(struct store *s, struct store_stmt *st, int i, const char *v, size_t n)
{
	if (s->schema >= 2)
		store_eng_bind_blob(st, i, v, n);
	else
		store_eng_bind_text(st, i, v, n);
}

/* What the database holds: *nt tables, up to three named in names, and
 * whether gf_meta is among them. */
static int store_tables(struct store *s, int64_t *nt, bool *meta, struct sbuf *names, struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, s->e->ops->tables_sql, &st, err);
	if (rc)
		return rc;
	*nt = 0;
	*meta = false;
	while ((rc = store_eng_step(st, err)) == 1) {
		size_t n;
		const char *t = store_eng_col_text(st, 0, &n);
		if (n == 7 && !memcmp(t, "gf_meta", 7))
			*meta = true;
		if (++*nt <= 3)
			sbuf_addf(names, "%s%.*s", names->len ? ", " : "", (int)(n > 64 ? 64 : n), t);
	}
	if (*nt > 3)
		sbuf_addstr(names, "...");
	store_eng_free(st);
	return rc < 0 ? rc : GF_OK;
}

/* gf_meta's schema: *v = 0 without a row; a value that is not a version
 * number is refused. */
static int store_version(struct store *s, int64_t *v, struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT value FROM gf_meta WHERE key = 'schema'", &st, err);
	if (rc)
		return rc;
	*v = 0;
	rc = store_eng_step(st, err);
	if (rc == 1) {
		size_t n;
		const char *p = store_eng_col_text(st, 0, &n);
		bool ok = n >= 1 && n <= 9 && p[0] != '0';
		for (size_t i = 0; i < n && ok; i++)
			ok = p[i] >= '0' && p[i] <= '9';
		if (ok) {
			for (size_t i = 0; i < n; i++)
				*v = *v * 10 + (p[i] - '0');
			rc = GF_OK;
		} else {
			sbuf_setf(err, "'%s': gf_meta's schema is '%.*s', not a version number: not a store this "
				  "gpuflame can read (nothing was changed)", s->e->where, (int)(n > 40 ? 40 : n), p);
			rc = GF_EINPUT;
		}
	}
	store_eng_free(st);
	return rc < 0 ? rc : GF_OK;
}

/* Creates gf_meta and runs the migrations from version v (inside the write
 * transaction). */
static int store_migrate(struct store *s, bool meta, int64_t v, struct sbuf *err)
{
	bool pg = !strcmp(s->e->ops->kind, "postgresql");
	int rc = meta ? GF_OK : q_exec(s, "CREATE TABLE gf_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)", err);
	for (int64_t k = v + 1; k < (int64_t)STORE_NMIG && !rc; k++) {
		const struct store_migration *m = &store_migrations[k];
		rc = q_exec(s, m->sql ? m->sql : pg ? m->pg : m->sqlite, err);
	}
	if (!rc && v < STORE_SCHEMA) {
		char sql[128];
		snprintf(sql, sizeof sql, "DELETE FROM gf_meta WHERE key = 'schema'; "
			 "INSERT INTO gf_meta(key, value) VALUES ('schema', '%d')", STORE_SCHEMA);
		rc = q_exec(s, sql, err);
	}
	return rc;
}

/* What the database is, and for a write, makes it the current store (under
 * the write lock, taken before anything is read). */
static int store_check(struct store *s, int mode, struct sbuf *err)
{
	int64_t nt = 0, v = 0;
	bool meta = false;
	struct sbuf names = SBUF_INIT;
	int rc = store_tables(s, &nt, &meta, &names, err);
	if (!rc && meta)
		rc = store_version(s, &v, err);
	bool foreign = nt > (meta ? 1 : 0) && !v; /* tables, but not a store's */
	if (rc) {
	} else if (mode == STORE_READ && !nt) {
		sbuf_setf(err, "'%s': an empty database, not a gpuflame store ('gpuflame store add' makes one; nothing "
			  "was changed)", s->e->where);
		rc = GF_EINPUT;
	} else if (foreign || (mode != STORE_CREATE && !v)) {
		sbuf_setf(err, "'%s': not a gpuflame store (%s%s%s): %s", s->e->where, meta ? "its gf_meta has no schema" :
			  "no gf_meta table", nt ? "; it holds " : "", names.len ? names.buf : "",
			  mode == STORE_CREATE ? "'store add' makes a store only in an empty database (nothing was changed)"
					       : "nothing was changed");
		rc = GF_EINPUT;
	} else if (v > STORE_SCHEMA) {
		sbuf_setf(err, "'%s': the store has schema version %" PRId64 ", newer than this gpuflame's (%d): "
			  "use a newer gpuflame (the database was left untouched)", s->e->where, v, STORE_SCHEMA);
		rc = GF_EINPUT;
	} else if (mode != STORE_READ && v < STORE_SCHEMA) {
		rc = store_migrate(s, meta, v, err);
		v = STORE_SCHEMA;
	}
	s->schema = (int)v;
	sbuf_release(&names);
	return rc;
}

int store_open(struct store **out, const char *url, int mode, struct sbuf *err)
{
	*out = NULL;
	struct store *s = gf_xcalloc(1, sizeof *s);
	unsigned fl = mode == STORE_READ ? STORE_ENG_READONLY : mode == STORE_CREATE ? STORE_ENG_CREATE : 0;
	int rc = store_eng_open(&s->e, url, fl, err);
	if (rc) {
		free(s);
		return rc;
	}
	if (mode != STORE_READ && (rc = s->e->ops->begin_write(s->e, err))) {
		store_close(s);
		return rc;
	}
	rc = store_check(s, mode, err);
	if (mode != STORE_READ) {
		if (rc)
			q_rollback(s);
		else if (!(rc = store_eng_exec(s->e, "COMMIT", err)))
			rc = s->e->ops->own(s->e, err);
	}
	if (rc) {
		store_close(s);
		return rc;
	}
	*out = s;
	return GF_OK;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	store_eng_close(s->e);
	free(s);
}

/* ---- add ---- */

/* A profile's id is run * 8 + its weight's row (stacks/weight.h): the
 * rows' order is stored, so rows are only ever added at the end. */
_Static_assert(FW_GPU == 0 && FW_CPU == 1 && FW_WALL == 2 && FW_IDLE == 3 && FW_CALLS == 4 && FW_SAMPLES == 5 &&
		       FW_N <= 8,
	       "stored profile ids");

static int weight_index(const char *w)
{
	return weight_find(w);
}

/* The header line of t ("# gpuflame: ..." without the newline; "" when none). */
static void header_text(const struct ftree_meta *m, struct sbuf *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (!fp)
		gf_xmalloc(SIZE_MAX); /* the out-of-memory exit */
	folded_write_meta(fp, m, false);
	fclose(fp);
	while (len && buf[len - 1] == '\n')
		len--;
	sbuf_add(out, buf, len);
	free(buf);
}

/* Inserts one prepared row: i64 params (kinds 'i'), texts ('t'), byte
 * strings ('b') and the user's names ('n', store_bind_name). */
static int q_row(struct store *s, struct store_stmt *st, const char *kinds, const int64_t *iv,
		 const char *const *sv, struct sbuf *err)
{
	for (int i = 0; kinds[i]; i++) {
		if (kinds[i] == 'i')
			store_eng_bind_i64(st, i + 1, iv[i]);
		else if (kinds[i] == 'b')
			store_eng_bind_blob(st, i + 1, sv[i], strlen(sv[i]));
		else if (kinds[i] == 'n')
			store_bind_name(s, st, i + 1, sv[i], strlen(sv[i]));
		else
			store_eng_bind_text(st, i + 1, sv[i], strlen(sv[i]));
	}
	int rc = store_eng_step(st, err);
	store_eng_reset(st);
	return rc < 0 ? rc : GF_OK;
}

static int q_insert(struct store *s, const char *sql, const char *kinds, const int64_t *iv,
		    const char *const *sv, struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, sql, &st, err);
	if (rc)
		return rc;
	rc = q_row(s, st, kinds, iv, sv, err);
	store_eng_free(st);
	return rc;
}

/* Node i's stack text (as the folded writer writes it) into b; a per-step
 * fold's (steps) under STORE_STEPS_FRAME. */
static void stack_text(const struct ftree *t, uint32_t i, bool steps, struct sbuf *b)
{
	sbuf_reset(b);
	if (steps)
		sbuf_addstr(b, STORE_STEPS_FRAME ";");
	folded_put_path(b, t, i);
	folded_end_stack(b, 0, false);
}

/* hash[i]: node i's stack hash (nodes without self weight are not stacks). */
static void profile_hashes(const struct ftree *t, bool steps, int64_t *hash)
{
	struct sbuf b = SBUF_INIT;
	for (uint32_t i = 1; i < t->n; i++) {
		if (!ftree_self(t, i, 0))
			continue;
		stack_text(t, i, steps, &b);
		hash[i] = store_hash(b.buf, b.len);
	}
	sbuf_release(&b);
}

/* The stacks of one profile into the temp table stk_in. */
static int add_profile(struct store *s, struct ftree *t, bool steps, const int64_t *hash, int64_t *nstacks,
		       struct sbuf *err)
{
	struct sbuf b = SBUF_INIT;
	int rc = GF_OK;
	int64_t n = 0;
	for (uint32_t i = 1; i < t->n && !rc; i++) {
		if (!ftree_self(t, i, 0))
			continue;
		stack_text(t, i, steps, &b);
		const char *sv[2] = { NULL, b.buf };
		size_t sn[2] = { 0, b.len };
		int64_t iv[2] = { hash[i], 0 };
		rc = s->e->ops->bulk_row(s->e, iv, sv, sn, err);
		n++;
	}
	sbuf_release(&b);
	*nstacks = n;
	return rc;
}

static int add_samples(struct store *s, int64_t pid, struct ftree *t, const int64_t *hash, struct sbuf *err)
{
	int rc = GF_OK;
	for (uint32_t i = 1; i < t->n && !rc; i++) {
		int64_t self = ftree_self(t, i, 0);
		if (!self)
			continue;
		int64_t iv[3] = { pid, hash[i], self };
		rc = s->e->ops->bulk_row(s->e, iv, NULL, NULL, err);
	}
	return rc;
}

static int add_samples_all(struct store *s, const struct store_run_in *in, int64_t id, const int64_t *counts,
			   int64_t *const *hash, struct sbuf *err);

static int add_stacks(struct store *s, const struct store_run_in *in, int64_t id, int64_t *const *hash,
		      struct sbuf *err)
{
	int rc = q_exec(s, "CREATE TEMP TABLE IF NOT EXISTS stk_in(hash BIGINT NOT NULL, text BLOB NOT NULL);"
			"DELETE FROM stk_in", err);
	if (rc)
		return rc;
	int64_t counts[STORE_MAX_PROFILES] = { 0 }, nsteps;
	if ((rc = s->e->ops->bulk_begin(s->e, "stk_in", "hash,text", "ib", err)))
		return rc;
	for (size_t k = 0; k < in->nprof && !rc; k++) {
		rc = add_profile(s, in->prof[k], false, hash[k], &counts[k], err);
		if (!rc && hash[STORE_MAX_PROFILES + k]) /* its per-step fold (store_add) */
			rc = add_profile(s, in->step_folds[k], true, hash[STORE_MAX_PROFILES + k], &nsteps, err);
	}
	int rc2 = s->e->ops->bulk_end(s->e, err);
	if (!rc)
		rc = rc2;
	if (!rc)
		rc = add_samples_all(s, in, id, counts, hash, err);
	return rc;
}

/* After the stacks: the collision check, the new stacks, the profiles and
 * their samples. */
static int add_samples_all(struct store *s, const struct store_run_in *in, int64_t id, const int64_t *counts,
			   int64_t *const *hash, struct sbuf *err)
{
	int rc, rc2;
	int64_t bad;
	rc = q_int(s, "SELECT count(*) FROM (SELECT hash FROM stk_in GROUP BY hash HAVING count(DISTINCT text) > 1) x",
		   NULL, NULL, 0, &bad, err);
	if (!rc && !bad)
		rc = q_int(s, "SELECT count(*) FROM stk_in i JOIN stacks t ON t.hash = i.hash WHERE t.text <> i.text",
			   NULL, NULL, 0, &bad, err);
	if (rc)
		return rc;
	if (bad) {
		sbuf_setf(err, "'%s': %" PRId64 " stack%s of this run share a 64-bit hash with a different stack: "
			  "the run was not added", s->e->where, bad, bad == 1 ? "" : "s");
		return GF_EINTERNAL;
	}
	if ((rc = q_exec(s, "INSERT INTO stacks(hash, text) SELECT DISTINCT hash, text FROM stk_in WHERE true "
			 "ON CONFLICT DO NOTHING", err)))
		return rc;
	for (size_t k = 0; k < in->nprof && !rc; k++) {
		struct ftree *t = in->prof[k];
		int64_t pid = id * 8 + weight_index(in->weights[k]);
		struct sbuf h = SBUF_INIT;
		header_text(&t->meta, &h);
		int64_t iv[7] = { pid, id, 0, t->scale, 0, counts[k], t->total[0] };
		const char *sv[7] = { NULL, NULL, in->weights[k], NULL, h.buf, NULL, NULL };
		rc = q_insert(s, "INSERT INTO profiles(id, run, weight, scale, header, stacks, total) "
			      "VALUES (?, ?, ?, ?, ?, ?, ?)", "iitibii", iv, sv, err);
		sbuf_release(&h);
		if (!rc && !(rc = s->e->ops->bulk_begin(s->e, "samples", "profile,stack,value", "iii", err))) {
			rc = add_samples(s, pid, t, hash[k], err);
			if (!rc && hash[STORE_MAX_PROFILES + k]) /* its per-step fold, under the same profile */
				rc = add_samples(s, pid, in->step_folds[k], hash[STORE_MAX_PROFILES + k], err);
			rc2 = s->e->ops->bulk_end(s->e, err);
			if (!rc)
				rc = rc2;
		}
	}
	return rc;
}

static int add_rows(struct store *s, const struct store_run_in *in, int64_t id, const uint8_t *digest,
		    struct sbuf *err)
{
	struct sbuf h = SBUF_INIT;
	if (in->nprof)
		header_text(&in->prof[0]->meta, &h);
	struct store_stmt *st = NULL;
	int rc = store_eng_prepare(s->e, "INSERT INTO runs(id, release, added, source, kind, steps, header, digest) "
				   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", &st, err);
	if (!rc) {
		store_eng_bind_i64(st, 1, id);
		store_bind_name(s, st, 2, in->release, strlen(in->release));
		store_eng_bind_i64(st, 3, (int64_t)time(NULL));
		store_bind_name(s, st, 4, in->source, strlen(in->source));
		store_eng_bind_text(st, 5, in->kind, strlen(in->kind));
		store_eng_bind_i64(st, 6, in->steps);
		store_eng_bind_blob(st, 7, h.buf ? h.buf : "", h.len);
		store_eng_bind_blob(st, 8, (const char *)digest, 32);
		rc = store_eng_step(st, err);
		rc = rc < 0 ? rc : GF_OK;
	}
	store_eng_free(st);
	sbuf_release(&h);
	st = NULL;
	if (!rc)
		rc = store_eng_prepare(s->e, "INSERT INTO labels(run, key, value) VALUES (?, ?, ?)", &st, err);
	for (size_t i = 0; i < in->nlabels && !rc; i++) {
		const char *eq = strchr(in->labels[i], '=');
		char *k = gf_xstrndup(in->labels[i], (size_t)(eq - in->labels[i]));
		int64_t liv[3] = { id, 0, 0 };
		const char *lsv[3] = { NULL, k, eq + 1 };
		rc = q_row(s, st, "itn", liv, lsv, err);
		free(k);
	}
	store_eng_free(st);
	st = NULL;
	if (!rc)
		rc = store_eng_prepare(s->e, "INSERT INTO metrics(run, key, value) VALUES (?, ?, ?)", &st, err);
	for (size_t i = 0; i < in->nmetrics && !rc; i++) {
		int64_t miv[3] = { id, 0, in->metrics[i].value };
		const char *msv[3] = { NULL, in->metrics[i].key, NULL };
		rc = q_row(s, st, "iti", miv, msv, err);
	}
	store_eng_free(st);
	return rc;
}

/* One field of the digest: its length, then its bytes. */
static void dg_field(struct sbuf *b, const void *p, size_t n)
{
	uint64_t l = n;
	sbuf_add(b, &l, sizeof l);
	sbuf_add(b, p, n);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The run's digest: SHA-256 of its release, kind, steps, labels (sorted),
 * metrics and every profile's weight, scale, header and (stack hash,
 * weight) pairs in the tree's order. */
static void run_digest(const struct store_run_in *in, int64_t *const *hash, uint8_t out[32])
{
	struct sbuf b = SBUF_INIT, h = SBUF_INIT;
	dg_field(&b, "gpuflame run 2", 14);
	dg_field(&b, in->release, strlen(in->release));
	dg_field(&b, in->kind, strlen(in->kind));
	dg_field(&b, &in->steps, sizeof in->steps);
	const char *lab[STORE_MAX_LABELS];
	memcpy(lab, in->labels, in->nlabels * sizeof *lab);
	qsort(lab, in->nlabels, sizeof *lab, by_str);
	for (size_t i = 0; i < in->nlabels; i++)
		dg_field(&b, lab[i], strlen(lab[i]) + 1);
	for (size_t i = 0; i < in->nmetrics; i++) {
		dg_field(&b, in->metrics[i].key, strlen(in->metrics[i].key) + 1);
		dg_field(&b, &in->metrics[i].value, sizeof in->metrics[i].value);
	}
	for (size_t k = 0; k < in->nprof; k++) {
		const struct ftree *t = in->prof[k];
		dg_field(&b, in->weights[k], strlen(in->weights[k]) + 1);
		dg_field(&b, &t->scale, sizeof t->scale);
		sbuf_reset(&h);
		header_text(&t->meta, &h);
		dg_field(&b, h.buf ? h.buf : "", h.len);
		for (uint32_t i = 1; i < t->n; i++) {
			int64_t v[2] = { hash[k][i], ftree_self(t, i, 0) };
			if (v[1])
				sbuf_add(&b, v, sizeof v);
		}
	}
	sha256_digest(b.buf ? b.buf : "", b.len, out);
	sbuf_release(&b);
	sbuf_release(&h);
}

/* The run of the release with this digest: *id, 0 when none. */
static int find_digest(struct store *s, const char *release, const uint8_t *digest, int64_t *id, struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT min(id) FROM runs WHERE release = ? AND digest = ?", &st, err);
	if (rc)
		return rc;
	store_bind_name(s, st, 1, release, strlen(release));
	store_eng_bind_blob(st, 2, (const char *)digest, 32);
	*id = 0;
	rc = store_eng_step(st, err);
	if (rc == 1 && !store_eng_col_null(st, 0))
		*id = store_eng_col_i64(st, 0);
	store_eng_free(st);
	return rc < 0 ? rc : GF_OK;
}

/* One run inside the open write transaction: its id is the next one, or
 * (*dup) the release's run of the same digest, and nothing is written. */
static int add_one(struct store *s, const struct store_run_in *in, int64_t *id, bool *dup, struct sbuf *err)
{
	*dup = false;
	for (size_t k = 0; k < in->nprof; k++)
		if (weight_index(in->weights[k]) < 0) {
			sbuf_setf(err, "unknown weight '%s'", in->weights[k]);
			return GF_EUSAGE;
		}
	/* the profiles' stack hashes, then their per-step folds' (kept when
	 * the fold has the profile's decimal scale) */
	int64_t *hash[2 * STORE_MAX_PROFILES] = { NULL };
	for (size_t k = 0; k < in->nprof; k++) {
		hash[k] = gf_xcalloc(in->prof[k]->n ? in->prof[k]->n : 1, sizeof *hash[k]);
		profile_hashes(in->prof[k], false, hash[k]);
		const struct ftree *st = in->step_folds[k];
		if (st && st->scale == in->prof[k]->scale) {
			hash[STORE_MAX_PROFILES + k] = gf_xcalloc(st->n ? st->n : 1, sizeof *hash[k]);
			profile_hashes(st, true, hash[STORE_MAX_PROFILES + k]);
		}
	}
	uint8_t digest[32];
	run_digest(in, hash, digest);
	int64_t same = 0;
	int rc = find_digest(s, in->release, digest, &same, err);
	if (!rc && same) {
		*id = same;
		*dup = true;
	} else if (!rc && !(rc = q_int(s, "SELECT max(id) FROM runs", NULL, NULL, 0, id, err))) {
		++*id;
		rc = add_rows(s, in, *id, digest, err);
		if (!rc)
			rc = add_stacks(s, in, *id, hash, err);
	}
	for (size_t k = 0; k < 2 * STORE_MAX_PROFILES; k++)
		free(hash[k]);
	return rc;
}

/* Commits the write transaction begun (the crash test's window first), or
 * rolls it back after an error. */
static int add_end(struct store *s, int rc, struct sbuf *err)
{
	if (!rc && getenv("GPUFLAME_STORE_TEST_PAUSE")) /* the crash test: a window inside the transaction */
		nanosleep(&(struct timespec){ 0, 200 * 1000000L }, NULL);
	if (!rc)
		rc = store_eng_exec(s->e, "COMMIT", err);
	if (rc)
		q_rollback(s);
	return rc;
}

int store_add(struct store *s, const struct store_run_in *in, int64_t *id, bool *dup, struct sbuf *err)
{
	*dup = false;
	int rc = s->e->ops->begin_write(s->e, err);
	if (rc)
		return rc;
	rc = add_one(s, in, id, dup, err);
	if (!rc && *dup) {
		q_rollback(s);
		return GF_OK;
	}
	return add_end(s, rc, err);
}

int store_add_all(struct store *s, int (*next)(void *ctx, const struct store_run_in **in, struct sbuf *err),
		  void *ctx, int64_t *first, size_t *n, size_t *ndup, struct sbuf *err)
{
	*first = 0;
	*n = *ndup = 0;
	int rc = s->e->ops->begin_write(s->e, err);
	if (rc)
		return rc;
	const struct store_run_in *in;
	int64_t id;
	bool dup;
	while (!(rc = next(ctx, &in, err)) && in && !(rc = add_one(s, in, &id, &dup, err))) {
		if (dup)
			++*ndup;
		else if (!(*n)++)
			*first = id;
	}
	rc = add_end(s, rc, err);
	if (rc)
		*n = *ndup = 0;
	return rc;
}

/* ---- reading back ---- */

/* A stored text becomes one line of folded text: no LF, CR or NUL (a
 * stack holding a line feed would forge a second line and its weight). */
static bool text_ok(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\n' || p[i] == '\r' || p[i] == '\0')
			return false;
	return true;
}

static int damaged(struct store *s, int64_t run, const char *weight, const char *what, struct sbuf *err)
{
	sbuf_setf(err, "'%s': run %" PRId64 "'s %s profile: %s: the store is damaged", s->e->where, run, weight, what);
	return GF_EINPUT;
}

/* One run's profile lines into out: its own stacks (steps false), or its
 * per-step fold's with STORE_STEPS_FRAME taken off (steps true; *nlines
 * counts them). */
static int profile_lines(struct store *s, int64_t run, int wi, bool steps, struct sbuf *out, size_t *nlines,
			 struct sbuf *err);

/* Profile run*8+wi's header line (without its line feed) into out.
 * @return GF_OK, GF_EUSAGE when the run has no such profile, or an error. */
static int profile_header(struct store *s, int64_t run, int wi, struct sbuf *out, struct sbuf *err)
{
	const char *weight = weight_defs[wi].name;
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT header FROM profiles WHERE id = ?", &st, err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, run * 8 + wi);
	rc = store_eng_step(st, err);
	if (rc == 0) {
		sbuf_setf(err, "'%s': run %" PRId64 " has no %s profile", s->e->where, run, weight);
		rc = GF_EUSAGE;
	}
	if (rc == 1) {
		size_t n;
		const char *h = store_eng_col_text(st, 0, &n);
		if (n && (n < 11 || memcmp(h, "# gpuflame:", 11) || !text_ok(h, n)))
			rc = damaged(s, run, weight, "its header is not one '# gpuflame:' line", err);
		else
			rc = GF_OK;
		sbuf_add(out, h, n);
	}
	store_eng_free(st);
	return rc;
}

int store_profile_text(struct store *s, int64_t run, const char *weight, struct sbuf *out, struct sbuf *err)
{
	int wi = weight_index(weight);
	if (wi < 0) {
		sbuf_setf(err, "unknown weight '%s'", weight);
		return GF_EUSAGE;
	}
	size_t at = out->len;
	int rc = profile_header(s, run, wi, out, err);
	if (rc)
		return rc;
	if (out->len > at)
		sbuf_addch(out, '\n');
	return profile_lines(s, run, wi, false, out, NULL, err);
}

/* The per-step stacks sort in [STORE_STEPS_FRAME ";", STORE_STEPS_FRAME "<")
 * (';' + 1 = '<'): bytes compared as blobs on both engines. */
static int profile_lines(struct store *s, int64_t run, int wi, bool steps, struct sbuf *out, size_t *nlines,
			 struct sbuf *err)
{
	static const char lo[] = STORE_STEPS_FRAME ";", hi[] = STORE_STEPS_FRAME "<";
	const char *weight = weight_defs[wi].name;
	int64_t pid = run * 8 + wi, scale;
	int rc = q_int(s, "SELECT scale FROM profiles WHERE id = ?", NULL, &pid, 0, &scale, err);
	if (rc)
		return rc;
	if (scale < 0 || scale > NUM_MAX_SCALE)
		return damaged(s, run, weight, "its decimal scale is out of range", err);
	struct store_stmt *st;
	rc = store_eng_prepare(s->e,
			       steps ? "SELECT t.text, p.value FROM samples p JOIN stacks t ON t.hash = p.stack "
				       "WHERE p.profile = ? AND t.text >= ? AND t.text < ? ORDER BY t.text"
				     : "SELECT t.text, p.value FROM samples p JOIN stacks t ON t.hash = p.stack "
				       "WHERE p.profile = ? AND NOT (t.text >= ? AND t.text < ?) ORDER BY t.text",
			       &st, err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, pid);
	store_eng_bind_blob(st, 2, lo, sizeof lo - 1);
	store_eng_bind_blob(st, 3, hi, sizeof hi - 1);
	bool first = true;
	while ((rc = store_eng_step(st, err)) == 1) {
		size_t n;
		const char *txt = store_eng_col_text(st, 0, &n);
		if (steps) { /* the frame off */
			txt += sizeof lo - 1;
			n -= sizeof lo - 1;
		}
		if (!n || !text_ok(txt, n)) {
			rc = damaged(s, run, weight, "a stored stack is empty or holds a line break or NUL byte", err);
			break;
		}
		size_t start = out->len;
		sbuf_add(out, txt, n);
		if (first && folded_stack_end_needed(out->buf + start, n, true) && (!n || txt[n - 1] != ';'))
			sbuf_addch(out, ';');
		first = false;
		sbuf_addch(out, ' ');
		num_fmt(out, store_eng_col_i64(st, 1), (unsigned)scale);
		sbuf_addch(out, '\n');
		if (nlines)
			++*nlines;
	}
	store_eng_free(st);
	return rc < 0 ? rc : GF_OK;
}

static bool all_digits(const char *p)
{
	if (!*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

int store_side_runs(struct store *s, const char *spec, int64_t **ids, size_t *n, struct sbuf *name,
		    struct sbuf *err)
{
	*ids = NULL;
	*n = 0;
	const char *rel = spec;
	if (!strncmp(spec, "run:", 4) || all_digits(spec)) {
		const char *d = spec[0] == 'r' ? spec + 4 : spec;
		if (!all_digits(d) || strlen(d) > 18) {
			sbuf_setf(err, "'%s': expected run:N with N a run id", spec);
			return GF_EUSAGE;
		}
		int64_t id = strtoll(d, NULL, 10), found;
		int rc = q_int(s, "SELECT count(*) FROM runs WHERE id = ?", NULL, &id, 0, &found, err);
		if (rc)
			return rc;
		if (!found) {
			sbuf_setf(err, "'%s': no run %" PRId64 " (see 'gpuflame store list')", s->e->where, id);
			return GF_EUSAGE;
		}
		*ids = gf_xmalloc(sizeof **ids);
		(*ids)[0] = id;
		*n = 1;
		sbuf_setf(name, "run %" PRId64, id);
		return GF_OK;
	}
	if (!strncmp(spec, "release:", 8))
		rel = spec + 8;
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT id FROM runs WHERE release = ? ORDER BY id", &st, err);
	if (rc)
		return rc;
	store_bind_name(s, st, 1, rel, strlen(rel));
	size_t cap = 0;
	while ((rc = store_eng_step(st, err)) == 1) {
		if (*n == cap)
			*ids = gf_xreallocarray(*ids, cap = cap ? 2 * cap : 8, sizeof **ids);
		(*ids)[(*n)++] = store_eng_col_i64(st, 0);
	}
	store_eng_free(st);
	if (rc < 0)
		return rc;
	if (!*n) {
		sbuf_setf(err, "'%s': no run of release '%s' (see 'gpuflame store list')", s->e->where, rel);
		return GF_EUSAGE;
	}
	sbuf_setf(name, "release %s", rel);
	if (*n > 1)
		sbuf_addf(name, " (%zu runs)", *n);
	return GF_OK;
}

int store_runs_text(struct store *s, const int64_t *ids, size_t n, const char *weight, struct sbuf *out,
		    struct sbuf *err)
{
	if (n == 1)
		return store_profile_text(s, ids[0], weight, out, err);
	struct merge_opts mo;
	memset(&mo, 0, sizeof mo);
	struct merge_meta *mm = merge_meta_new(&mo);
	struct sbuf lines = SBUF_INIT, one = SBUF_INIT, label = SBUF_INIT;
	int rc = GF_OK;
	for (size_t i = 0; i < n && !rc; i++) {
		sbuf_reset(&one);
		if ((rc = store_profile_text(s, ids[i], weight, &one, err)))
			break;
		const char *body = one.buf;
		struct ftree_meta m = { .n = 0 };
		if (!strncmp(one.buf, "#", 1)) {
			const char *nl = strchr(one.buf, '\n');
			folded_parse_meta(one.buf, (size_t)(nl - one.buf), &m);
			body = nl + 1;
		}
		sbuf_setf(&label, "run %" PRId64, ids[i]);
		rc = merge_meta_add(mm, &m, label.buf, err);
		ftree_meta_clear(&m);
		sbuf_add(&lines, body, (size_t)(one.buf + one.len - body));
	}
	if (!rc) {
		struct ftree_meta m = { .n = 0 };
		merge_meta_result(mm, &m);
		header_text(&m, out);
		if (m.n)
			sbuf_addch(out, '\n');
		ftree_meta_clear(&m);
		sbuf_add(out, lines.buf, lines.len);
	}
	merge_meta_free(mm);
	sbuf_release(&lines);
	sbuf_release(&one);
	sbuf_release(&label);
	return rc;
}

int store_side_release(struct store *s, const char *spec, struct sbuf *rel, struct sbuf *err)
{
	int64_t *ids;
	size_t n;
	struct sbuf name = SBUF_INIT;
	int rc = store_side_runs(s, spec, &ids, &n, &name, err);
	sbuf_release(&name);
	if (rc)
		return rc;
	struct store_stmt *st;
	rc = store_eng_prepare(s->e, "SELECT release FROM runs WHERE id = ?", &st, err);
	if (!rc) {
		store_eng_bind_i64(st, 1, ids[0]);
		if ((rc = store_eng_step(st, err)) == 1) {
			size_t len;
			const char *p = store_eng_col_text(st, 0, &len);
			sbuf_reset(rel);
			sbuf_add(rel, p, len);
		}
		store_eng_free(st);
		rc = rc < 0 ? rc : GF_OK;
	}
	free(ids);
	return rc;
}

/* Renumbers the step frames of run k's per-step lines apart from the other
 * runs' (store.h store_side_steps): the first frame on each line that is a
 * step marker, ProfilerStep#N (or the bare marker, N = 0), becomes
 * marker#<k * 10^9 + N>. */
static void renumber_steps(const char *txt, size_t len, const char *marker, size_t k, struct sbuf *out)
{
	size_t ml = strlen(marker);
	for (const char *p = txt, *end = txt + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *f = p, *done = NULL;
		while (f < le && !done) {
			const char *semi = memchr(f, ';', (size_t)(le - f));
			const char *fe = semi ? semi : le;
			/* the last frame holds the count after a blank: its name ends there */
			const char *ne = semi ? fe : f;
			if (!semi)
				for (const char *q = le; q > f; q--)
					if (q[-1] == ' ') {
						ne = q - 1;
						break;
					}
			int64_t num;
			if (ne > f && names_step(f, (size_t)(ne - f), marker, &num)) {
				sbuf_add(out, p, (size_t)(f - p));
				sbuf_addf(out, "%.*s#%lld", (int)ml, marker, (long long)((int64_t)k * 1000000000 + (num < 0 ? 0 : num)));
				sbuf_add(out, ne, (size_t)(le - ne));
				done = ne;
			}
			f = fe + 1;
		}
		if (!done)
			sbuf_add(out, p, (size_t)(le - p));
		sbuf_addch(out, '\n');
		p = le + 1;
	}
}

int store_side_steps(struct store *s, const char *spec, const char *weight, struct ftree *steps, struct sbuf *err)
{
	int wi = weight_index(weight);
	if (wi < 0) {
		sbuf_setf(err, "unknown weight '%s'", weight);
		return GF_EUSAGE;
	}
	int64_t *ids;
	size_t n;
	struct sbuf name = SBUF_INIT, text = SBUF_INIT, one = SBUF_INIT;
	int rc = store_side_runs(s, spec, &ids, &n, &name, err);
	struct ftree_meta m = { .n = 0 };
	for (size_t k = 0; k < n && !rc; k++) {
		sbuf_reset(&one);
		size_t lines = 0;
		if ((rc = profile_lines(s, ids[k], wi, true, &one, &lines, err)))
			break;
		if (!lines) { /* a run without its per-step fold: no test */
			sbuf_reset(&text);
			break;
		}
		if (!k) { /* the first run's header, as a per-step fold's */
			struct sbuf h = SBUF_INIT;
			if (!(rc = profile_header(s, ids[k], wi, &h, err)) && h.len)
				folded_parse_meta(h.buf, h.len, &m);
			sbuf_release(&h);
		}
		renumber_steps(one.buf, one.len, names_marker(ftree_meta_get(&m, "step_marker")), k, &text);
	}
	if (!rc && text.len) {
		ftree_meta_set(&m, "per_step", "yes");
		struct sbuf all = SBUF_INIT;
		header_text(&m, &all);
		sbuf_addch(&all, '\n');
		sbuf_add(&all, text.buf, text.len);
		struct folded_opts fo = { .strict = true, .reverse = false };
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		rc = folded_read_mem(steps, all.buf, all.len, name.buf, &fo, &st, err);
		sbuf_release(&all);
	}
	ftree_meta_clear(&m);
	free(ids);
	sbuf_release(&name);
	sbuf_release(&text);
	sbuf_release(&one);
	return rc;
}

int store_side(struct store *s, const char *spec, const char *weight, struct ftree *t, struct sbuf *name,
	       struct sbuf *err)
{
	int64_t *ids;
	size_t n;
	int rc = store_side_runs(s, spec, &ids, &n, name, err);
	if (rc)
		return rc;
	struct sbuf text = SBUF_INIT;
	rc = store_runs_text(s, ids, n, weight, &text, err);
	free(ids);
	if (!rc) {
		struct folded_opts fo = { .strict = true, .reverse = false };
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		rc = folded_read_mem(t, text.buf, text.len, name->buf, &fo, &st, err);
	}
	sbuf_release(&text);
	return rc;
}
