/* trace_walk.c — O(log depth) ancestor queries and sweeps (see trace_walk.h). */
#include "trace/model/trace_walk.h"

#include <stdlib.h>
#include <string.h>

_Thread_local unsigned long long trace_walk_steps;

void trace_walk_init(struct trace_walk *w, const struct trace *t)
{
	size_t n = t->nr ? t->nr : 1;
	w->t = t;
	w->jump = gf_xmalloc(n * sizeof *w->jump);
	w->jlen = gf_xmalloc(n * sizeof *w->jlen);
	w->jmax = gf_xmalloc(n * sizeof *w->jmax);
	for (uint32_t x = 0; x < t->nr; x++) {
		uint32_t p = t->r[x].parent;
		gf_ns e = t->r[x].end;
		w->jump[x] = p;
		w->jlen[x] = 1;
		w->jmax[x] = e;
		if (p == TRACE_NONE || p >= x)
			continue; /* a root, or a parent after its child: a plain link */
		uint32_t j = w->jump[p];
		/* two equal segments above: one jump over both (skew-binary) */
		if (j != TRACE_NONE && j < p && w->jlen[p] == w->jlen[j] && w->jlen[p] < UINT32_MAX / 2) {
			w->jump[x] = w->jump[j];
			w->jlen[x] = 1 + w->jlen[p] + w->jlen[j];
			gf_ns m = GF_MAX(w->jmax[p], w->jmax[j]);
			w->jmax[x] = GF_MAX(e, m);
		}
	}
}

void trace_walk_release(struct trace_walk *w)
{
	free(w->jump);
	free(w->jlen);
	free(w->jmax);
	memset(w, 0, sizeof *w);
}

/* First ancestor-or-self q of x with start <= ts < end. A jump is taken when
 * no range it skips ends after ts (then none of them can qualify). */
static uint32_t first_open(const struct trace_walk *w, uint32_t x, gf_ns ts, bool need_start)
{
	const struct trace *t = w->t;
	while (x != TRACE_NONE) {
		trace_walk_steps++;
		const struct trace_range *R = &t->r[x];
		if (R->end > ts && (!need_start || R->start <= ts))
			return x;
		x = w->jmax[x] <= ts ? w->jump[x] : R->parent;
	}
	return TRACE_NONE;
}

uint32_t trace_walk_open_at(const struct trace_walk *w, uint32_t ri, gf_ns ts)
{
	return first_open(w, ri, ts, false);
}

/* The first range in [l, e) of a thread starting after ts (e: none), every
 * range before l starting at or before it: a gallop from l, then a binary
 * search, so a query near the last one costs O(log distance). */
static uint32_t upper_from(const struct trace *t, uint32_t l, uint32_t e, gf_ns ts)
{
	uint32_t h = l;
	uint64_t step = 1;
	while (h < e && t->r[h].start <= ts) {
		l = h + 1;
		h = (uint64_t)(e - h) > step ? h + (uint32_t)step : e;
		step *= 2;
	}
	while (l < h) {
		uint32_t m = l + (h - l) / 2;
		if (t->r[m].start <= ts)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

uint32_t trace_walk_innermost(const struct trace_walk *w, uint32_t th, gf_ns ts)
{
	const struct trace *t = w->t;
	if (th >= t->nth || !t->th[th].n)
		return TRACE_NONE;
	uint32_t first = t->th[th].first, u = upper_from(t, first, first + t->th[th].n, ts);
	/* the last range with start <= ts, then its first ancestor open at ts */
	return u == first ? TRACE_NONE : first_open(w, u - 1, ts, true);
}

/* --- sweep: the stack is `stack[0..sp)` on top of the parent chain from
 * `base`, which a plain sweep would have copied (keeping only the ranges
 * open at lo: the chain is filtered the same way as it is read). --- */

static uint32_t chain_next(const struct trace *t, uint32_t q, gf_ns lo)
{
	for (q = t->r[q].parent; q != TRACE_NONE; q = t->r[q].parent) {
		trace_walk_steps++;
		if (t->r[q].end > lo && t->r[q].start <= lo)
			break;
	}
	return q;
}

void trace_wsweep_restart(struct trace_wsweep *s, const struct trace_walk *w, uint32_t th, gf_ns lo, gf_ns hi,
			  uint32_t *hint)
{
	const struct trace *t = w->t;
	uint32_t *stack = s->stack;
	size_t cap = s->cap;
	memset(s, 0, sizeof *s);
	s->stack = stack;
	s->cap = cap;
	s->t = t;
	s->th = th;
	s->cur = lo;
	s->lo = lo;
	s->hi = hi;
	s->base = TRACE_NONE;
	if (th >= t->nth || !t->th[th].n) {
		s->next = s->end = 0;
		return;
	}
	uint32_t first = t->th[th].first;
	s->end = first + t->th[th].n;
	uint32_t h = *hint;
	/* the hint is a lower bound when the range before it starts by lo */
	if (h < first || h > s->end || (h > first && t->r[h - 1].start > lo))
		h = first;
	s->next = upper_from(t, h, s->end, lo);
	*hint = s->next;
	GF_ASSERT(s->next == trace_range_upper(t, th, lo));
	s->base = s->next == first ? TRACE_NONE : first_open(w, s->next - 1, lo, true);
}

void trace_wsweep_init(struct trace_wsweep *s, const struct trace_walk *w, uint32_t th, gf_ns lo, gf_ns hi)
{
	uint32_t hint = 0; /* no hint: the search starts at the thread's first range */
	memset(s, 0, sizeof *s);
	trace_wsweep_restart(s, w, th, lo, hi, &hint);
}

static inline uint32_t wtop(const struct trace_wsweep *s)
{
	return s->sp ? s->stack[s->sp - 1] : s->base;
}

static inline void wpop(struct trace_wsweep *s)
{
	if (s->sp)
		s->sp--;
	else
		s->base = chain_next(s->t, s->base, s->lo);
}

bool trace_wsweep_next(struct trace_wsweep *s, gf_ns *a, gf_ns *b, uint32_t *r)
{
	const struct trace *t = s->t;
	for (;;) {
		if (s->cur >= s->hi)
			return false;
		uint32_t q;
		/* close ranges that ended */
		while ((q = wtop(s)) != TRACE_NONE && t->r[q].end <= s->cur)
			wpop(s);
		/* open ranges starting now (zero-length ones are skipped) */
		while (s->next < s->end && t->r[s->next].start <= s->cur) {
			const struct trace_range *R = &t->r[s->next];
			if (R->end > s->cur) {
				while ((q = wtop(s)) != TRACE_NONE && t->r[q].end < R->end && t->r[q].end <= s->cur)
					wpop(s);
				if (s->sp == s->cap) {
					s->cap = s->cap ? s->cap * 2 : 64;
					s->stack = gf_xreallocarray(s->stack, s->cap, sizeof *s->stack);
				}
				s->stack[s->sp++] = s->next;
			}
			s->next++;
		}
		q = wtop(s);
		gf_ns nx = s->hi;
		if (q != TRACE_NONE && t->r[q].end < nx)
			nx = t->r[q].end;
		if (s->next < s->end && t->r[s->next].start < nx)
			nx = t->r[s->next].start;
		if (nx <= s->cur)
			continue; /* cannot happen with nested ranges; be safe */
		*a = s->cur;
		*b = nx;
		*r = q;
		s->cur = nx;
		return true;
	}
}

void trace_wsweep_release(struct trace_wsweep *s)
{
	free(s->stack);
	s->stack = NULL;
	s->sp = s->cap = 0;
}
