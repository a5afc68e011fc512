/*
 * store_out.c — the store's list, show and trend as text, JSON and SVG
 * (see store_out.h). Names (releases, labels, sources) are the user's:
 * text goes through rtable (escaped for the terminal), JSON through jsonw,
 * SVG through esc_xml.
 */
#include "store/store_out.h"

#include "base/escape.h"
#include "base/jsonw.h"
#include "base/num.h"
#include "base/rtable.h"
#include "store/store.h"
#include "store/store_collect.h"

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

/* A metric's value for a table: ns metrics in us with three decimals. */
static void metric_text(struct sbuf *b, const char *key, int64_t v)
{
	if (store_collect_ns(key)) {
		num_fmt_fixed(b, v, 3, 3, false);
		sbuf_addstr(b, " us");
	} else {
		sbuf_addf(b, "%" PRId64, v);
	}
}

static void labels_json(struct jsonw *j, const struct store_out_run *r)
{
	jsonw_obj(j);
	for (size_t i = 0; i < r->nlabels; i++) {
		jsonw_key(j, r->labels[i].key);
		jsonw_str(j, r->labels[i].val);
	}
	jsonw_end(j, '}');
}

/* "k=v k=v" */
static void labels_text(struct sbuf *b, const struct store_out_run *r)
{
	for (size_t i = 0; i < r->nlabels; i++)
		sbuf_addf(b, "%s%s=%s", i ? " " : "", r->labels[i].key, r->labels[i].val);
}

void store_out_list(const struct store_out_run *r, size_t n, bool json, struct sbuf *out)
{
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
	for (size_t i = 0; i < n; i++) {
		char tb[32];
		fmt_time(r[i].added, tb, sizeof tb);
		if (json) {
			jsonw_obj(&j);
			jsonw_key(&j, "run");
			jsonw_int(&j, r[i].id);
			jsonw_key(&j, "release");
			jsonw_str(&j, r[i].release);
			jsonw_key(&j, "added");
			jsonw_str(&j, tb);
			jsonw_key(&j, "kind");
			jsonw_str(&j, r[i].kind);
			jsonw_key(&j, "steps");
			jsonw_int(&j, r[i].steps);
			jsonw_key(&j, "source");
			jsonw_str(&j, r[i].source);
			jsonw_key(&j, "labels");
			labels_json(&j, &r[i]);
			jsonw_end(&j, '}');
		} else {
			sbuf_reset(&lb);
			labels_text(&lb, &r[i]);
			rtable_cellf(&t, "%" PRId64, r[i].id);
			rtable_cell(&t, r[i].release);
			rtable_cell(&t, tb);
			rtable_cell(&t, r[i].kind);
			rtable_cellf(&t, "%" PRId64, r[i].steps);
			rtable_cell(&t, r[i].source);
			rtable_cell(&t, lb.buf ? lb.buf : "");
		}
	}
	if (json) {
		jsonw_end(&j, ']');
		sbuf_addch(out, '\n');
	} else {
		rtable_text(&t, out, 0);
	}
	rtable_release(&t);
	sbuf_release(&lb);
}

static void show_json(const struct store_out_show *s, struct sbuf *out)
{
	const struct store_out_run *r = &s->run;
	char tb[32];
	fmt_time(r->added, tb, sizeof tb);
	struct jsonw j;
	jsonw_init(&j, out);
	jsonw_obj(&j);
	jsonw_key(&j, "run");
	jsonw_int(&j, r->id);
	jsonw_key(&j, "release");
	jsonw_str(&j, r->release);
	jsonw_key(&j, "added");
	jsonw_str(&j, tb);
	jsonw_key(&j, "kind");
	jsonw_str(&j, r->kind);
	jsonw_key(&j, "steps");
	jsonw_int(&j, r->steps);
	jsonw_key(&j, "source");
	jsonw_str(&j, r->source);
	jsonw_key(&j, "header");
	jsonw_str(&j, s->header);
	jsonw_key(&j, "labels");
	labels_json(&j, r);
	jsonw_key(&j, "metrics");
	jsonw_obj(&j);
	for (size_t i = 0; i < s->nmetrics; i++) {
		jsonw_key(&j, s->metrics[i].key);
		jsonw_int(&j, s->metrics[i].value);
	}
	jsonw_end(&j, '}');
	jsonw_key(&j, "profiles");
	jsonw_arr(&j);
	for (size_t i = 0; i < s->nprofiles; i++) {
		const struct store_out_profile *p = &s->profiles[i];
		jsonw_obj(&j);
		jsonw_key(&j, "weight");
		jsonw_str(&j, p->weight);
		jsonw_key(&j, "stacks");
		jsonw_int(&j, p->stacks);
		jsonw_key(&j, "total");
		jsonw_dec(&j, p->total, (unsigned)p->scale);
		jsonw_end(&j, '}');
	}
	jsonw_end(&j, ']');
	jsonw_end(&j, '}');
	sbuf_addch(out, '\n');
}

void store_out_show(const struct store_out_show *s, bool json, struct sbuf *out)
{
	if (json) {
		show_json(s, out);
		return;
	}
	const struct store_out_run *r = &s->run;
	char tb[32];
	fmt_time(r->added, tb, sizeof tb);
	struct sbuf b = SBUF_INIT;
	labels_text(&b, r);
	struct rtable t;
	rtable_init(&t, 2);
	rtable_head(&t, 0, "field", RT_LEFT);
	rtable_head(&t, 1, "value", RT_LEFT);
	t.maxw[1] = 400;
	rtable_cell(&t, "run");
	rtable_cellf(&t, "%" PRId64, r->id);
	rtable_cell(&t, "release");
	rtable_cell(&t, r->release);
	rtable_cell(&t, "added");
	rtable_cell(&t, tb);
	rtable_cell(&t, "kind");
	rtable_cell(&t, r->kind);
	rtable_cell(&t, "steps");
	rtable_cellf(&t, "%" PRId64, r->steps);
	rtable_cell(&t, "source");
	rtable_cell(&t, r->source);
	rtable_cell(&t, "labels");
	rtable_cell(&t, b.buf ? b.buf : "");
	rtable_cell(&t, "header");
	rtable_cell(&t, s->header);
	rtable_text(&t, out, 0);
	rtable_release(&t);
	if (s->nmetrics) {
		rtable_init(&t, 2);
		rtable_head(&t, 0, "metric", RT_LEFT);
		rtable_head(&t, 1, "value", RT_RIGHT);
		for (size_t i = 0; i < s->nmetrics; i++) {
			rtable_cell(&t, s->metrics[i].key);
			sbuf_reset(&b);
			metric_text(&b, s->metrics[i].key, s->metrics[i].value);
			rtable_cell(&t, b.buf);
		}
		sbuf_addch(out, '\n');
		rtable_text(&t, out, 0);
		rtable_release(&t);
	}
	rtable_init(&t, 4);
	rtable_head(&t, 0, "profile", RT_LEFT);
	rtable_head(&t, 1, "stacks", RT_RIGHT);
	rtable_head(&t, 2, "total", RT_RIGHT);
	rtable_head(&t, 3, "scale", RT_RIGHT);
	for (size_t i = 0; i < s->nprofiles; i++) {
		const struct store_out_profile *p = &s->profiles[i];
		rtable_cell(&t, p->weight);
		rtable_cellf(&t, "%" PRId64, p->stacks);
		sbuf_reset(&b);
		struct jsonw j2;
		jsonw_init(&j2, &b);
		jsonw_dec(&j2, p->total, (unsigned)p->scale);
		rtable_cell(&t, b.buf);
		rtable_cellf(&t, "%" PRId64, p->scale);
	}
	sbuf_addch(out, '\n');
	rtable_text(&t, out, 0);
	rtable_release(&t);
	sbuf_release(&b);
}

/* A value of the trend in the plot's and the table's unit. */
static void trend_value(struct sbuf *b, bool ns, int64_t v)
{
	if (ns)
		num_fmt_fixed(b, v, 3, 3, false);
	else
		sbuf_addf(b, "%" PRId64, v);
}

static void trend_svg(const char *metric, const struct store_out_trend *r, size_t n, struct sbuf *out)
{
	const int W = 720, H = 320, L = 90, R = 20, T = 40, B = 70;
	bool ns = store_collect_ns(metric);
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
	sbuf_addstr(out, ns ? " (us) by release (mean over runs)</text>\n" : " by release (mean over runs)</text>\n");
	sbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", L, H - B, W - R, H - B);
	sbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", L, T, L, H - B);
	sbuf_addf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", L - 4, T + 4);
	trend_value(out, ns, hi);
	sbuf_addf(out, "</text>\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", L - 4, H - B + 4);
	trend_value(out, ns, lo);
	sbuf_addstr(out, "</text>\n");
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
		sbuf_addstr(out, ": ");
		trend_value(out, ns, r[i].mean);
		sbuf_addf(out, "%s (%" PRId64 " run%s)</title></circle>\n", ns ? " us" : "", r[i].runs,
			  r[i].runs == 1 ? "" : "s");
		sbuf_addf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-35 %.1f %d)\">", x,
			  H - B + 16, x, H - B + 16);
		esc_xml(out, r[i].release, strlen(r[i].release));
		sbuf_addstr(out, "</text>\n");
	}
	sbuf_addstr(out, "</svg>\n");
}

static void trend_json(const char *metric, const struct store_out_trend *r, size_t n, struct sbuf *out)
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

static void trend_text(const char *metric, const struct store_out_trend *r, size_t n, struct sbuf *out)
{
	bool ns = store_collect_ns(metric);
	struct sbuf b = SBUF_INIT;
	sbuf_addf(&b, "%s%s", metric, ns ? " (us)" : "");
	struct rtable t;
	rtable_init(&t, 4);
	rtable_head(&t, 0, "release", RT_LEFT);
	rtable_head(&t, 1, "runs", RT_RIGHT);
	rtable_head(&t, 2, b.buf, RT_RIGHT);
	rtable_head(&t, 3, "change", RT_RIGHT);
	for (size_t i = 0; i < n; i++) {
		rtable_cell(&t, r[i].release);
		rtable_cellf(&t, "%" PRId64, r[i].runs);
		sbuf_reset(&b);
		trend_value(&b, ns, r[i].mean);
		rtable_cell(&t, b.buf);
		if (i && r[i - 1].mean)
			rtable_cellf(&t, "%+.1f%%", 100.0 * (double)(r[i].mean - r[i - 1].mean) / (double)r[i - 1].mean);
		else
			rtable_cell(&t, i ? "n/a" : "");
	}
	rtable_text(&t, out, 0);
	rtable_release(&t);
	sbuf_release(&b);
}

void store_out_trend(const char *metric, const struct store_out_trend *r, size_t n, int fmt, struct sbuf *out)
{
	if (fmt == STORE_TREND_SVG)
		trend_svg(metric, r, n, out);
	else if (fmt == STORE_TREND_JSON)
		trend_json(metric, r, n, out);
	else
		trend_text(metric, r, n, out);
}

void store_out_run_release(struct store_out_run *r)
{
	free(r->release);
	free(r->kind);
	free(r->source);
	for (size_t i = 0; i < r->nlabels; i++) {
		free(r->labels[i].key);
		free(r->labels[i].val);
	}
	free(r->labels);
	memset(r, 0, sizeof *r);
}

void store_out_show_release(struct store_out_show *s)
{
	store_out_run_release(&s->run);
	free(s->header);
	for (size_t i = 0; i < s->nmetrics; i++)
		free(s->metrics[i].key);
	free(s->metrics);
	for (size_t i = 0; i < s->nprofiles; i++)
		free(s->profiles[i].weight);
	free(s->profiles);
	memset(s, 0, sizeof *s);
}
