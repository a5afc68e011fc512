/* report_html.c — the report page's JSON and frame (see report_html.h). */
#include "trace/write/report_html.h"

#include "base/escape.h"
#include "base/num.h"
#include "stacks/render/flamejson.h"
#include "stacks/render/page_html.h"
#include "trace/write/report_json.h"

#include <stdlib.h>
#include <string.h>

static int64_t calls_of(void *ctx, const char *name, size_t n)
{
	return flames_calls(ctx, name, n);
}

static void str(struct sbuf *b, const char *s)
{
	esc_json_str(b, s, strlen(s));
}

static void us(struct sbuf *b, gf_ns ns)
{
	num_fmt(b, ns, 3);
}

static void families(struct sbuf *b, const struct flames *f)
{
	sbuf_addstr(b, "[");
	for (size_t i = 0; i < f->nfam; i++) {
		const struct flames_family *fm = &f->fam[i];
		sbuf_addstr(b, i ? ",{\"name\":" : "{\"name\":");
		esc_json_str(b, pool_str(f->names, fm->name), pool_len(f->names, fm->name));
		sbuf_addf(b, ",\"count\":%llu,\"kernels\":%llu,\"us\":", (unsigned long long)fm->count,
			  (unsigned long long)fm->kernels);
		us(b, fm->ns);
		sbuf_addstr(b, ",\"top\":[");
		for (unsigned k = 0; k < fm->ntop; k++) {
			sbuf_addstr(b, k ? ",{\"name\":" : "{\"name\":");
			esc_json_str(b, pool_str(f->names, fm->top[k].name), pool_len(f->names, fm->top[k].name));
			sbuf_addstr(b, ",\"us\":");
			us(b, fm->top[k].ns);
			sbuf_addf(b, ",\"count\":%llu", (unsigned long long)fm->top[k].count);
			if (fm->top[k].cfg.count) { /* its launch configuration: the tooltip shows it */
				struct sbuf c = SBUF_INIT;
				trace_kcfg_text(&fm->top[k].cfg, &c);
				sbuf_addstr(b, ",\"cfg\":");
				esc_json_str(b, c.buf, c.len);
				sbuf_release(&c);
			}
			sbuf_addch(b, '}');
		}
		sbuf_addstr(b, "]}");
	}
	sbuf_addstr(b, "]");
}

/* The gap causes' look on the page: the colour and the hatching (an SVG
 * path on an 8x8 tile) of each cause, so that the bars read without colour. */
static const struct {
	const char *color, *pattern;
} look[] = {
	[GAP_EDGE] = { "#9e9e9e", "M0,4 L8,4" },
	[GAP_SYNC] = { "#c62828", "M0,0 L8,8 M-2,6 L2,10 M6,-2 L10,2" },
	[GAP_HOST] = { "#f9a825", "M0,8 L8,0 M-2,2 L2,-2 M6,10 L10,6" },
	[GAP_UNTRACED] = { "#6d4c41", "M4,0 L4,8" },
	[GAP_QUEUED] = { "#1565c0", "M0,0 L8,8 M8,0 L0,8" },
	[GAP_LAUNCH] = { "#8e24aa", "M2,2 h1 v1 h-1 z M6,6 h1 v1 h-1 z" },
};
_Static_assert(GF_ARRAY_LEN(look) == GAP_NCAUSES, "a look for every gap cause");

/* The vocabulary the page's script loops over (it keeps no list of its
 * own): the graphs' weights with their titles, the gap causes. */
void report_html_vocab(struct sbuf *b)
{
	sbuf_addstr(b, "\"vocab\":{\"weights\":[");
	for (int w = 0; w < FLAMES_N; w++) {
		sbuf_addstr(b, w ? ",{\"key\":" : "{\"key\":");
		str(b, weight_defs[w].name);
		sbuf_addstr(b, ",\"title\":");
		str(b, weight_defs[w].title);
		if (w == FW_GPU) /* its leaves are kernel families: their top kernels (families) */
			sbuf_addstr(b, ",\"kernels\":true");
		sbuf_addstr(b, "}");
	}
	sbuf_addstr(b, "],\"causes\":[");
	for (int k = 0; k < GAP_NCAUSES; k++) {
		const struct cause_def *c = &causes_gap[k];
		sbuf_addstr(b, k ? ",{\"key\":" : "{\"key\":");
		str(b, c->key);
		sbuf_addstr(b, ",\"json\":");
		str(b, c->json);
		sbuf_addstr(b, ",\"label\":");
		str(b, c->label);
		sbuf_addstr(b, ",\"rule\":");
		str(b, c->rule);
		sbuf_addstr(b, ",\"color\":");
		str(b, look[k].color);
		sbuf_addstr(b, ",\"pattern\":");
		str(b, look[k].pattern);
		if (c->keys) { /* the report JSON's array of its keys and their field */
			sbuf_addstr(b, ",\"keys\":");
			str(b, c->keys);
			sbuf_addstr(b, ",\"key_field\":");
			str(b, c->key_field);
		}
		sbuf_addstr(b, "}");
	}
	sbuf_addstr(b, "]}");
}

void report_html_rank_json(struct sbuf *b, const struct report_html_rank *k)
{
	const struct flames *f = k->f;
	struct flamejson_stats st[FLAMES_N];
	memset(st, 0, sizeof st);
	sbuf_addstr(b, "{\"file\":");
	str(b, k->file);
	sbuf_addf(b, ",\"steps\":%u,\"ts_gen\":", f->steps);
	str(b, kts_gen_name(f->ts_gen));
	sbuf_addf(b, ",\"legacy\":%s,\"graphs\":{", f->legacy ? "true" : "false");
	for (int w = 0; w < FLAMES_N; w++) {
		sbuf_addf(b, "%s\"%s\":", w ? "," : "", weight_defs[w].name);
		if (!f->have[w]) {
			sbuf_addstr(b, "null");
			continue;
		}
		struct flamejson_opts o = { 0 };
		o.keep_min = flamejson_keep_min(f->g[w].total[0]);
		o.calls = calls_of;
		o.ctx = (void *)f;
		flamejson_write(&f->g[w], &o, b, &st[w]);
	}
	sbuf_addstr(b, "},\"why\":{");
	bool first = true;
	for (int w = 0; w < FLAMES_N; w++) {
		if (f->have[w])
			continue;
		sbuf_addf(b, "%s\"%s\":", first ? "" : ",", weight_defs[w].name);
		str(b, f->why[w] ? f->why[w] : "no weight");
		first = false;
	}
	sbuf_addstr(b, "},\"families\":");
	families(b, f);
	sbuf_addstr(b, "}");
}

void report_html_write(const struct report_html_rank *k, struct sbuf *out)
{
	struct report_in in = { k->r, k->file, 0 };
	struct sbuf rep = SBUF_INIT, json = SBUF_INIT, title = SBUF_INIT;
	report_json_write(&in, &rep);
	sbuf_addf(&title, "gpuflame report: %s", k->file);
	sbuf_addstr(&json, "{\"schema\":\"gpuflame.page/1\",\"kind\":\"report\",\"title\":");
	esc_json_str(&json, title.buf, title.len);
	sbuf_addstr(&json, ",\"report\":");
	sbuf_add(&json, rep.buf, rep.len);
	sbuf_addstr(&json, ",\n\"ranks\":[");
	report_html_rank_json(&json, k);
	sbuf_addstr(&json, "],\n");
	report_html_vocab(&json);
	sbuf_addstr(&json, "}");
	page_html_write(out, title.buf, &json);
	sbuf_release(&rep);
	sbuf_release(&json);
	sbuf_release(&title);
}
