/* flamejson.c — a pruned call tree as the page's compact JSON (see flamejson.h). */
#include "stacks/render/flamejson.h"

#include "base/escape.h"

#include <stdlib.h>
#include <string.h>

int64_t flamejson_keep_min(int64_t total)
{
	if (total <= 0)
		return 1;
	int64_t k = total / 11800 + (total % 11800 != 0);
	return k < 1 ? 1 : k;
}

/* A stack entry: a tree node to write under parent; or the aggregate
 * (IT_AGG, IT_DEEP) of count children of parent weighing w0/w1; or a
 * collapsed chain (IT_CHAIN) of count nodes from node on, after which
 * `target` is written under it. */
enum { IT_NODE, IT_AGG, IT_DEEP, IT_CHAIN };
struct item {
	uint32_t node, parent, depth, target;
	uint64_t count;
	int64_t w0, w1;
	int kind;
};

struct writer {
	const struct ftree *t;
	const struct flamejson_opts *o;
	struct sbuf p, n, v, b, x, names, calls, fills;
	uint32_t *name_ix;       /* tree name id -> names index */
	uint32_t nnames;
	struct pool *agg;        /* aggregate names */
	uint32_t *agg_ix;
	uint32_t nagg;
	char (*fill_tab)[24];
	uint32_t nfill;
	uint64_t frames;
};

static void add_name(struct writer *w, const char *s, size_t n)
{
	if (w->o->drawn)
		pool_intern(w->o->drawn, s, n);
	if (w->nnames)
		sbuf_addch(&w->names, ',');
	esc_json_str(&w->names, s, n);
	if (w->o->calls) {
		if (w->nnames)
			sbuf_addch(&w->calls, ',');
		int64_t c = w->nnames ? w->o->calls(w->o->ctx, s, n) : -1;
		sbuf_addf(&w->calls, "%lld", (long long)c);
	}
	w->nnames++;
}

static uint32_t name_of(struct writer *w, uint32_t node)
{
	uint32_t id = node == 0 ? pool_count(w->t->names) : w->t->name[node];
	if (w->name_ix[id] == UINT32_MAX) {
		w->name_ix[id] = w->nnames;
		const char *s = node == 0 ? "" : pool_str(w->t->names, id);
		add_name(w, s, node == 0 ? 0 : pool_len(w->t->names, id));
	}
	return w->name_ix[id];
}

static uint32_t agg_name(struct writer *w, int kind, uint64_t count)
{
	char buf[80];
	const char *s = count == 1 ? "" : "s";
	unsigned long long k = (unsigned long long)count;
	int len = kind == IT_AGG ? snprintf(buf, sizeof buf, "[%llu frame%s < minwidth]", k, s) :
		  kind == IT_DEEP ? snprintf(buf, sizeof buf, "[%llu frame%s deeper than %d levels]", k, s,
					      FLAMEJSON_MAX_DEPTH) :
				    snprintf(buf, sizeof buf, "[%llu frame%s of a single-callee chain]", k, s);
	uint32_t id = pool_intern(w->agg, buf, (size_t)len);
	if (id >= w->nagg) {
		uint32_t na = w->nagg ? w->nagg * 2 : 16;
		while (na <= id)
			na *= 2;
		w->agg_ix = gf_xrealloc(w->agg_ix, (size_t)na * sizeof *w->agg_ix);
		for (uint32_t i = w->nagg; i < na; i++)
			w->agg_ix[i] = UINT32_MAX;
		w->nagg = na;
	}
	if (w->agg_ix[id] == UINT32_MAX) {
		w->agg_ix[id] = w->nnames;
		add_name(w, buf, (size_t)len);
	}
	return w->agg_ix[id];
}

static uint32_t fill_of(struct writer *w, const char *rgb)
{
	for (uint32_t i = 0; i < w->nfill; i++)
		if (!strcmp(w->fill_tab[i], rgb))
			return i;
	w->fill_tab = gf_xrealloc(w->fill_tab, (size_t)(w->nfill + 1) * sizeof *w->fill_tab);
	snprintf(w->fill_tab[w->nfill], 24, "%s", rgb);
	if (w->nfill)
		sbuf_addch(&w->fills, ',');
	esc_json_str(&w->fills, rgb, strlen(rgb));
	return w->nfill++;
}

static void emit(struct writer *w, int64_t parent, uint32_t name, int64_t v0, int64_t v1, int fill, int cls)
{
	const char *sep = w->frames ? "," : "";
	sbuf_addf(&w->p, "%s%lld", sep, (long long)parent);
	sbuf_addf(&w->n, "%s%u", sep, name);
	sbuf_addf(&w->v, "%s%lld", sep, (long long)v0);
	if (w->o->fill) {
		sbuf_addf(&w->b, "%s%lld", sep, (long long)v1);
		sbuf_addf(&w->x, "%s%d,%d", sep, fill, cls);
	}
	w->frames++;
}

/* Nodes in the subtree of node (node included). */
static uint64_t subtree_size(const struct ftree *t, uint32_t node, uint32_t *stack)
{
	uint64_t k = 0;
	size_t sp = 0;
	stack[sp++] = node;
	while (sp) {
		uint32_t x = stack[--sp];
		k++;
		for (uint32_t c = t->child[x]; c != FT_NONE; c = t->sib[c])
			stack[sp++] = c;
	}
	return k;
}

/* Whether child c of a written frame is written (else pruned when it weighs). */
static bool kept(const int64_t *col, const int64_t *oth, int64_t keep, uint32_t c)
{
	return col[c] >= keep || (col[c] == 0 && oth && oth[c] >= keep);
}

static bool weighs(const int64_t *col, const int64_t *oth, uint32_t c)
{
	return col[c] > 0 || (oth && oth[c] > 0);
}

/*
 * The single-callee chains to collapse: run[x] = the node written after
 * the collapsed part that starts below x (FT_NONE: none), count[x] its
 * nodes. A chain is a path x0 -> x1 -> ... -> xR where each node but the
 * last writes exactly one child and prunes none; when R exceeds
 * FLAMEJSON_CHAIN_MAX, x1..xK and x(R-K)..xR stay (K =
 * FLAMEJSON_CHAIN_KEEP) and the nodes between become one frame. Linear:
 * each node is on one chain.
 */
static void chains(const struct ftree *t, const int64_t *col, const int64_t *oth, int64_t keep, uint32_t *run,
		   uint64_t *count)
{
	uint32_t *one = gf_xmalloc((size_t)t->n * sizeof *one);
	for (uint32_t x = 0; x < t->n; x++) {
		run[x] = FT_NONE;
		one[x] = FT_NONE;
		uint32_t k = 0;
		for (uint32_t c = t->child[x]; c != FT_NONE; c = t->sib[c]) {
			if (kept(col, oth, keep, c)) {
				one[x] = c;
				k++;
			} else if (weighs(col, oth, c)) {
				k = 2; /* an aggregate too */
			}
		}
		if (k != 1)
			one[x] = FT_NONE;
	}
	const uint32_t K = FLAMEJSON_CHAIN_KEEP;
	for (uint32_t x = 0; x < t->n; x++) {
		if (one[x] == FT_NONE || (x != 0 && one[t->parent[x]] == x))
			continue; /* not the top of a chain */
		uint32_t r = 0, xk = x;
		for (uint32_t y = x; one[y] != FT_NONE; y = one[y]) {
			r++;
			if (r == K)
				xk = one[y];
		}
		if (r <= FLAMEJSON_CHAIN_MAX || r < 2 * K + 3)
			continue;
		/* x_K keeps its place; x_(K+1) .. x_(R-K-1) collapse; x_(R-K) follows */
		uint32_t y = xk;
		for (uint32_t i = 0; i < r - 2 * K; i++)
			y = one[y];
		run[xk] = y;
		count[xk] = r - 2 * K - 1;
	}
	free(one);
}

void flamejson_write(const struct ftree *t, const struct flamejson_opts *o, struct sbuf *out,
		     struct flamejson_stats *st)
{
	struct writer W;
	memset(&W, 0, sizeof W);
	struct writer *w = &W;
	struct sbuf *bufs[] = { &w->p, &w->n, &w->v, &w->b, &w->x, &w->names, &w->calls, &w->fills };
	for (size_t i = 0; i < GF_ARRAY_LEN(bufs); i++)
		*bufs[i] = (struct sbuf)SBUF_INIT;
	w->t = t;
	w->o = o;
	uint32_t np = pool_count(t->names);
	w->name_ix = gf_xmalloc(((size_t)np + 1) * sizeof *w->name_ix);
	for (uint32_t i = 0; i <= np; i++)
		w->name_ix[i] = UINT32_MAX;
	w->agg = pool_new();
	memset(st, 0, sizeof *st);
	const int64_t *col = o->col ? t->total2 : t->total;
	const int64_t *oth = o->fill ? (o->col ? t->total : t->total2) : NULL;
	size_t cap = (size_t)t->n * 2 + 2;
	struct item *stk = gf_xmalloc(cap * sizeof *stk);
	uint32_t *scratch = gf_xmalloc(((size_t)t->n + 1) * sizeof *scratch);
	uint32_t *run = gf_xmalloc(((size_t)t->n + 1) * sizeof *run);
	uint64_t *runk = gf_xcalloc((size_t)t->n + 1, sizeof *runk);
	chains(t, col, oth, o->keep_min, run, runk);
	size_t sp = 0;
	if (t->n)
		stk[sp++] = (struct item){ 0, UINT32_MAX, 0, 0, 0, 0, 0, IT_NODE };
	while (sp) {
		struct item it = stk[--sp];
		uint32_t me = (uint32_t)w->frames;
		if (it.kind == IT_AGG || it.kind == IT_DEEP) {
			emit(w, it.parent, agg_name(w, it.kind, it.count), it.w0, it.w1,
			     o->fill ? (int)fill_of(w, "rgb(220,220,220)") : 0, 4);
			continue;
		}
		if (it.kind == IT_CHAIN) {
			emit(w, it.parent, agg_name(w, IT_CHAIN, it.count), col[it.node], oth ? oth[it.node] : 0,
			     o->fill ? (int)fill_of(w, "rgb(220,220,220)") : 0, 4);
			st->collapsed += it.count;
			stk[sp++] = (struct item){ it.target, me, it.depth + 1, 0, 0, 0, 0, IT_NODE };
			continue;
		}
		int fill = 0, cls = 0;
		if (o->fill) {
			char rgb[24];
			o->fill(o->ctx, it.node, rgb);
			fill = (int)fill_of(w, rgb);
			cls = o->cls ? o->cls(o->ctx, it.node) : 0;
		}
		emit(w, it.parent == UINT32_MAX ? -1 : (int64_t)it.parent, name_of(w, it.node), col[it.node],
		     oth ? oth[it.node] : 0, fill, cls);
		if (run[it.node] != FT_NONE) {
			/* the one child starts a collapsed chain */
			stk[sp++] = (struct item){ t->child[it.node], me, it.depth + 1, run[it.node], runk[it.node], 0, 0,
						   IT_CHAIN };
			for (uint32_t c = t->child[it.node]; c != FT_NONE; c = t->sib[c])
				if (kept(col, oth, o->keep_min, c))
					stk[sp - 1].node = c;
			continue;
		}
		bool deep = it.depth >= FLAMEJSON_MAX_DEPTH;
		struct item agg = { FT_NONE, me, it.depth + 1, 0, 0, 0, 0, deep ? IT_DEEP : IT_AGG };
		size_t first = sp + 1; /* the aggregate goes below the kept children */
		stk[sp++] = agg;
		for (uint32_t c = t->child[it.node]; c != FT_NONE; c = t->sib[c]) {
			if (!deep && kept(col, oth, o->keep_min, c)) {
				stk[sp++] = (struct item){ c, me, it.depth + 1, 0, 0, 0, 0, IT_NODE };
			} else if (weighs(col, oth, c)) {
				stk[first - 1].count++;
				stk[first - 1].w0 += col[c];
				stk[first - 1].w1 += oth ? oth[c] : 0;
				st->pruned += col[c];
				st->pruned_frames += subtree_size(t, c, scratch);
			}
		}
		/* kept children were pushed in order: reverse them so they pop in order */
		for (size_t a = first, b = sp - 1; a < b; a++, b--) {
			struct item x = stk[a];
			stk[a] = stk[b];
			stk[b] = x;
		}
		if (!stk[first - 1].count) {
			/* no aggregate: drop its slot */
			memmove(&stk[first - 1], &stk[first], (sp - first) * sizeof *stk);
			sp--;
		}
	}
	st->frames = w->frames;
	sbuf_addf(out, "{\"total\":%lld,\"keep_min\":%lld,\"pruned\":%lld,\"pruned_frames\":%llu,\"frames\":%llu,",
		  (long long)(t->n ? col[0] : 0), (long long)o->keep_min, (long long)st->pruned,
		  (unsigned long long)st->pruned_frames, (unsigned long long)st->frames);
	sbuf_addf(out, "\"collapsed\":%llu,\"max_depth\":%d,\"scale\":%u,\"names\":[", (unsigned long long)st->collapsed,
		  FLAMEJSON_MAX_DEPTH, t->scale);
	sbuf_add(out, w->names.buf, w->names.len);
	if (o->calls) {
		sbuf_addstr(out, "],\"calls\":[");
		sbuf_add(out, w->calls.buf, w->calls.len);
	}
	sbuf_addstr(out, "],\"p\":[");
	sbuf_add(out, w->p.buf, w->p.len);
	sbuf_addstr(out, "],\"n\":[");
	sbuf_add(out, w->n.buf, w->n.len);
	sbuf_addstr(out, "],\"v\":[");
	sbuf_add(out, w->v.buf, w->v.len);
	if (o->fill) {
		sbuf_addstr(out, "],\"b\":[");
		sbuf_add(out, w->b.buf, w->b.len);
		sbuf_addstr(out, "],\"x\":[");
		sbuf_add(out, w->x.buf, w->x.len);
		sbuf_addstr(out, "],\"fills\":[");
		sbuf_add(out, w->fills.buf, w->fills.len);
	}
	sbuf_addstr(out, "]}");
	for (size_t i = 0; i < GF_ARRAY_LEN(bufs); i++)
		sbuf_release(bufs[i]);
	free(w->name_ix);
	free(w->agg_ix);
	free(w->fill_tab);
	pool_free(w->agg);
	free(stk);
	free(scratch);
	free(run);
	free(runk);
}
