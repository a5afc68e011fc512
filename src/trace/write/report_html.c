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

static void rank(struct sbuf *b, const struct report_html_rank *k)
{
	static const char *const key[FLAMES_N] = { "gpu", "cpu", "wall", "idle" };
	const struct flames *f = k->f;
	struct flamejson_stats st[FLAMES_N];
	memset(st, 0, sizeof st);
	sbuf_addstr(b, "{\"file\":");
	str(b, k->file);
	sbuf_addf(b, ",\"steps\":%u,\"ts_gen\":", f->steps);
	str(b, kts_gen_name(f->ts_gen));
	sbuf_addf(b, ",\"legacy\":%s,\"graphs\":{", f->legacy ? "true" : "false");
	for (int w = 0; w < FLAMES_N; w++) {
		sbuf_addf(b, "%s\"%s\":", w ? "," : "", key[w]);
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
		sbuf_addf(b, "%s\"%s\":", first ? "" : ",", key[w]);
		str(b, f->why[w] ? f->why[w] : "no weight");
		first = false;
	}
	sbuf_addstr(b, "},\"families\":");
	families(b, f);
	sbuf_addstr(b, "}");
}

void report_html_write(const struct report_html_rank *k, size_t n, const struct strag_result *s,
		       struct sbuf *out)
{
	struct report_in *in = gf_xcalloc(n, sizeof *in);
	for (size_t i = 0; i < n; i++) {
		in[i].r = k[i].r;
		in[i].file = k[i].file;
	}
	struct sbuf rep = SBUF_INIT, json = SBUF_INIT, title = SBUF_INIT;
	report_json_write(in, n, s, &rep);
	sbuf_addf(&title, "gpuflame report: %s%s", k[0].file, n > 1 ? " and the other ranks" : "");
	sbuf_addstr(&json, "{\"schema\":\"gpuflame.page/1\",\"kind\":\"report\",\"title\":");
	esc_json_str(&json, title.buf, title.len);
	sbuf_addstr(&json, ",\"report\":");
	sbuf_add(&json, rep.buf, rep.len);
	sbuf_addstr(&json, ",\n\"ranks\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			sbuf_addstr(&json, ",\n");
		rank(&json, &k[i]);
	}
	sbuf_addstr(&json, "]}");
	page_html_write(out, title.buf, &json);
	sbuf_release(&rep);
	sbuf_release(&json);
	sbuf_release(&title);
	free(in);
}
