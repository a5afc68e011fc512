#include "stacks/export/export_speedscope.h"

#include "base/escape.h"
#include "base/pool.h"

#include <stdlib.h>
#include <string.h>

#define FLUSH_AT (64u << 10)

struct sctx {
	struct sbuf b, w;   /* samples, weights */
	FILE *fp;
	struct pool *frames;
	uint32_t *fid;      /* per node of the current tree: frame index */
	bool first;
};

static void flush(struct sbuf *b, FILE *fp, bool force)
{
	if (b->len && (force || b->len >= FLUSH_AT)) {
		fwrite(b->buf, 1, b->len, fp);
		sbuf_reset(b);
	}
}

static void frame_json(struct sbuf *b, const char *s, size_t n)
{
	struct export_stacks_frame f;
	export_stacks_split(s, n, &f);
	sbuf_addstr(b, "{\"name\":");
	esc_json_str(b, f.name, f.name_len);
	if (f.file_len) {
		sbuf_addstr(b, ",\"file\":");
		esc_json_str(b, f.file, f.file_len);
		if (f.line)
			sbuf_addf(b, ",\"line\":%lld", (long long)f.line);
	}
	sbuf_addch(b, '}');
}

/* Frame indices of every node of t (interned by full name). */
static void map_frames(struct sctx *c, const struct ftree *t)
{
	free(c->fid);
	c->fid = gf_xcalloc(t->n ? t->n : 1, sizeof *c->fid);
	for (uint32_t i = 1; i < t->n; i++) {
		const char *s = ftree_name(t, i);
		c->fid[i] = pool_intern(c->frames, s, pool_len(t->names, t->name[i]));
	}
}

static int sample(void *ctx, const struct ftree *t, const uint32_t *nodes, size_t depth, int64_t self)
{
	struct sctx *c = ctx;
	if (!c->first)
		sbuf_addch(&c->b, ',');
	sbuf_addch(&c->b, '[');
	for (size_t i = 0; i < depth; i++)
		sbuf_addf(&c->b, i ? ",%u" : "%u", c->fid[nodes[i]]);
	sbuf_addch(&c->b, ']');
	if (!c->first)
		sbuf_addch(&c->w, ',');
	export_stacks_num(&c->w, t, self);
	c->first = false;
	flush(&c->b, c->fp, false);
	return 0;
}

/* Interns the frames of every evented profile. */
static void evented_frames(struct sctx *c, const struct export_stacks *x)
{
	for (size_t k = 0; k < x->nev; k++) {
		const struct export_stacks_evented *e = &x->ev[k];
		struct export_stacks_event ev;
		e->rewind(e->ctx);
		while (e->next(e->ctx, &ev))
			if (ev.open)
				pool_intern(c->frames, ev.name, ev.len);
	}
}

static void evented(struct sctx *c, const struct export_stacks_evented *e, bool comma)
{
	struct export_stacks_event ev;
	sbuf_addstr(&c->b, comma ? ",\n{\"type\":\"evented\",\"name\":" : "\n{\"type\":\"evented\",\"name\":");
	esc_json_str(&c->b, e->name, strlen(e->name));
	sbuf_addf(&c->b, ",\"unit\":\"nanoseconds\",\"startValue\":%lld,\"endValue\":%lld,\n\"events\":[",
		  (long long)e->start, (long long)e->end);
	e->rewind(e->ctx);
	bool first = true;
	while (e->next(e->ctx, &ev)) {
		uint32_t f = pool_find(c->frames, ev.name, ev.len);
		sbuf_addf(&c->b, "%s{\"type\":\"%c\",\"frame\":%u,\"at\":%lld}", first ? "" : ",", ev.open ? 'O' : 'C',
			  f, (long long)ev.at);
		first = false;
		flush(&c->b, c->fp, false);
	}
	sbuf_addstr(&c->b, "]}");
}

int export_speedscope_write(const struct export_stacks *x, FILE *fp, struct sbuf *err)
{
	for (unsigned k = 0; k < x->n; k++)
		if (x->p[k].t->ncols != 1) {
			sbuf_addf(err, "differential stacks (two counts per line) cannot be exported: "
				       "export each side");
			return GF_EINPUT;
		}
	struct sctx c;
	memset(&c, 0, sizeof c);
	c.fp = fp;
	c.frames = pool_new();
	for (unsigned k = 0; k < x->n; k++)
		map_frames(&c, x->p[k].t);
	evented_frames(&c, x);
	sbuf_addstr(&c.b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
			  "\"exporter\":\"gpuflame\",\"name\":");
	const char *title = x->title ? x->title : "gpuflame";
	esc_json_str(&c.b, title, strlen(title));
	sbuf_addstr(&c.b, ",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[");
	for (uint32_t i = 0; i < pool_count(c.frames); i++) {
		if (i)
			sbuf_addstr(&c.b, ",\n");
		frame_json(&c.b, pool_str(c.frames, i), pool_len(c.frames, i));
		flush(&c.b, fp, false);
	}
	sbuf_addstr(&c.b, "]},\n\"profiles\":[");
	for (unsigned k = 0; k < x->n; k++) {
		const struct ftree *t = x->p[k].t;
		map_frames(&c, t);
		sbuf_addstr(&c.b, k ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":");
		esc_json_str(&c.b, x->p[k].name, strlen(x->p[k].name));
		sbuf_addf(&c.b, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":",
			  export_stacks_unit(t, false));
		export_stacks_num(&c.b, t, t->n ? t->total[0] : 0);
		sbuf_addstr(&c.b, ",\n\"samples\":[");
		c.first = true;
		sbuf_reset(&c.w);
		export_stacks_walk(t, sample, &c);
		sbuf_addstr(&c.b, "],\n\"weights\":[");
		flush(&c.b, fp, true);
		fwrite(c.w.buf ? c.w.buf : "", 1, c.w.len, fp);
		sbuf_addstr(&c.b, "]}");
	}
	for (size_t k = 0; k < x->nev; k++)
		evented(&c, &x->ev[k], x->n || k);
	sbuf_addstr(&c.b, "]}\n");
	flush(&c.b, fp, true);
	sbuf_release(&c.b);
	sbuf_release(&c.w);
	free(c.fid);
	pool_free(c.frames);
	return GF_OK;
}
