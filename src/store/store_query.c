/*
 * store_query.c — the read side of the release store (store.h): list,
 * show, trend and gc read their rows here; store_out.c writes them (text,
 * JSON, the trend's SVG plot).
 */
#include "store/store.h"

#include "store/store_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static char *col_dup(struct store_stmt *st, int i)
{
	size_t n;
	const char *p = store_eng_col_text(st, i, &n);
	return gf_xstrndup(p, n);
}

/* A run's labels, by key, into r. */
static int run_labels(struct store *s, struct store_out_run *r, struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT key, value FROM labels WHERE run = ? ORDER BY key", &st, err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, r->id);
	size_t cap = 0;
	while ((rc = store_eng_step(st, err)) == 1) {
		if (r->nlabels == cap)
			r->labels = gf_xreallocarray(r->labels, cap = cap ? 2 * cap : 8, sizeof *r->labels);
		r->labels[r->nlabels++] = (struct store_kv){ col_dup(st, 0), col_dup(st, 1) };
	}
	store_eng_free(st);
	return rc < 0 ? rc : GF_OK;
}

int store_list(struct store *s, const struct store_filter *f, bool json, struct sbuf *out, struct sbuf *err)
{
	struct store_stmt *st;
	const char *sql = "SELECT id, release, added, kind, steps, source FROM runs r WHERE (? = 0 OR release = ?)"
			  " AND (? = 0 OR EXISTS (SELECT 1 FROM labels l WHERE l.run = r.id AND l.key = ? AND l.value = ?))"
			  " AND added >= ? AND added < ? ORDER BY id";
	int rc = store_eng_prepare(s->e, sql, &st, err);
	if (rc)
		return rc;
	const char *rel = f->release ? f->release : "";
	store_eng_bind_i64(st, 1, f->release != NULL);
	store_bind_name(s, st, 2, rel, strlen(rel));
	const char *lab = f->label ? f->label : "=";
	const char *eq = strchr(lab, '=');
	store_eng_bind_i64(st, 3, f->label != NULL);
	store_eng_bind_text(st, 4, lab, (size_t)(eq - lab));
	store_bind_name(s, st, 5, eq + 1, strlen(eq + 1));
	store_eng_bind_i64(st, 6, f->since);
	store_eng_bind_i64(st, 7, f->until ? f->until : INT64_MAX);
	/* rows are collected first: the label query runs on the same connection */
	struct store_out_run *rows = NULL;
	size_t n = 0, cap = 0;
	while ((rc = store_eng_step(st, err)) == 1) {
		if (n == cap)
			rows = gf_xreallocarray(rows, cap = cap ? 2 * cap : 16, sizeof *rows);
		rows[n++] = (struct store_out_run){ store_eng_col_i64(st, 0), store_eng_col_i64(st, 2),
						    store_eng_col_i64(st, 4), col_dup(st, 1), col_dup(st, 3),
						    col_dup(st, 5), NULL, 0 };
	}
	store_eng_free(st);
	for (size_t i = 0; i < n && rc >= 0; i++)
		rc = run_labels(s, &rows[i], err);
	if (rc >= 0)
		store_out_list(rows, n, json, out);
	for (size_t i = 0; i < n; i++)
		store_out_run_release(&rows[i]);
	free(rows);
	return rc < 0 ? rc : GF_OK;
}

/* The run's metrics (by key) and profiles (by id) into sh. */
static int run_parts(struct store *s, struct store_out_show *sh, struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT key, value FROM metrics WHERE run = ? ORDER BY key", &st, err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, sh->run.id);
	size_t cap = 0;
	while ((rc = store_eng_step(st, err)) == 1) {
		if (sh->nmetrics == cap)
			sh->metrics = gf_xreallocarray(sh->metrics, cap = cap ? 2 * cap : 16, sizeof *sh->metrics);
		sh->metrics[sh->nmetrics++] = (struct store_out_metric){ col_dup(st, 0), store_eng_col_i64(st, 1) };
	}
	store_eng_free(st);
	if (rc < 0)
		return rc;
	rc = store_eng_prepare(s->e, "SELECT weight, scale, stacks, total FROM profiles WHERE run = ? ORDER BY id", &st,
			       err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, sh->run.id);
	cap = 0;
	while ((rc = store_eng_step(st, err)) == 1) {
		if (sh->nprofiles == cap)
			sh->profiles = gf_xreallocarray(sh->profiles, cap = cap ? 2 * cap : 8, sizeof *sh->profiles);
		sh->profiles[sh->nprofiles++] = (struct store_out_profile){
			col_dup(st, 0), store_eng_col_i64(st, 1), store_eng_col_i64(st, 2), store_eng_col_i64(st, 3)
		};
	}
	store_eng_free(st);
	return rc < 0 ? rc : GF_OK;
}

int store_show(struct store *s, int64_t run, bool json, struct sbuf *out, struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT release, added, kind, steps, source, header FROM runs WHERE id = ?",
				   &st, err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, run);
	rc = store_eng_step(st, err);
	if (rc == 0) {
		sbuf_setf(err, "'%s': no run %" PRId64 " (see 'gpuflame store list')", s->e->where, run);
		rc = GF_EUSAGE;
	}
	if (rc < 0) {
		store_eng_free(st);
		return rc;
	}
	struct store_out_show sh;
	memset(&sh, 0, sizeof sh);
	sh.run.id = run;
	sh.run.release = col_dup(st, 0);
	sh.run.added = store_eng_col_i64(st, 1);
	sh.run.kind = col_dup(st, 2);
	sh.run.steps = store_eng_col_i64(st, 3);
	sh.run.source = col_dup(st, 4);
	sh.header = col_dup(st, 5);
	store_eng_free(st);
	rc = run_labels(s, &sh.run, err);
	if (!rc)
		rc = run_parts(s, &sh, err);
	if (!rc)
		store_out_show(&sh, json, out);
	store_out_show_release(&sh);
	return rc;
}

/* x / n rounded half to even. */
static int64_t mean_even(int64_t x, int64_t n)
{
	if (n <= 0)
		return 0;
	int64_t q = x / n, r = x % n;
	if (r < 0) {
		q--;
		r += n;
	}
	if (2 * r > n || (2 * r == n && (q & 1)))
		q++;
	return q;
}

int store_trend(struct store *s, const char *metric, int fmt, struct sbuf *out, struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT r.release, count(*), CAST(sum(m.value) AS BIGINT), min(r.id) "
				   "FROM runs r JOIN metrics m ON m.run = r.id AND m.key = ? "
				   "GROUP BY r.release ORDER BY min(r.id)", &st, err);
	if (rc)
		return rc;
	store_eng_bind_text(st, 1, metric, strlen(metric));
	struct store_out_trend *r = NULL;
	size_t n = 0, cap = 0;
	while ((rc = store_eng_step(st, err)) == 1) {
		if (n == cap)
			r = gf_xreallocarray(r, cap = cap ? 2 * cap : 16, sizeof *r);
		r[n].release = col_dup(st, 0);
		r[n].runs = store_eng_col_i64(st, 1);
		r[n].sum = store_eng_col_i64(st, 2);
		r[n].mean = mean_even(r[n].sum, r[n].runs);
		n++;
	}
	store_eng_free(st);
	if (rc >= 0 && !n) {
		sbuf_setf(err, "'%s': no run has the metric '%s' (see 'gpuflame store show RUN')", s->e->where, metric);
		rc = GF_EUSAGE;
	}
	if (rc >= 0) {
		rc = GF_OK;
		store_out_trend(metric, r, n, fmt, out);
	}
	for (size_t i = 0; i < n; i++)
		free(r[i].release);
	free(r);
	return rc;
}

int store_gc(struct store *s, int64_t keep, int64_t *runs, int64_t *stacks, struct sbuf *err)
{
	int rc = s->e->ops->begin_write(s->e, err);
	if (rc)
		return rc;
	int64_t before_runs = 0, before_stacks = 0, after_runs = 0, after_stacks = 0;
	struct store_stmt *st = NULL;
	const char *const del[] = {
		"DELETE FROM samples WHERE profile IN (SELECT p.id FROM profiles p JOIN gc_drop d ON d.id = p.run)",
		"DELETE FROM profiles WHERE run IN (SELECT id FROM gc_drop)",
		"DELETE FROM labels WHERE run IN (SELECT id FROM gc_drop)",
		"DELETE FROM metrics WHERE run IN (SELECT id FROM gc_drop)",
		"DELETE FROM runs WHERE id IN (SELECT id FROM gc_drop)",
		/* a set difference: a sort or hash on both engines, never a scan per stack */
		"DELETE FROM stacks WHERE hash IN (SELECT hash FROM stacks EXCEPT SELECT stack FROM samples)",
		NULL,
	};
	if ((rc = store_eng_prepare(s->e, "SELECT count(*) FROM runs", &st, err)))
		goto fail;
	if ((rc = store_eng_step(st, err)) == 1)
		before_runs = store_eng_col_i64(st, 0);
	store_eng_free(st);
	if (rc < 0 || (rc = store_eng_prepare(s->e, "SELECT count(*) FROM stacks", &st, err)))
		goto fail;
	if ((rc = store_eng_step(st, err)) == 1)
		before_stacks = store_eng_col_i64(st, 0);
	store_eng_free(st);
	if (rc < 0 || (rc = store_eng_exec(s->e, "CREATE TEMP TABLE IF NOT EXISTS gc_drop(id BIGINT PRIMARY KEY);"
					   "DELETE FROM gc_drop", err)))
		goto fail;
	/* the releases ranked by their newest run; all runs of those past keep go */
	if ((rc = store_eng_prepare(s->e, "INSERT INTO gc_drop(id) SELECT r.id FROM runs r WHERE r.release NOT IN "
				    "(SELECT release FROM runs GROUP BY release ORDER BY max(id) DESC LIMIT ?)", &st, err)))
		goto fail;
	store_eng_bind_i64(st, 1, keep);
	rc = store_eng_step(st, err);
	store_eng_free(st);
	if (rc < 0)
		goto fail;
	for (int i = 0; del[i]; i++)
		if ((rc = store_eng_exec(s->e, del[i], err)))
			goto fail;
	if ((rc = store_eng_prepare(s->e, "SELECT count(*) FROM runs", &st, err)))
		goto fail;
	if ((rc = store_eng_step(st, err)) == 1)
		after_runs = store_eng_col_i64(st, 0);
	store_eng_free(st);
	if (rc < 0 || (rc = store_eng_prepare(s->e, "SELECT count(*) FROM stacks", &st, err)))
		goto fail;
	if ((rc = store_eng_step(st, err)) == 1)
		after_stacks = store_eng_col_i64(st, 0);
	store_eng_free(st);
	if (rc < 0 || (rc = store_eng_exec(s->e, "COMMIT", err)))
		goto fail;
	*runs = before_runs - after_runs;
	*stacks = before_stacks - after_stacks;
	return GF_OK;
fail:;
	struct sbuf e2 = SBUF_INIT;
	store_eng_exec(s->e, "ROLLBACK", &e2);
	sbuf_release(&e2);
	return rc < 0 ? rc : GF_EINPUT;
}
