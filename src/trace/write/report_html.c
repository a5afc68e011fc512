/* report_html.c — the report page's JSON and frame (see report_html.h). */
#include "trace/write/report_html.h"

#include "base/escape.h"
#include "base/num.h"
#include "stacks/render/flamejson.h"
#include "stacks/render/page_html.h"
#include "trace/write/prose.h"
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

/* The families the GPU graph draws (drawn: its written names), others left out. */
static void families(struct sbuf *b, const struct flames *f, const struct pool *drawn)
{
	sbuf_addstr(b, "[");
	bool first = true;
	for (size_t i = 0; i < f->nfam; i++) {
		const struct flames_family *fm = &f->fam[i];
		if (pool_find(drawn, pool_str(f->names, fm->name), pool_len(f->names, fm->name)) == UINT32_MAX)
			continue;
		sbuf_addstr(b, first ? "{\"name\":" : ",{\"name\":");
		first = false;
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

/* ---- the step timeline ---- */

/* One field of a segment, as the JSON writes it (times relative to lo). */
static int64_t seg_field(const struct tl_seg *s, char f, gf_ns lo)
{
	switch (f) {
	case 's': return s->lo - lo;
	case 'd': return s->hi - s->lo;
	case 'k': return s->count;
	case 'b': return s->busy;
	case 'c': return s->cls | (s->mixed ? 256 : 0); /* cls is 8 bits: any cause */
	case 'a': return s->aux;
	case 'n': return s->name == UINT32_MAX ? -1 : (int64_t)s->name;
	default: return s->name2 == UINT32_MAX ? -1 : (int64_t)s->name2;
	}
}

/* "key":[...] of field f ('2' is name2, written "n2") of every segment. */
static void ints(struct sbuf *b, char f, const struct tl_lane *l, gf_ns lo)
{
	sbuf_addf(b, f == '2' ? ",\"n2\":[" : ",\"%c\":[", f);
	for (size_t i = 0; i < l->n; i++)
		sbuf_addf(b, i ? ",%lld" : "%lld", (long long)seg_field(&l->seg[i], f, lo));
	sbuf_addch(b, ']');
}

/* The idle lane's explanations ("x": an index into texts, interned) and the
 * time of each cause of a merged segment ("m": 0 for a single piece). */
static void idle_words(struct sbuf *b, const struct tl_lane *l, const struct actx *c, const struct gaps_result *gp,
		       struct pool *texts)
{
	struct sbuf w = SBUF_INIT;
	sbuf_addstr(b, ",\"x\":[");
	for (size_t i = 0; i < l->n; i++) {
		sbuf_reset(&w);
		prose_piece(&w, c, gp, &gp->pieces[l->seg[i].ref]);
		sbuf_addf(b, i ? ",%u" : "%u", pool_intern(texts, w.buf, w.len));
	}
	/* the class of host work of a single piece (causes_class, -1 none or merged) */
	sbuf_addstr(b, "],\"h\":[");
	for (size_t i = 0; i < l->n; i++) {
		int h = l->seg[i].count == 1 ? gp->pieces[l->seg[i].ref].hclass : -1;
		sbuf_addf(b, i ? ",%d" : "%d", h >= 0 && h < HW_NCLASSES ? h : -1);
	}
	sbuf_addstr(b, "],\"m\":[");
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			sbuf_addch(b, ',');
		if (l->seg[i].count == 1) {
			sbuf_addch(b, '0');
			continue;
		}
		for (int k = 0; k < GAP_NCAUSES; k++)
			sbuf_addf(b, "%s%lld", k ? "," : "[", (long long)l->parts[i][k]);
		sbuf_addch(b, ']');
	}
	sbuf_addch(b, ']');
	sbuf_release(&w);
}

static void strings(struct sbuf *b, const struct pool *p)
{
	sbuf_addch(b, '[');
	for (uint32_t i = 0; i < pool_count(p); i++) {
		if (i)
			sbuf_addch(b, ',');
		esc_json_str(b, pool_str(p, i), pool_len(p, i));
	}
	sbuf_addch(b, ']');
}

static void thread_json(struct sbuf *b, const struct trace *t, uint32_t th)
{
	if (th == TRACE_NONE) {
		sbuf_addstr(b, "null");
		return;
	}
	const struct trace_thread *x = &t->th[th];
	sbuf_addstr(b, "{\"pid\":");
	if (x->pid == KEV_NONE)
		sbuf_addstr(b, "null");
	else
		sbuf_addf(b, "%lld", (long long)x->pid);
	sbuf_addstr(b, ",\"tid\":");
	if (x->tid == KEV_NONE)
		sbuf_addstr(b, "null");
	else
		sbuf_addf(b, "%lld", (long long)x->tid);
	sbuf_addstr(b, ",\"name\":");
	if (x->name == TRACE_NONE)
		sbuf_addstr(b, "null");
	else
		esc_json_str(b, pool_str(t->names, x->name), pool_len(t->names, x->name));
	sbuf_addch(b, '}');
}

static void timeline_json(struct sbuf *b, const struct timeline *tl, const struct report_html_rank *k)
{
	static const char *const kinds[] = { "idle", "stream", "comm", "streams", "frames", "calls" };
	const struct step_row *row = &k->r->st.rows[tl->row];
	struct pool *texts = pool_new();
	sbuf_addstr(b, "{\"step\":");
	if (k->r->st.whole_trace)
		sbuf_addstr(b, "null");
	else
		sbuf_addf(b, "%lld", (long long)row->number);
	sbuf_addf(b, ",\"median\":%s", tl->median ? "true" : "false");
	sbuf_addf(b, ",\"row\":%zu,\"wall\":%lld,\"px\":%lld,\"width_px\":%u,\"device\":%d,\"thread\":", tl->row,
		  (long long)(tl->hi - tl->lo), (long long)tl->px, tl->width_px, k->c->device);
	thread_json(b, k->c->t, tl->thread);
	sbuf_addstr(b, ",\"lanes\":[");
	for (size_t i = 0; i < tl->nlane; i++) {
		const struct tl_lane *l = &tl->lane[i];
		sbuf_addf(b, "%s{\"kind\":\"%s\",\"stream\":", i ? ",\n" : "", kinds[l->kind]);
		if (l->kind == TL_STREAM || l->kind == TL_COMM)
			sbuf_addf(b, "%d", (int)l->stream);
		else
			sbuf_addstr(b, "null");
		sbuf_addf(b, ",\"items\":%llu,\"merged\":%llu,\"items_ns\":%lld,\"merged_ns\":%lld",
			  (unsigned long long)l->items, (unsigned long long)l->merged, (long long)l->items_ns,
			  (long long)l->merged_ns);
		const char *fields = l->kind == TL_IDLE ? "sdkbc" : l->kind == TL_FRAMES ? "sdkbcn2" : "sdkbcn2a";
		for (const char *f = fields; *f; f++)
			ints(b, *f, l, tl->lo);
		if (l->kind == TL_IDLE)
			idle_words(b, l, k->c, &k->r->gp, texts);
		sbuf_addch(b, '}');
	}
	sbuf_addstr(b, "],\"names\":");
	strings(b, tl->names);
	sbuf_addstr(b, ",\"texts\":");
	strings(b, texts);
	sbuf_addch(b, '}');
	pool_free(texts);
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

/* ,"k":"v" (or {"k":"v" opening an object when open is set) */
static void kv(struct sbuf *b, bool open, const char *k, const char *v)
{
	sbuf_addf(b, "%s\"%s\":", open ? "{" : ",", k);
	str(b, v);
}

/* The vocabulary the page's script loops over (it keeps no list of its
 * own): the graphs' weights with their titles, the gap causes, the classes
 * of host work (an idle lane's "h": a class index per block, -1 none). */
void report_html_vocab(struct sbuf *b)
{
	sbuf_addstr(b, "\"vocab\":{\"weights\":[");
	for (int w = 0; w < FLAMES_N; w++) {
		sbuf_addstr(b, w ? "," : "");
		kv(b, true, "key", weight_defs[w].name);
		kv(b, false, "title", weight_defs[w].title);
		/* its leaves are kernel families: their top kernels (families) */
		sbuf_addstr(b, w == FW_GPU ? ",\"kernels\":true}" : "}");
	}
	sbuf_addstr(b, "],\"causes\":[");
	for (int k = 0; k < GAP_NCAUSES; k++) {
		const struct cause_def *c = &causes_gap[k];
		sbuf_addstr(b, k ? "," : "");
		kv(b, true, "key", c->key);
		kv(b, false, "json", c->json);
		kv(b, false, "label", c->label);
		kv(b, false, "rule", c->rule);
		kv(b, false, "color", look[k].color);
		kv(b, false, "pattern", look[k].pattern);
		if (c->keys) { /* the report JSON's array of its keys and their field */
			kv(b, false, "keys", c->keys);
			kv(b, false, "key_field", c->key_field);
		}
		sbuf_addch(b, '}');
	}
	sbuf_addstr(b, "],\"classes\":[");
	for (int k = 0; k < HW_NCLASSES; k++) {
		sbuf_addstr(b, k ? "," : "");
		kv(b, true, "key", causes_class[k].key);
		kv(b, false, "label", causes_class[k].label);
		sbuf_addch(b, '}');
	}
	sbuf_addstr(b, "]}");
}

void report_html_rank_json(struct sbuf *b, const struct report_html_rank *k)
{
	const struct flames *f = k->f;
	struct flamejson_stats st[FLAMES_N];
	memset(st, 0, sizeof st);
	struct pool *drawn = pool_new();
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
		o.drawn = w == FLAMES_GPU ? drawn : NULL;
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
	families(b, f, drawn);
	if (k->c) { /* a summary's page (no analysed trace kept) has no timeline */
		sbuf_addstr(b, ",\n\"timeline\":[");
		for (size_t i = 0; i < k->ntl; i++) {
			if (i)
				sbuf_addstr(b, ",\n");
			timeline_json(b, &k->tl[i], k);
		}
		sbuf_addch(b, ']');
	}
	sbuf_addch(b, '}');
	pool_free(drawn);
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
