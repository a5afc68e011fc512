/* actx.c — shared derived data for the analyses (see actx.h). */
#include "trace/analysis/actx.h"

#include "base/names.h"
#include "trace/analysis/steps.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static uint32_t pick_device(const struct trace *t)
{
	uint32_t best = TRACE_NONE;
	uint32_t th = t->nsteps ? t->steps[0].thread : TRACE_NONE;
	for (int pass = 0; pass < 2 && best == TRACE_NONE; pass++) {
		for (uint32_t i = 0; i < t->ndev; i++) {
			if (pass == 0 && (th == TRACE_NONE || t->dev[i].launch_thread != th))
				continue;
			if (best == TRACE_NONE || t->dev[i].act_ns > t->dev[best].act_ns)
				best = i;
		}
	}
	return best;
}

static uint32_t site_walk(const struct trace *t, uint32_t ri);

/* Name classes for actx_site, per pool id. */
enum { NC_UNKNOWN = 0, NC_OTHER, NC_TORCH_SRC, NC_USER_SRC };

static unsigned name_class(const struct trace *t, uint8_t *cls, uint32_t name)
{
	if (!cls[name]) {
		size_t pl;
		if (!names_py_source(pool_str(t->names, name), pool_len(t->names, name), &pl))
			cls[name] = NC_OTHER;
		else
			cls[name] = names_in_torch(pool_str(t->names, name), pl) ? NC_TORCH_SRC : NC_USER_SRC;
	}
	return cls[name];
}

/* site_pref/site_src/nonrt for every range in one forward pass: a range
 * inherits its parent's answers unless it is one itself. */
static void sites_init(struct actx *c)
{
	const struct trace *t = c->t;
	size_t n = t->nr ? t->nr : 1;
	uint32_t np = pool_count(t->names);
	uint8_t *cls = gf_xcalloc(np ? np : 1, 1);
	c->site_pref = gf_xmalloc(n * sizeof *c->site_pref);
	c->site_src = gf_xmalloc(n * sizeof *c->site_src);
	c->nonrt = gf_xmalloc(n * sizeof *c->nonrt);
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *r = &t->r[i];
		uint32_t p = r->parent, pref = TRACE_NONE, src = TRACE_NONE, nrt = TRACE_NONE;
		if (p != TRACE_NONE && p < i) {
			pref = c->site_pref[p];
			src = c->site_src[p];
			nrt = t->r[p].kind < TR_RUNTIME ? p : c->nonrt[p];
		} else if (p != TRACE_NONE) {
			/* a parent after its child (the model never builds one): walk */
			for (uint32_t q = p; q != TRACE_NONE; q = t->r[q].parent) {
				if (t->r[q].kind != TR_PYTHON)
					continue;
				unsigned k = name_class(t, cls, t->r[q].name);
				if (k != NC_OTHER && src == TRACE_NONE)
					src = q;
				if (k == NC_USER_SRC) {
					pref = q;
					break;
				}
			}
			nrt = p;
			while (nrt != TRACE_NONE && t->r[nrt].kind >= TR_RUNTIME)
				nrt = t->r[nrt].parent;
		}
		if (r->kind == TR_PYTHON && r->name < np) {
			unsigned k = name_class(t, cls, r->name);
			if (k != NC_OTHER)
				src = i;
			if (k == NC_USER_SRC)
				pref = i;
		}
		c->site_pref[i] = pref;
		c->site_src[i] = src;
		c->nonrt[i] = nrt;
	}
	free(cls);
}

/* Leaves: the end of each activity on the device (INT64_MIN for others and
 * padding); each inner node the max of its two children; node 1 the root. */
static void endmax_init(struct actx *c)
{
	const struct trace *t = c->t;
	size_t L = 1;
	while (L < t->nact)
		L *= 2;
	c->endleaves = L;
	c->endmax = gf_xmalloc(2 * L * sizeof *c->endmax);
	for (size_t i = 0; i < L; i++)
		c->endmax[L + i] = i < t->nact && actx_on_dev(c, &t->act[i]) ? t->act[i].end : INT64_MIN;
	for (size_t i = L; i-- > 1;)
		c->endmax[i] = GF_MAX(c->endmax[2 * i], c->endmax[2 * i + 1]);
}

/*
 * Sorting int64 keys: nothing when already in order (Kineto writes most
 * arrays in time order), else an LSD radix sort by bytes of the key with
 * its sign bit flipped, skipping the bytes every key shares (the high bytes
 * of timestamps): O(n) per pass, stable, no comparator calls. A few
 * sorted runs (every thread's ranges by start) are merged instead, and
 * short arrays take an insertion sort (both stable).
 */
#define ACTX_RADIX_SMALL 32
#define ACTX_MERGE_RUNS 8

#define ACTX_RADIX_SORT(NAME, T, KEY)                                                      \
	void NAME(T *v, size_t n)                                                          \
	{                                                                                  \
		size_t i = 1;                                                              \
		while (i < n && KEY(v[i - 1]) <= KEY(v[i]))                                \
			i++;                                                               \
		if (i >= n)                                                                \
			return;                                                            \
		size_t runs = 1;                                                           \
		for (size_t k = i; k < n; k++)                                             \
			runs += KEY(v[k - 1]) > KEY(v[k]);                                 \
		if (runs <= ACTX_MERGE_RUNS && n > ACTX_RADIX_SMALL) {                     \
			/* a few sorted runs (one per host thread): merge them */          \
			size_t bd[ACTX_MERGE_RUNS + 1], nb = 0;                            \
			bd[nb++] = 0;                                                      \
			for (size_t k = 1; k < n; k++)                                     \
				if (KEY(v[k - 1]) > KEY(v[k]))                             \
					bd[nb++] = k;                                      \
			bd[nb] = n;                                                        \
			T *src = v, *dst = gf_xmalloc(n * sizeof *dst), *tmp = dst;        \
			while (nb > 1) {                                                   \
				size_t ob = 0;                                             \
				for (size_t q = 0; q < nb; q += 2) {                       \
					size_t a = bd[q], m = bd[q + 1 < nb ? q + 1 : nb], \
					       e = q + 2 <= nb ? bd[q + 2] : bd[nb];       \
					if (q + 1 >= nb)                                   \
						m = e = bd[nb];                            \
					size_t x = a, y = m, o = a;                        \
					while (x < m && y < e)                             \
						dst[o++] = KEY(src[y]) < KEY(src[x]) ? src[y++] : src[x++]; \
					while (x < m)                                      \
						dst[o++] = src[x++];                       \
					while (y < e)                                      \
						dst[o++] = src[y++];                       \
					bd[ob++] = a;                                      \
				}                                                          \
				bd[ob] = n;                                                \
				nb = ob;                                                   \
				T *sw = src;                                               \
				src = dst;                                                 \
				dst = sw;                                                  \
			}                                                                  \
			if (src != v)                                                      \
				memcpy(v, src, n * sizeof *v);                             \
			free(tmp);                                                         \
			return;                                                            \
		}                                                                          \
		if (n <= ACTX_RADIX_SMALL) {                                               \
			for (; i < n; i++) {                                               \
				T x = v[i];                                                \
				size_t j = i;                                              \
				while (j && KEY(v[j - 1]) > KEY(x)) {                      \
					v[j] = v[j - 1];                                   \
					j--;                                               \
				}                                                          \
				v[j] = x;                                                  \
			}                                                                  \
			return;                                                            \
		}                                                                          \
		size_t(*cnt)[256] = gf_xcalloc(8, sizeof *cnt);                            \
		for (size_t k = 0; k < n; k++) {                                           \
			uint64_t u = (uint64_t)KEY(v[k]) ^ (UINT64_C(1) << 63);             \
			for (unsigned b = 0; b < 8; b++)                                   \
				cnt[b][(u >> (8 * b)) & 255]++;                            \
		}                                                                          \
		T *src = v, *dst = gf_xmalloc(n * sizeof *dst), *tmp = dst;                \
		for (unsigned b = 0; b < 8; b++) {                                         \
			uint64_t u0 = (uint64_t)KEY(v[0]) ^ (UINT64_C(1) << 63);            \
			if (cnt[b][(u0 >> (8 * b)) & 255] == n)                            \
				continue; /* every key has this byte */                    \
			size_t pos = 0;                                                    \
			for (unsigned d = 0; d < 256; d++) {                               \
				size_t c = cnt[b][d];                                      \
				cnt[b][d] = pos;                                           \
				pos += c;                                                  \
			}                                                                  \
			for (size_t k = 0; k < n; k++) {                                   \
				uint64_t u = (uint64_t)KEY(src[k]) ^ (UINT64_C(1) << 63);   \
				dst[cnt[b][(u >> (8 * b)) & 255]++] = src[k];              \
			}                                                                  \
			T *sw = src;                                                       \
			src = dst;                                                         \
			dst = sw;                                                          \
		}                                                                          \
		if (src != v)                                                              \
			memcpy(v, src, n * sizeof *v);                                     \
		free(tmp);                                                                 \
		free(cnt);                                                                 \
	}

#define ACTX_KEY_NS(x) (x)
#define ACTX_KEY_KV(x) ((x).k)
#define ACTX_KEY_WVAL(x) ((x).v)
ACTX_RADIX_SORT(actx_sort_ns, gf_ns, ACTX_KEY_NS)
ACTX_RADIX_SORT(actx_sort_kv, struct actx_kv, ACTX_KEY_KV)
static ACTX_RADIX_SORT(sort_wval, struct actx_wval, ACTX_KEY_WVAL)

/* Merges the sorted runs [bd[q], bd[q+1]) of indices in v (nb runs, bd[nb]
 * = n) by the start of their ranges, left first on ties: stable. */
static void merge_runs(const struct trace_range *r, uint32_t *v, size_t n, size_t *bd, size_t nb)
{
	uint32_t *src = v, *dst = gf_xmalloc(n * sizeof *dst), *tmp = dst;
	while (nb > 1) {
		size_t ob = 0;
		for (size_t q = 0; q < nb; q += 2) {
			size_t a = bd[q], m = q + 1 < nb ? bd[q + 1] : bd[nb], e = q + 2 <= nb ? bd[q + 2] : bd[nb];
			size_t x = a, y = m, o = a;
			while (x < m && y < e)
				dst[o++] = r[src[y]].start < r[src[x]].start ? src[y++] : src[x++];
			while (x < m)
				dst[o++] = src[x++];
			while (y < e)
				dst[o++] = src[y++];
			bd[ob++] = a;
		}
		bd[ob] = n;
		nb = ob;
		uint32_t *sw = src;
		src = dst;
		dst = sw;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(tmp);
}

/* Every thread's ranges merged by start, ties by index (each thread's are
 * sorted already): a merge of the threads' runs when they are few, else a
 * stable sort of (start, index) pairs. */
static void by_start_init(struct actx *c)
{
	const struct trace *t = c->t;
	c->by_start = gf_xmalloc((t->nr ? t->nr : 1) * sizeof *c->by_start);
	size_t bd[ACTX_MERGE_RUNS + 1], nb = 0;
	for (uint32_t k = 0; k < t->nth && nb <= ACTX_MERGE_RUNS; k++)
		if (t->th[k].n)
			bd[nb < ACTX_MERGE_RUNS ? nb : ACTX_MERGE_RUNS] = t->th[k].first, nb++;
	if (nb <= ACTX_MERGE_RUNS) {
		for (uint32_t i = 0; i < t->nr; i++)
			c->by_start[i] = i;
		bd[nb] = t->nr;
		if (nb > 1)
			merge_runs(t->r, c->by_start, t->nr, bd, nb);
		return;
	}
	struct actx_kv *kv = gf_xmalloc((t->nr ? t->nr : 1) * sizeof *kv);
	for (uint32_t i = 0; i < t->nr; i++) {
		kv[i].k = t->r[i].start;
		kv[i].v = i;
	}
	actx_sort_kv(kv, t->nr);
	for (uint32_t i = 0; i < t->nr; i++)
		c->by_start[i] = (uint32_t)kv[i].v;
	free(kv);
}

uint32_t actx_range_lower(const struct actx *c, gf_ns ts)
{
	const struct trace *t = c->t;
	uint32_t l = 0, h = t->nr;
	while (l < h) {
		uint32_t m = l + (h - l) / 2;
		if (t->r[c->by_start[m]].start < ts)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/* Below this many ranges a thread costs more than it saves. */
#define ACTX_PAR_MIN 8192

/* The part of actx_init that may run on another thread: writes c->walk and
 * c->by_start only. */
static void *walk_order(void *arg)
{
	struct actx *c = arg;
	trace_walk_init(&c->walk, c->t);
	by_start_init(c);
	return NULL;
}

/*
 * An async copy with pageable host memory: device-to-host (or no direction
 * in the name) always blocks (CUDA returns once the copy is done);
 * host-to-device only when the trace shows it drained the analysed device:
 * busy at the call's start, and the call returned at or after the end of
 * that busy pair. @return ACTX_B_PAGEABLE | ACTX_B_H2D, ACTX_B_PAGEABLE or 0.
 */
static uint8_t pageable_blocks(const struct actx *c, const struct trace_range *r, const struct trace_act *x)
{
	if (!(x->flags & TAF_HTOD) || (x->flags & TAF_DTOH))
		return ACTX_B_PAGEABLE;
	if (c->dev == TRACE_NONE)
		return 0;
	size_t k = actx_busy_after(c, r->start);
	if (k >= c->nbusy || c->busy[2 * k] > r->start)
		return 0; /* the device was idle when the call began */
	return r->end >= c->busy[2 * k + 1] ? (uint8_t)(ACTX_B_PAGEABLE | ACTX_B_H2D) : 0;
}

int actx_init(struct actx *c, struct trace *t, int device, struct sbuf *err)
{
	memset(c, 0, sizeof *c);
	c->t = t;
	c->device = -1;
	if (device >= 0) {
		c->dev = trace_device_index(t, device);
		if (c->dev == TRACE_NONE) {
			sbuf_setf(err, "no GPU activity on device %d", device);
			return GF_EUSAGE;
		}
	} else {
		c->dev = pick_device(t);
	}
	if (c->dev != TRACE_NONE) {
		c->device = t->dev[c->dev].device;
		c->busy = trace_busy(t, c->dev, &c->nbusy);
	}
	c->busy_pre = gf_xmalloc((c->nbusy + 1) * sizeof *c->busy_pre);
	c->busy_pre[0] = 0;
	for (size_t i = 0; i < c->nbusy; i++)
		c->busy_pre[i + 1] = c->busy_pre[i] + ((uint64_t)c->busy[2 * i + 1] - (uint64_t)c->busy[2 * i]);
	c->first_act = gf_xmalloc((t->nr ? t->nr : 1) * sizeof *c->first_act);
	c->blk = gf_xcalloc(t->nr ? t->nr : 1, 1);
	for (uint32_t i = 0; i < t->nr; i++)
		c->first_act[i] = TRACE_NONE;
	for (uint32_t a = 0; a < t->nact; a++) {
		const struct trace_act *x = &t->act[a];
		if (x->launch != TRACE_NONE && x->launch < t->nr && c->first_act[x->launch] == TRACE_NONE)
			c->first_act[x->launch] = a;
		if (actx_on_dev(c, x) && x->end - x->start > c->max_act)
			c->max_act = x->end - x->start;
	}
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *r = &t->r[i];
		if (r->kind != TR_RUNTIME && r->kind != TR_DRIVER)
			continue;
		if (r->flags & TRF_SYNC) {
			c->blk[i] = ACTX_B_SYNC;
		} else if ((r->flags & TRF_MEMCPY) && c->first_act[i] != TRACE_NONE) {
			const struct trace_act *x = &t->act[c->first_act[i]];
			if (x->kind == TA_MEMCPY && names_copy_pageable(pool_str(t->names, x->name), pool_len(t->names, x->name)))
				c->blk[i] = pageable_blocks(c, r, x);
		}
		if (c->blk[i])
			c->nblocking++;
	}
	/* the jump links and the by-start order read only the model: on the
	 * second core (t->cores) while this one does the rest */
	pthread_t th;
	bool par = t->cores >= 2 && t->nr >= ACTX_PAR_MIN && pthread_create(&th, NULL, walk_order, c) == 0;
	if (!par)
		walk_order(c);
	sites_init(c);
	endmax_init(c);
	if (par)
		pthread_join(th, NULL);
	return GF_OK;
}

void actx_release(struct actx *c)
{
	free(c->first_act);
	free(c->blk);
	free(c->site_pref);
	free(c->site_src);
	free(c->nonrt);
	trace_walk_release(&c->walk);
	free(c->endmax);
	free(c->by_start);
	free(c->busy_pre);
	memset(c, 0, sizeof *c);
}

uint32_t actx_act_from(const struct actx *c, gf_ns lo)
{
	const struct trace *t = c->t;
	uint32_t i = trace_act_lower(t, lo);
	gf_ns back = lo - c->max_act;
	while (i > 0 && t->act[i - 1].start >= back)
		i--;
	return i;
}

size_t actx_straddlers(const struct actx *c, gf_ns lo, uint32_t **v, size_t *cap)
{
	const struct trace *t = c->t;
	size_t k = 0;
	if (!c->endmax || !t->nact)
		return 0;
	uint32_t lim = trace_act_lower(t, lo); /* activities before it start before lo */
	/* depth-first over the nodes meeting [0, lim) whose max end is > lo */
	struct { size_t node, a, b; } st[2 * 64];
	size_t sp = 0;
	st[sp].node = 1, st[sp].a = 0, st[sp].b = c->endleaves, sp++;
	while (sp) {
		sp--;
		size_t node = st[sp].node, a = st[sp].a, b = st[sp].b;
		if (a >= lim || c->endmax[node] <= lo)
			continue;
		if (b - a == 1) {
			if (k == *cap) {
				*cap = *cap ? 2 * *cap : 64;
				*v = gf_xreallocarray(*v, *cap, sizeof **v);
			}
			(*v)[k++] = (uint32_t)a;
			continue;
		}
		size_t m = a + (b - a) / 2;
		st[sp].node = 2 * node + 1, st[sp].a = m, st[sp].b = b, sp++;
		st[sp].node = 2 * node, st[sp].a = a, st[sp].b = m, sp++;
	}
	return k;
}

size_t actx_busy_after(const struct actx *c, gf_ns ts)
{
	size_t lo = 0, hi = c->nbusy;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (c->busy[2 * m + 1] <= ts)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

static gf_ns mid2(gf_ns a, gf_ns b);

gf_ns actx_measure_in(const gf_ns *v, size_t n, const uint64_t *pre, gf_ns lo, gf_ns hi)
{
	if (hi <= lo || !n || !pre)
		return 0;
	size_t i0 = 0, h = n;
	while (i0 < h) { /* first pair ending after lo */
		size_t m = i0 + (h - i0) / 2;
		if (v[2 * m + 1] <= lo)
			i0 = m + 1;
		else
			h = m;
	}
	size_t i1 = i0;
	h = n;
	while (i1 < h) { /* first pair starting at or after hi */
		size_t m = i1 + (h - i1) / 2;
		if (v[2 * m] < hi)
			i1 = m + 1;
		else
			h = m;
	}
	if (i1 <= i0)
		return 0;
	/* whole pairs i0..i1-1, less what lies before lo and after hi (the
	 * exact sum fits; unsigned arithmetic wraps back to it) */
	uint64_t s = pre[i1] - pre[i0];
	if (v[2 * i0] < lo)
		s -= (uint64_t)lo - (uint64_t)v[2 * i0];
	if (v[2 * (i1 - 1) + 1] > hi)
		s -= (uint64_t)v[2 * (i1 - 1) + 1] - (uint64_t)hi;
	return (gf_ns)s;
}

gf_ns actx_busy_in(const struct actx *c, gf_ns lo, gf_ns hi)
{
	return actx_measure_in(c->busy, c->nbusy, c->busy_pre, lo, hi);
}

void actx_pairs_add(struct actx_pairs *p, gf_ns a, gf_ns b)
{
	if (b <= a)
		return;
	/* added in time order, disjoint: actx_pairs_in's binary search relies on it */
	GF_ASSERT(!p->n || p->v[2 * p->n - 1] <= a);
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->v = gf_xreallocarray(p->v, p->cap, 2 * sizeof *p->v);
	}
	p->v[2 * p->n] = a;
	p->v[2 * p->n + 1] = b;
	p->n++;
}

void actx_pairs_seal(struct actx_pairs *p)
{
	free(p->pre);
	p->pre = gf_xmalloc((p->n + 1) * sizeof *p->pre);
	p->pre[0] = 0;
	for (size_t i = 0; i < p->n; i++)
		p->pre[i + 1] = p->pre[i] + ((uint64_t)p->v[2 * i + 1] - (uint64_t)p->v[2 * i]);
}

gf_ns actx_pairs_in(const struct actx_pairs *p, gf_ns lo, gf_ns hi)
{
	return actx_measure_in(p->v, p->n, p->pre, lo, hi);
}

void actx_pairs_release(struct actx_pairs *p)
{
	free(p->v);
	free(p->pre);
	memset(p, 0, sizeof *p);
}

void actx_span_add(struct actx_span *o, gf_ns a, gf_ns b)
{
	if (b <= a)
		return;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->s = gf_xreallocarray(o->s, o->cap, sizeof *o->s);
		o->e = gf_xreallocarray(o->e, o->cap, sizeof *o->e);
	}
	o->s[o->n] = a;
	o->e[o->n] = b;
	o->n++;
}

void actx_span_seal(struct actx_span *o)
{
	if (o->n) {
		actx_sort_ns(o->s, o->n);
		actx_sort_ns(o->e, o->n);
	}
	o->ps = gf_xmalloc((o->n + 1) * sizeof *o->ps);
	o->pe = gf_xmalloc((o->n + 1) * sizeof *o->pe);
	o->ps[0] = o->pe[0] = 0;
	for (size_t i = 0; i < o->n; i++) {
		o->ps[i + 1] = o->ps[i] + (uint64_t)o->s[i];
		o->pe[i + 1] = o->pe[i] + (uint64_t)o->e[i];
	}
}

static size_t count_lt(const gf_ns *v, size_t n, gf_ns x)
{
	size_t l = 0, h = n;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (v[m] < x)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

static uint64_t span_f(const struct actx_span *o, gf_ns x)
{
	size_t a = count_lt(o->s, o->n, x), b = count_lt(o->e, o->n, x);
	return (uint64_t)a * (uint64_t)x - o->ps[a] - ((uint64_t)b * (uint64_t)x - o->pe[b]);
}

gf_ns actx_span_in(const struct actx_span *o, gf_ns lo, gf_ns hi)
{
	if (hi <= lo || !o->n)
		return 0;
	return (gf_ns)(span_f(o, hi) - span_f(o, lo));
}

/* count_lt from a previous answer h: galloping away from it, O(1) when
 * the queries move little (the gap model asks in time order). */
static size_t count_lt_near(const gf_ns *v, size_t n, gf_ns x, size_t h)
{
	size_t lo, hi;
	if (h > n)
		h = n;
	if (h < n && v[h] < x) { /* the answer is above h */
		size_t b = 1;
		lo = h + 1;
		while (h + b < n && v[h + b] < x) {
			lo = h + b + 1;
			b *= 2;
		}
		hi = h + b < n ? h + b : n;
	} else if (h > 0 && v[h - 1] >= x) { /* below h */
		size_t b = 1;
		hi = h - 1;
		while (b < h && v[h - 1 - b] >= x) {
			hi = h - 1 - b;
			b *= 2;
		}
		lo = b < h ? h - b : 0;
	} else {
		return h;
	}
	return lo + count_lt(v + lo, hi - lo, x);
}

static uint64_t span_f_near(const struct actx_span *o, size_t *cur, gf_ns x)
{
	size_t a = cur[0] = count_lt_near(o->s, o->n, x, cur[0]);
	size_t b = cur[1] = count_lt_near(o->e, o->n, x, cur[1]);
	GF_ASSERT(a == count_lt(o->s, o->n, x) && b == count_lt(o->e, o->n, x));
	return (uint64_t)a * (uint64_t)x - o->ps[a] - ((uint64_t)b * (uint64_t)x - o->pe[b]);
}

gf_ns actx_span_in_near(const struct actx_span *o, struct actx_span_cur *cur, gf_ns lo, gf_ns hi)
{
	if (hi <= lo || !o->n)
		return 0;
	return (gf_ns)(span_f_near(o, cur->c + 2, hi) - span_f_near(o, cur->c, lo));
}

void actx_span_release(struct actx_span *o)
{
	free(o->s);
	free(o->e);
	free(o->ps);
	free(o->pe);
	memset(o, 0, sizeof *o);
}

void actx_kth_init(struct actx_kth *w, const gf_ns *v, size_t n)
{
	memset(w, 0, sizeof *w);
	w->n = n;
	w->vals = gf_xmalloc((n ? n : 1) * sizeof *w->vals);
	/* ranks from one sort of (value, position): the distinct values in
	 * order, each position's rank among them */
	struct actx_kv *kv = gf_xmalloc((n ? n : 1) * sizeof *kv);
	for (size_t i = 0; i < n; i++) {
		kv[i].k = v[i];
		kv[i].v = i;
	}
	actx_sort_kv(kv, n);
	uint32_t *cur = gf_xmalloc((n ? n : 1) * sizeof *cur), *nxt = gf_xmalloc((n ? n : 1) * sizeof *nxt);
	size_t d = 0;
	for (size_t i = 0; i < n; i++) {
		if (!d || w->vals[d - 1] != kv[i].k)
			w->vals[d++] = kv[i].k;
		cur[kv[i].v] = (uint32_t)(d - 1);
	}
	free(kv);
	unsigned L = 1;
	while (L < 32 && ((size_t)1 << L) < d)
		L++;
	w->levels = L;
	size_t nw = n / 64 + 1;
	w->bits = gf_xcalloc(L, sizeof *w->bits);
	w->ones = gf_xcalloc(L, sizeof *w->ones);
	w->zeros = gf_xcalloc(L, sizeof *w->zeros);
	for (unsigned lv = L; lv-- > 0;) {
		uint64_t *b = gf_xcalloc(nw, sizeof *b);
		uint32_t *o = gf_xmalloc(nw * sizeof *o);
		size_t z = 0;
		for (size_t i = 0; i < n; i++)
			if (cur[i] >> lv & 1)
				b[i / 64] |= (uint64_t)1 << (i % 64);
			else
				z++;
		uint32_t acc = 0;
		for (size_t k = 0; k < nw; k++) {
			o[k] = acc;
			acc += (uint32_t)__builtin_popcountll(b[k]);
		}
		/* stable: zeros first, then ones */
		size_t zi = 0, oi = z;
		for (size_t i = 0; i < n; i++)
			nxt[(cur[i] >> lv & 1) ? oi++ : zi++] = cur[i];
		uint32_t *tmp = cur;
		cur = nxt;
		nxt = tmp;
		w->bits[lv] = b;
		w->ones[lv] = o;
		w->zeros[lv] = z;
	}
	free(cur);
	free(nxt);
}

static size_t kth_rank1(const struct actx_kth *w, unsigned lv, size_t i)
{
	uint64_t word = w->bits[lv][i / 64] & (((uint64_t)1 << (i % 64)) - 1);
	return w->ones[lv][i / 64] + (size_t)__builtin_popcountll(word);
}

gf_ns actx_kth_at(const struct actx_kth *w, size_t l, size_t r, size_t k)
{
	size_t val = 0;
	for (unsigned lv = w->levels; lv-- > 0;) {
		size_t ol = kth_rank1(w, lv, l), orr = kth_rank1(w, lv, r);
		size_t zl = l - ol, zr = r - orr;
		if (k < zr - zl) {
			l = zl;
			r = zr;
		} else {
			k -= zr - zl;
			l = w->zeros[lv] + ol;
			r = w->zeros[lv] + orr;
			val |= (size_t)1 << lv;
		}
	}
	return w->vals[val];
}

gf_ns actx_kth_median(const struct actx_kth *w, size_t l, size_t r)
{
	size_t m = r > l ? r - l : 0;
	if (!m)
		return 0;
	if (m & 1)
		return actx_kth_at(w, l, r, m / 2);
	return mid2(actx_kth_at(w, l, r, m / 2 - 1), actx_kth_at(w, l, r, m / 2));
}

void actx_kth_release(struct actx_kth *w)
{
	for (unsigned lv = 0; lv < w->levels; lv++) {
		free(w->bits ? w->bits[lv] : NULL);
		free(w->ones ? w->ones[lv] : NULL);
	}
	free(w->bits);
	free(w->ones);
	free(w->zeros);
	free(w->vals);
	memset(w, 0, sizeof *w);
}

gf_ns actx_next_busy(const struct actx *c, gf_ns ts)
{
	size_t i = actx_busy_after(c, ts);
	if (i >= c->nbusy)
		return INT64_MAX;
	if (c->busy[2 * i] <= ts)
		return -1;
	return c->busy[2 * i];
}

uint32_t actx_site(const struct actx *c, uint32_t ri)
{
	if (c->site_pref)
		return c->site_pref[ri] != TRACE_NONE ? c->site_pref[ri] : c->site_src[ri];
	return site_walk(c->t, ri);
}

/* The definition, by walking the parent chain (before actx_init). */
static uint32_t site_walk(const struct trace *t, uint32_t ri)
{
	uint32_t fallback = TRACE_NONE;
	for (uint32_t i = ri; i != TRACE_NONE; i = t->r[i].parent) {
		if (t->r[i].kind != TR_PYTHON)
			continue;
		size_t pl;
		if (!names_py_source(pool_str(t->names, t->r[i].name), pool_len(t->names, t->r[i].name), &pl))
			continue;
		if (fallback == TRACE_NONE)
			fallback = i;
		if (!names_in_torch(pool_str(t->names, t->r[i].name), pl))
			return i;
	}
	return fallback;
}

static gf_ns mid2(gf_ns a, gf_ns b);

gf_ns actx_median(gf_ns *v, size_t n)
{
	if (!n)
		return 0;
	actx_sort_ns(v, n);
	if (n & 1)
		return v[n / 2];
	return mid2(v[n / 2 - 1], v[n / 2]);
}

/* The value at 0-based position k of the multiset (v sorted). */
static gf_ns wval_at(const struct actx_wval *v, size_t n, uint64_t k)
{
	for (size_t i = 0; i < n; i++) {
		if (k < v[i].w)
			return v[i].v;
		k -= v[i].w;
	}
	return n ? v[n - 1].v : 0;
}

gf_ns actx_wmedian(struct actx_wval *v, size_t n)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += v[i].w;
	if (!total)
		return 0;
	sort_wval(v, n);
	if (total & 1)
		return wval_at(v, n, total / 2);
	return mid2(wval_at(v, n, total / 2 - 1), wval_at(v, n, total / 2));
}

void actx_cover_init(struct actx_cover *cv, const struct steps_result *st)
{
	cv->n = 0;
	cv->starts = gf_xmalloc((st->n ? st->n : 1) * sizeof *cv->starts);
	cv->ends = gf_xmalloc((st->n ? st->n : 1) * sizeof *cv->ends);
	for (size_t i = 0; i < st->n; i++) {
		if (st->rows[i].warmup && st->nsteady)
			continue;
		cv->starts[cv->n] = st->rows[i].start;
		cv->ends[cv->n] = st->rows[i].end;
		cv->n++;
	}
	actx_sort_ns(cv->starts, cv->n);
	actx_sort_ns(cv->ends, cv->n);
}

size_t actx_count_le(const gf_ns *v, size_t n, gf_ns ts)
{
	size_t l = 0, h = n;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (v[m] <= ts)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

uint64_t actx_cover_at(const struct actx_cover *cv, gf_ns ts)
{
	/* windows started by ts minus those ended by ts (start <= end) */
	size_t a = actx_count_le(cv->starts, cv->n, ts), b = actx_count_le(cv->ends, cv->n, ts);
	return a > b ? a - b : 0;
}

uint64_t actx_cover_next(const struct actx_cover *cv, struct actx_cover_sweep *sw, gf_ns ts)
{
	if (!sw->started || ts < sw->last) {
		sw->a = actx_count_le(cv->starts, cv->n, ts);
		sw->b = actx_count_le(cv->ends, cv->n, ts);
		sw->started = true;
	} else {
		while (sw->a < cv->n && cv->starts[sw->a] <= ts)
			sw->a++;
		while (sw->b < cv->n && cv->ends[sw->b] <= ts)
			sw->b++;
	}
	sw->last = ts;
	return sw->a > sw->b ? sw->a - sw->b : 0;
}

void actx_cover_release(struct actx_cover *cv)
{
	free(cv->starts);
	free(cv->ends);
	memset(cv, 0, sizeof *cv);
}

static gf_ns mid2(gf_ns a, gf_ns b)
{
	/* (a + b) / 2 without overflow, half to even */
	gf_ns s = a / 2 + b / 2, r = a % 2 + b % 2; /* r in -2..2 */
	if (r == 2)
		s += 1;
	else if (r == -2)
		s -= 1;
	else if (r == 1 || r == -1) {
		/* exactly .5 away: round to even */
		if (s % 2 != 0)
			s += r;
	}
	return s;
}

/* ---- a map from a 64-bit key to two sums (actx.h) ---------------------- */

struct actx_cslot *actx_cmap_get(struct actx_cmap *m, uint64_t key)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 64;
		struct actx_cslot *ns_ = gf_xcalloc(nc, sizeof *ns_);
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->s[i].used)
				continue;
			size_t h = gf_hash_u64(m->s[i].key) & (nc - 1);
			while (ns_[h].used)
				h = (h + 1) & (nc - 1);
			ns_[h] = m->s[i];
		}
		free(m->s);
		m->s = ns_;
		m->cap = nc;
	}
	size_t h = gf_hash_u64(key) & (m->cap - 1);
	while (m->s[h].used && m->s[h].key != key)
		h = (h + 1) & (m->cap - 1);
	if (!m->s[h].used) {
		m->s[h].used = true;
		m->s[h].key = key;
		m->n++;
	}
	return &m->s[h];
}

void actx_cmap_add(struct actx_cmap *m, uint64_t key, gf_ns a, gf_ns b)
{
	struct actx_cslot *s = actx_cmap_get(m, key);
	s->a += a;
	s->b += b;
}

void actx_cmap_free(struct actx_cmap *m)
{
	free(m->s);
	memset(m, 0, sizeof *m);
}
