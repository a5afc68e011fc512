/*
 * store.c — the release store (store.h): schema and migrations, adding a
 * run in one transaction, reading runs back as folded text, list, show,
 * trend, gc. Every query is written once for both engines (store_eng.h).
 */
#include "store/store.h"

#include "base/escape.h"
#include "base/jsonw.h"
#include "base/num.h"
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

/* Migration k takes the schema from version k-1 to k. */
static const char *const store_migrations[] = {
	NULL,
	"CREATE TABLE runs(id BIGINT PRIMARY KEY, release TEXT NOT NULL, added BIGINT NOT NULL,"
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
		char b[24];
		snprintf(b, sizeof b, "%.*s", (int)(n < 20 ? n : 20), p);
		*v = strtoll(b, NULL, 10);
		if (*v <= 0)
			*v = INT64_MAX;
	}
	store_eng_free(st);
	return rc < 0 ? rc : GF_OK;
}

static int store_migrate(struct store *s, struct sbuf *err)
{
	int rc = s->e->ops->begin_write(s->e, err);
	if (rc)
		return rc;
	int64_t v;
	if ((rc = store_version(s, &v, err)))
		goto fail;
	for (int64_t k = v + 1; k < (int64_t)STORE_NMIG; k++)
		if ((rc = q_exec(s, store_migrations[k], err)))
			goto fail;
	if (v < STORE_SCHEMA) {
		char sql[128];
		snprintf(sql, sizeof sql, "DELETE FROM gf_meta WHERE key = 'schema'; "
			 "INSERT INTO gf_meta(key, value) VALUES ('schema', '%d')", STORE_SCHEMA);
		if ((rc = q_exec(s, sql, err)))
			goto fail;
	}
	return store_eng_exec(s->e, "COMMIT", err);
fail:
	q_rollback(s);
	return rc;
}

int store_open(struct store **out, const char *url, struct sbuf *err)
{
	*out = NULL;
	struct store *s = gf_xcalloc(1, sizeof *s);
	int rc = store_eng_open(&s->e, url, err);
	if (rc) {
		free(s);
		return rc;
	}
	int64_t v = 0;
	rc = q_exec(s, "CREATE TABLE IF NOT EXISTS gf_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)", err);
	if (!rc)
		rc = store_version(s, &v, err);
	if (!rc && v > STORE_SCHEMA) {
		sbuf_setf(err, "'%s': the store has schema version %" PRId64 ", newer than this gpuflame's (%d): "
			  "use a newer gpuflame (the database was left untouched)", s->e->where, v, STORE_SCHEMA);
		rc = GF_EINPUT;
	}
	if (!rc && v < STORE_SCHEMA)
		rc = store_migrate(s, err);
	if (rc) {
		store_close(s);
		return rc;
	}
	s->schema = STORE_SCHEMA;
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
	folded_write_meta(fp, m);
	fclose(fp);
	while (len && buf[len - 1] == '\n')
		len--;
	sbuf_add(out, buf, len);
	free(buf);
}

/* Inserts one prepared row: i64 params (kinds 'i') and texts ('t'). */
static int q_row(struct store *s, struct store_stmt *st, const char *kinds, const int64_t *iv,
		 const char *const *sv, struct sbuf *err)
{
	for (int i = 0; kinds[i]; i++) {
		if (kinds[i] == 'i')
			store_eng_bind_i64(st, i + 1, iv[i]);
		else if (kinds[i] == 'b')
			store_eng_bind_blob(st, i + 1, sv[i], strlen(sv[i]));
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

/* The stacks of one profile into the temp table stk_in; hash[i] gets node
 * i's stack hash (nodes without self weight are not stacks). */
static int add_profile(struct store *s, struct ftree *t, int64_t *hash, int64_t *nstacks, struct sbuf *err)
{
	struct sbuf b = SBUF_INIT;
	int rc = GF_OK;
	int64_t n = 0;
	for (uint32_t i = 1; i < t->n && !rc; i++) {
		if (!ftree_self(t, i, 0))
			continue;
		sbuf_reset(&b);
		folded_put_path(&b, t, i);
		folded_end_stack(&b, 0, false);
		hash[i] = store_hash(b.buf, b.len);
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

static int add_stacks(struct store *s, const struct store_run_in *in, int64_t id, struct sbuf *err)
{
	int rc = q_exec(s, "CREATE TEMP TABLE IF NOT EXISTS stk_in(hash BIGINT NOT NULL, text BLOB NOT NULL);"
			"DELETE FROM stk_in", err);
	if (rc)
		return rc;
	int64_t counts[STORE_MAX_PROFILES] = { 0 };
	int64_t *hash[STORE_MAX_PROFILES] = { NULL };
	if ((rc = s->e->ops->bulk_begin(s->e, "stk_in", "hash,text", "ib", err)))
		return rc;
	for (size_t k = 0; k < in->nprof && !rc; k++) {
		hash[k] = gf_xcalloc(in->prof[k]->n ? in->prof[k]->n : 1, sizeof *hash[k]);
		rc = add_profile(s, in->prof[k], hash[k], &counts[k], err);
	}
	int rc2 = s->e->ops->bulk_end(s->e, err);
	if (!rc)
		rc = rc2;
	if (!rc)
		rc = add_samples_all(s, in, id, counts, hash, err);
	for (size_t k = 0; k < in->nprof; k++)
		free(hash[k]);
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
			rc2 = s->e->ops->bulk_end(s->e, err);
			if (!rc)
				rc = rc2;
		}
	}
	return rc;
}

static int add_rows(struct store *s, const struct store_run_in *in, int64_t id, struct sbuf *err)
{
	struct sbuf h = SBUF_INIT;
	if (in->nprof)
		header_text(&in->prof[0]->meta, &h);
	int64_t iv[7] = { id, 0, (int64_t)time(NULL), 0, 0, in->steps, 0 };
	const char *sv[7] = { NULL, in->release, NULL, in->source, in->kind, NULL, h.buf };
	int rc = q_insert(s, "INSERT INTO runs(id, release, added, source, kind, steps, header) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?)", "itittib", iv, sv, err);
	sbuf_release(&h);
	struct store_stmt *st = NULL;
	if (!rc)
		rc = store_eng_prepare(s->e, "INSERT INTO labels(run, key, value) VALUES (?, ?, ?)", &st, err);
	for (size_t i = 0; i < in->nlabels && !rc; i++) {
		const char *eq = strchr(in->labels[i], '=');
		char *k = gf_xstrndup(in->labels[i], (size_t)(eq - in->labels[i]));
		int64_t liv[3] = { id, 0, 0 };
		const char *lsv[3] = { NULL, k, eq + 1 };
		rc = q_row(s, st, "itt", liv, lsv, err);
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

int store_add(struct store *s, const struct store_run_in *in, int64_t *id, struct sbuf *err)
{
	for (size_t k = 0; k < in->nprof; k++)
		if (weight_index(in->weights[k]) < 0) {
			sbuf_setf(err, "unknown weight '%s'", in->weights[k]);
			return GF_EUSAGE;
		}
	int rc = s->e->ops->begin_write(s->e, err);
	if (rc)
		return rc;
	if (!(rc = q_int(s, "SELECT max(id) FROM runs", NULL, NULL, 0, id, err))) {
		++*id;
		rc = add_rows(s, in, *id, err);
	}
	if (!rc)
		rc = add_stacks(s, in, *id, err);
	if (!rc && getenv("GPUFLAME_STORE_TEST_PAUSE")) /* the crash test: a window inside the transaction */
		nanosleep(&(struct timespec){ 0, 200 * 1000000L }, NULL);
	if (!rc)
		rc = store_eng_exec(s->e, "COMMIT", err);
	if (rc)
		q_rollback(s);
	return rc;
}

/* ---- reading back ---- */

int store_profile_text(struct store *s, int64_t run, const char *weight, struct sbuf *out, struct sbuf *err)
{
	int wi = weight_index(weight);
	if (wi < 0) {
		sbuf_setf(err, "unknown weight '%s'", weight);
		return GF_EUSAGE;
	}
	int64_t pid = run * 8 + wi;
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT header FROM profiles WHERE id = ?", &st, err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, pid);
	rc = store_eng_step(st, err);
	if (rc == 0) {
		sbuf_setf(err, "'%s': run %" PRId64 " has no %s profile", s->e->where, run, weight);
		rc = GF_EUSAGE;
	}
	if (rc == 1) {
		size_t n;
		const char *h = store_eng_col_text(st, 0, &n);
		sbuf_add(out, h, n);
		if (n)
			sbuf_addch(out, '\n');
		rc = GF_OK;
	}
	store_eng_free(st);
	if (rc)
		return rc;
	int64_t scale;
	if ((rc = q_int(s, "SELECT scale FROM profiles WHERE id = ?", NULL, &pid, 0, &scale, err)))
		return rc;
	rc = store_eng_prepare(s->e, "SELECT t.text, p.value FROM samples p JOIN stacks t ON t.hash = p.stack "
			       "WHERE p.profile = ? ORDER BY t.text", &st, err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, pid);
	bool first = true;
	while ((rc = store_eng_step(st, err)) == 1) {
		size_t n;
		const char *txt = store_eng_col_text(st, 0, &n);
		size_t start = out->len;
		sbuf_add(out, txt, n);
		if (first && folded_stack_end_needed(out->buf + start, n, true) && (!n || txt[n - 1] != ';'))
			sbuf_addch(out, ';');
		first = false;
		sbuf_addch(out, ' ');
		num_fmt(out, store_eng_col_i64(st, 1), (unsigned)scale);
		sbuf_addch(out, '\n');
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

/* The runs of a side, ascending. */
static int side_runs(struct store *s, const char *spec, int64_t **ids, size_t *n, struct sbuf *name,
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
	store_eng_bind_text(st, 1, rel, strlen(rel));
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

/* The runs' texts summed: one header (merged like gpuflame merge), then the
 * stack lines of every run. */
static int side_text(struct store *s, const int64_t *ids, size_t n, const char *weight, struct sbuf *out,
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
	int rc = side_runs(s, spec, &ids, &n, &name, err);
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

int store_side(struct store *s, const char *spec, const char *weight, struct ftree *t, struct sbuf *name,
	       struct sbuf *err)
{
	int64_t *ids;
	size_t n;
	int rc = side_runs(s, spec, &ids, &n, name, err);
	if (rc)
		return rc;
	struct sbuf text = SBUF_INIT;
	rc = side_text(s, ids, n, weight, &text, err);
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
