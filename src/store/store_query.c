/*
 * store_query.c — the read side of the release store (store.h): list,
 * show, trend (table or SVG plot) and gc. Names (releases, labels,
 * sources) are the user's: text goes through rtable (escaped for the
 * terminal), JSON through jsonw, SVG through esc_xml.
 */
#include "store/store.h"

#include "base/escape.h"
#include "base/jsonw.h"
#include "base/rtable.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fmt_time(int64_t t, char *b, size_t n)
{
	time_t x = (time_t)t;
	struct tm tm;
	gmtime_r(&x, &tm);
	strftime(b, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static char *col_dup(struct store_stmt *st, int i)
{
	size_t n;
	const char *p = store_eng_col_text(st, i, &n);
	return gf_xstrndup(p, n);
}

/* "k=v k=v" of a run's labels. */
static int run_labels(struct store *s, int64_t run, struct sbuf *out, struct jsonw *j, struct sbuf *err)
{
	struct store_stmt *st;
	int rc = store_eng_prepare(s->e, "SELECT key, value FROM labels WHERE run = ? ORDER BY key", &st, err);
	if (rc)
		return rc;
	store_eng_bind_i64(st, 1, run);
	if (j)
		jsonw_obj(j);
	while ((rc = store_eng_step(st, err)) == 1) {
		char *k = col_dup(st, 0), *v = col_dup(st, 1);
		if (j) {
			jsonw_key(j, k);
			jsonw_str(j, v);
		} else {
			sbuf_addf(out, "%s%s=%s", out->len ? " " : "", k, v);
		}
		free(k);
		free(v);
	}
	if (j)
		jsonw_end(j, '}');
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
	struct rtable t;
	rtable_init(&t, 7);
	const char *heads[] = { "run", "release", "added", "kind", "steps", "source", "labels" };
	for (unsigned i = 0; i < 7; i++)
		rtable_head(&t, i, heads[i], i == 0 || i == 4 ? RT_RIGHT : RT_LEFT);
	t.maxw[6] = 200;
	struct jsonw j;
	if (json) {
		jsonw_init(&j, out);
		jsonw_arr(&j);
	}
	struct sbuf lb = SBUF_INIT;
	/* rows are collected first: the label query runs on the same connection */
	struct row { int64_t id, added, steps; char *rel, *kind, *src; } *rows = NULL;
	size_t n = 0, cap = 0;
	while ((rc = store_eng_step(st, err)) == 1) {
		if (n == cap)
			rows = gf_xreallocarray(rows, cap = cap ? 2 * cap : 16, sizeof *rows);
		rows[n++] = (struct row){ store_eng_col_i64(st, 0), store_eng_col_i64(st, 2), store_eng_col_i64(st, 4),
					  col_dup(st, 1), col_dup(st, 3), col_dup(st, 5) };
	}
	store_eng_free(st);
	for (size_t i = 0; i < n; i++) {
		char tb[32];
		fmt_time(rows[i].added, tb, sizeof tb);
		if (rc >= 0 && json) {
			jsonw_obj(&j);
			jsonw_key(&j, "run");
			jsonw_int(&j, rows[i].id);
			jsonw_key(&j, "release");
			jsonw_str(&j, rows[i].rel);
			jsonw_key(&j, "added");
			jsonw_str(&j, tb);
			jsonw_key(&j, "kind");
			jsonw_str(&j, rows[i].kind);
			jsonw_key(&j, "steps");
			jsonw_int(&j, rows[i].steps);
			jsonw_key(&j, "source");
			jsonw_str(&j, rows[i].src);
			jsonw_key(&j, "labels");
			rc = run_labels(s, rows[i].id, NULL, &j, err);
			jsonw_end(&j, '}');
		} else if (rc >= 0) {
			sbuf_reset(&lb);
			rc = run_labels(s, rows[i].id, &lb, NULL, err);
			rtable_cellf(&t, "%" PRId64, rows[i].id);
			rtable_cell(&t, rows[i].rel);
			rtable_cell(&t, tb);
			rtable_cell(&t, rows[i].kind);
			rtable_cellf(&t, "%" PRId64, rows[i].steps);
			rtable_cell(&t, rows[i].src);
			rtable_cell(&t, lb.buf ? lb.buf : "");
		}
		free(rows[i].rel);
		free(rows[i].kind);
		free(rows[i].src);
	}
	free(rows);
	if (json) {
		jsonw_end(&j, ']');
		sbuf_addch(out, '\n');
	} else {
		rtable_text(&t, out, 0);
	}
	rtable_release(&t);
	sbuf_release(&lb);
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
	char *rel = col_dup(st, 0), *kind = col_dup(st, 2), *src = col_dup(st, 4), *hdr = col_dup(st, 5);
	int64_t added = store_eng_col_i64(st, 1), steps = store_eng_col_i64(st, 3);
	store_eng_free(st);
	char tb[32];
	fmt_time(added, tb, sizeof tb);
	struct jsonw j;
	struct sbuf lb = SBUF_INIT, tmp = SBUF_INIT;
	if (json) {
		jsonw_init(&j, out);
		jsonw_obj(&j);
		jsonw_key(&j, "run");
		jsonw_int(&j, run);
		jsonw_key(&j, "release");
		jsonw_str(&j, rel);
		jsonw_key(&j, "added");
		jsonw_str(&j, tb);
		jsonw_key(&j, "kind");
		jsonw_str(&j, kind);
		jsonw_key(&j, "steps");
		jsonw_int(&j, steps);
		jsonw_key(&j, "source");
		jsonw_str(&j, src);
		jsonw_key(&j, "header");
		jsonw_str(&j, hdr);
		jsonw_key(&j, "labels");
		rc = run_labels(s, run, NULL, &j, err);
	} else {
		rc = run_labels(s, run, &lb, NULL, err);
		struct rtable t;
		rtable_init(&t, 2);
		rtable_head(&t, 0, "field", RT_LEFT);
		rtable_head(&t, 1, "value", RT_LEFT);
		t.maxw[1] = 400;
		rtable_cell(&t, "run");
		rtable_cellf(&t, "%" PRId64, run);
		rtable_cell(&t, "release");
		rtable_cell(&t, rel);
		rtable_cell(&t, "added");
		rtable_cell(&t, tb);
		rtable_cell(&t, "kind");
		rtable_cell(&t, kind);
		rtable_cell(&t, "steps");
		rtable_cellf(&t, "%" PRId64, steps);
		rtable_cell(&t, "source");
		rtable_cell(&t, src);
		rtable_cell(&t, "labels");
		rtable_cell(&t, lb.buf ? lb.buf : "");
		rtable_cell(&t, "header");
		rtable_cell(&t, hdr);
		rtable_text(&t, out, 0);
		rtable_release(&t);
	}
	free(rel);
	free(kind);
	free(src);
	free(hdr);
	/* metrics */
	if (!rc)
		rc = store_eng_prepare(s->e, "SELECT key, value FROM metrics WHERE run = ? ORDER BY key", &st, err);
	if (!rc) {
		store_eng_bind_i64(st, 1, run);
		struct rtable t;
		rtable_init(&t, 2);
		rtable_head(&t, 0, "metric", RT_LEFT);
		rtable_head(&t, 1, "value", RT_RIGHT);
		if (json) {
			jsonw_key(&j, "metrics");
			jsonw_obj(&j);
		}
		while ((rc = store_eng_step(st, err)) == 1) {
			char *k = col_dup(st, 0);
			int64_t v = store_eng_col_i64(st, 1);
			if (json) {
				jsonw_key(&j, k);
				jsonw_int(&j, v);
			} else {
				rtable_cell(&t, k);
				rtable_cellf(&t, "%" PRId64, v);
			}
			free(k);
		}
		store_eng_free(st);
		if (json)
			jsonw_end(&j, '}');
		else if (rtable_rows(&t)) {
			sbuf_addch(out, '\n');
			rtable_text(&t, out, 0);
		}
		rtable_release(&t);
		rc = rc < 0 ? rc : GF_OK;
	}
	if (!rc)
		rc = store_eng_prepare(s->e, "SELECT weight, scale, stacks, total FROM profiles WHERE run = ? ORDER BY id",
				       &st, err);
	if (!rc) {
		store_eng_bind_i64(st, 1, run);
		struct rtable t;
		rtable_init(&t, 4);
		rtable_head(&t, 0, "profile", RT_LEFT);
		rtable_head(&t, 1, "stacks", RT_RIGHT);
		rtable_head(&t, 2, "total", RT_RIGHT);
		rtable_head(&t, 3, "scale", RT_RIGHT);
		if (json) {
			jsonw_key(&j, "profiles");
			jsonw_arr(&j);
		}
		while ((rc = store_eng_step(st, err)) == 1) {
			char *w = col_dup(st, 0);
			int64_t sc = store_eng_col_i64(st, 1), ns = store_eng_col_i64(st, 2), tot = store_eng_col_i64(st, 3);
			if (json) {
				jsonw_obj(&j);
				jsonw_key(&j, "weight");
				jsonw_str(&j, w);
				jsonw_key(&j, "stacks");
				jsonw_int(&j, ns);
				jsonw_key(&j, "total");
				jsonw_dec(&j, tot, (unsigned)sc);
				jsonw_end(&j, '}');
			} else {
				rtable_cell(&t, w);
				rtable_cellf(&t, "%" PRId64, ns);
				sbuf_reset(&tmp);
				struct jsonw j2;
				jsonw_init(&j2, &tmp);
				jsonw_dec(&j2, tot, (unsigned)sc);
				rtable_cell(&t, tmp.buf);
				rtable_cellf(&t, "%" PRId64, sc);
			}
			free(w);
		}
		store_eng_free(st);
		if (json)
			jsonw_end(&j, ']');
		else {
			sbuf_addch(out, '\n');
			rtable_text(&t, out, 0);
		}
		rtable_release(&t);
		rc = rc < 0 ? rc : GF_OK;
	}
	if (json) {
		jsonw_end(&j, '}');
		sbuf_addch(out, '\n');
	}
	sbuf_release(&lb);
	sbuf_release(&tmp);
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

struct trend_row {
	char *release;
	int64_t runs, sum, mean;
};

static void trend_svg(const char *metric, const struct trend_row *r, size_t n, struct sbuf *out)
{
	const int W = 720, H = 320, L = 90, R = 20, T = 40, B = 70;
	int64_t lo = 0, hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (!i || r[i].mean < lo)
			lo = r[i].mean;
		if (!i || r[i].mean > hi)
			hi = r[i].mean;
	}
	if (lo > 0)
		lo = 0;
	if (hi == lo)
		hi = lo + 1;
	sbuf_addf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		  "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"Verdana\" font-size=\"12\">\n",
		  W, H, W, H);
	sbuf_addstr(out, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n<text x=\"10\" y=\"22\" font-size=\"15\">");
	esc_xml(out, metric, strlen(metric));
	sbuf_addstr(out, " by release (mean over runs)</text>\n");
	sbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", L, H - B, W - R, H - B);
	sbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", L, T, L, H - B);
	sbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRId64 "</text>\n", L - 4, T + 4, hi);
	sbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%" PRId64 "</text>\n", L - 4, H - B + 4, lo);
	double span = (double)(hi - lo), dx = n > 1 ? (double)(W - L - R) / (double)(n - 1) : 0;
	sbuf_addstr(out, "<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"");
	for (size_t i = 0; i < n; i++)
		sbuf_addf(out, "%s%.1f,%.1f", i ? " " : "", L + dx * (double)i,
			  (double)(H - B) - (double)(r[i].mean - lo) / span * (H - B - T));
	sbuf_addstr(out, "\"/>\n");
	for (size_t i = 0; i < n; i++) {
		double x = L + dx * (double)i, y = (double)(H - B) - (double)(r[i].mean - lo) / span * (H - B - T);
		sbuf_addf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#c0392b\"><title>", x, y);
		esc_xml(out, r[i].release, strlen(r[i].release));
		sbuf_addf(out, ": %" PRId64 " (%" PRId64 " run%s)</title></circle>\n", r[i].mean, r[i].runs,
			  r[i].runs == 1 ? "" : "s");
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-35 %.1f %d)\">", x,
			  H - B + 16, x, H - B + 16);
		esc_xml(out, r[i].release, strlen(r[i].release));
		sbuf_addstr(out, "</text>\n");
	}
	sbuf_addstr(out, "</svg>\n");
}

static void trend_json(const char *metric, const struct trend_row *r, size_t n, struct sbuf *out)
{
	struct jsonw j;
	jsonw_init(&j, out);
	jsonw_obj(&j);
	jsonw_key(&j, "metric");
	jsonw_str(&j, metric);
	jsonw_key(&j, "releases");
	jsonw_arr(&j);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj(&j);
		jsonw_key(&j, "release");
		jsonw_str(&j, r[i].release);
		jsonw_key(&j, "runs");
		jsonw_int(&j, r[i].runs);
		jsonw_key(&j, "sum");
		jsonw_int(&j, r[i].sum);
		jsonw_key(&j, "mean");
		jsonw_int(&j, r[i].mean);
		jsonw_end(&j, '}');
	}
	jsonw_end(&j, ']');
	jsonw_end(&j, '}');
	sbuf_addch(out, '\n');
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
	struct trend_row *r = NULL;
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
		if (fmt == STORE_TREND_SVG) {
			trend_svg(metric, r, n, out);
		} else if (fmt == STORE_TREND_JSON) {
			trend_json(metric, r, n, out);
		} else {
			struct rtable t;
			rtable_init(&t, 4);
			rtable_head(&t, 0, "release", RT_LEFT);
			rtable_head(&t, 1, "runs", RT_RIGHT);
			rtable_head(&t, 2, metric, RT_RIGHT);
			rtable_head(&t, 3, "change", RT_RIGHT);
			for (size_t i = 0; i < n; i++) {
				rtable_cell(&t, r[i].release);
				rtable_cellf(&t, "%" PRId64, r[i].runs);
				rtable_cellf(&t, "%" PRId64, r[i].mean);
				if (i && r[i - 1].mean)
					rtable_cellf(&t, "%+.1f%%", 100.0 * (double)(r[i].mean - r[i - 1].mean) /
									    (double)r[i - 1].mean);
				else
					rtable_cell(&t, i ? "n/a" : "");
			}
			rtable_text(&t, out, 0);
			rtable_release(&t);
		}
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
