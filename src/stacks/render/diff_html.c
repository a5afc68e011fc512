/* diff_html.c — the diff page's JSON (see diff_html.h). */
#include "stacks/render/diff_html.h"

#include "base/escape.h"
#include "stacks/render/diff_out.h"
#include "stacks/render/flamejson.h"
#include "stacks/render/page_html.h"
#include "stacks/weight.h"

#include <string.h>

struct ctx {
	const struct diff_result *r;
	int64_t maxd;
};

static void fill(void *c, uint32_t node, char rgb[24])
{
	const struct ctx *x = c;
	diff_out_fill(x->r, false, x->maxd, node, rgb);
}

static int cls(void *c, uint32_t node)
{
	const struct ctx *x = c;
	return x->r->cls_total ? x->r->cls_total[node] : 0;
}

static void changes(struct sbuf *b, const struct diff_result *r)
{
	struct diff_row rows[DIFF_HTML_TOP];
	struct sbuf path = SBUF_INIT;
	bool first = true;
	for (int self = 0; self < 2; self++) {
		size_t n = diff_top(r, self, DIFF_HTML_TOP, rows);
		for (size_t i = 0; i < n; i++) {
			sbuf_reset(&path);
			ftree_path(&r->t, rows[i].node, &path);
			sbuf_addstr(b, first ? "{\"frame\":" : ",\n{\"frame\":");
			esc_json_str(b, path.buf, path.len);
			uint8_t c = self ? r->cls_self[rows[i].node] : r->cls_total[rows[i].node];
			double p = self ? r->p_self[rows[i].node] : r->p_total[rows[i].node];
			sbuf_addf(b, ",\"self\":%s,\"before\":%lld,\"after\":%lld,\"cls\":%u", self ? "true" : "false",
				  (long long)rows[i].before, (long long)rows[i].after, c);
			if (r->steps_test && p < 1)
				sbuf_addf(b, ",\"p\":%.3g", p);
			sbuf_addch(b, '}');
			first = false;
		}
	}
	sbuf_release(&path);
}

void diff_html_write(struct diff_result *r, const struct diff_html_opts *o, struct sbuf *out)
{
	ftree_sort(&r->t);
	struct ctx c = { r, 0 };
	int64_t maxsd;
	diff_out_maxima(r, &c.maxd, &maxsd);
	struct sbuf json = SBUF_INIT, title = SBUF_INIT;
	if (o->title)
		sbuf_addstr(&title, o->title);
	else
		sbuf_addf(&title, "gpuflame diff: %s -> %s", o->before, o->after);
	sbuf_addstr(&json, "{\"schema\":\"gpuflame.page/1\",\"kind\":\"diff\",\"title\":");
	esc_json_str(&json, title.buf, title.len);
	sbuf_addstr(&json, ",\"before\":");
	esc_json_str(&json, o->before, strlen(o->before));
	sbuf_addstr(&json, ",\"after\":");
	esc_json_str(&json, o->after, strlen(o->after));
	const char *sn = r->scale == DIFF_SCALE_STEPS ? "per step" :
			 r->scale == DIFF_SCALE_TOTAL ? "before scaled to after's total" : "not normalised";
	/* the weight compared (AFTER's header; diff refuses unlike weights without --force) */
	const char *wt = ftree_meta_get(&r->t.meta, "weight"), *unit = ftree_meta_get(&r->t.meta, "unit");
	sbuf_addstr(&json, ",\"weight\":");
	if (wt)
		esc_json_str(&json, wt, strlen(wt));
	else
		sbuf_addstr(&json, "null");
	int wk = wt ? weight_find(wt) : -1;
	if (wk >= 0 && weight_defs[wk].title) { /* what svg titles a graph of that weight */
		sbuf_addstr(&json, ",\"weight_title\":");
		esc_json_str(&json, weight_defs[wk].title, strlen(weight_defs[wk].title));
	}
	sbuf_addstr(&json, ",\"unit\":");
	if (unit)
		esc_json_str(&json, unit, strlen(unit));
	else
		sbuf_addstr(&json, r->sampled ? "\"samples\"" : "null");
	sbuf_addf(&json, ",\"steps\":[%lld,%lld]", (long long)r->steps[0], (long long)r->steps[1]);
	sbuf_addf(&json, ",\"per_step\":%s,\"scale_note\":\"%s", r->scale == DIFF_SCALE_STEPS ? "true" : "false", sn);
	if (r->steps[0] && r->steps[1])
		sbuf_addf(&json, " (%lld and %lld steps)", (long long)r->steps[0], (long long)r->steps[1]);
	sbuf_addstr(&json, "\",\n\"graph\":");
	struct flamejson_opts fo = { 0 };
	fo.col = 1;
	fo.keep_min = flamejson_keep_min(r->t.n ? r->t.total2[0] : 0);
	fo.fill = fill;
	fo.cls = cls;
	fo.ctx = &c;
	struct flamejson_stats st;
	flamejson_write(&r->t, &fo, &json, &st);
	sbuf_addf(&json, ",\n\"noise\":{\"sampled\":%s,\"alpha\":%g,\"min_share\":%g,\"grew\":%u,\"shrank\":%u,"
		  "\"noise\":%u,\"small\":%u,\"only_before\":%u,\"only_after\":%u,\"steps_test\":%s,\"too_few\":%s,"
		  "\"steps_before\":%u,\"steps_after\":%u,\"summary\":",
		  r->sampled ? "true" : "false", o->alpha, o->min_share, r->n_grew, r->n_shrank, r->n_noise, r->n_small,
		  r->only_before, r->only_after, r->steps_test ? "true" : "false", r->too_few ? "true" : "false",
		  r->test_steps[0], r->test_steps[1]);
	struct sbuf ns = SBUF_INIT;
	diff_out_noise(&ns, r);
	esc_json_str(&json, ns.buf ? ns.buf : "", ns.len);
	sbuf_release(&ns);
	sbuf_addstr(&json, "},\n\"changes\":[");
	changes(&json, r);
	sbuf_addstr(&json, "]}");
	page_html_write(out, title.buf, &json);
	sbuf_release(&json);
	sbuf_release(&title);
}
