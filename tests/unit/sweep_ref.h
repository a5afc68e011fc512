/*
 * sweep_ref.h — the plain segment sweep, kept as the tests' reference for
 * model/trace_walk.h's trace_wsweep (which the commands use: it starts in
 * O(log depth) instead of copying the open stack). Same contract: walks
 * [lo, hi) of one thread and yields maximal segments [a, b) with the
 * innermost open range r (TRACE_NONE where none is open); segments are
 * contiguous, cover [lo, hi) exactly and have a < b. O(ranges in the window
 * + depth).
 */
#ifndef GF_SWEEP_REF_H
#define GF_SWEEP_REF_H

#include "trace/model/trace.h"

#include <stdlib.h>
#include <string.h>

struct trace_sweep {
	const struct trace *t;
	uint32_t th, next, end;  /* next range to open; one past the thread's last */
	gf_ns cur, hi;
	uint32_t *stack;
	size_t sp, cap;
};

static void trace_sweep_init(struct trace_sweep *s, const struct trace *t, uint32_t th, gf_ns lo, gf_ns hi)
{
	memset(s, 0, sizeof *s);
	s->t = t;
	s->th = th;
	s->cur = lo;
	s->hi = hi;
	if (th >= t->nth || !t->th[th].n) {
		s->next = s->end = 0;
		return;
	}
	s->end = t->th[th].first + t->th[th].n;
	s->next = trace_range_upper(t, th, lo); /* first range starting after lo */
	/* open stack at lo: ancestors of the innermost range enclosing lo */
	uint32_t in = trace_innermost(t, th, lo);
	if (in != TRACE_NONE) {
		size_t d = trace_ancestors(t, in, NULL, 0);
		s->cap = d + 16;
		s->stack = gf_xmalloc(s->cap * sizeof *s->stack);
		trace_ancestors(t, in, s->stack, s->cap);
		/* keep only those open at lo (python re-parenting may skip frames) */
		size_t k = 0;
		for (size_t i = 0; i < d; i++)
			if (t->r[s->stack[i]].end > lo && t->r[s->stack[i]].start <= lo)
				s->stack[k++] = s->stack[i];
		s->sp = k;
	}
}

static bool trace_sweep_next(struct trace_sweep *s, gf_ns *a, gf_ns *b, uint32_t *r)
{
	const struct trace *t = s->t;
	for (;;) {
		if (s->cur >= s->hi)
			return false;
		/* close ranges that ended */
		while (s->sp && t->r[s->stack[s->sp - 1]].end <= s->cur)
			s->sp--;
		/* open ranges starting now (zero-length ones are skipped) */
		while (s->next < s->end && t->r[s->next].start <= s->cur) {
			const struct trace_range *R = &t->r[s->next];
			if (R->end > s->cur) {
				/* nesting guarantees R is inside the top; pop anything it outlives */
				while (s->sp && t->r[s->stack[s->sp - 1]].end < R->end &&
				       t->r[s->stack[s->sp - 1]].end <= s->cur)
					s->sp--;
				if (s->sp == s->cap) {
					s->cap = s->cap ? s->cap * 2 : 64;
					s->stack = gf_xreallocarray(s->stack, s->cap, sizeof *s->stack);
				}
				s->stack[s->sp++] = s->next;
			}
			s->next++;
		}
		gf_ns nx = s->hi;
		if (s->sp && t->r[s->stack[s->sp - 1]].end < nx)
			nx = t->r[s->stack[s->sp - 1]].end;
		if (s->next < s->end && t->r[s->next].start < nx)
			nx = t->r[s->next].start;
		if (nx <= s->cur)
			continue; /* cannot happen with nested ranges; be safe */
		*a = s->cur;
		*b = nx;
		*r = s->sp ? s->stack[s->sp - 1] : TRACE_NONE;
		s->cur = nx;
		return true;
	}
}

static void trace_sweep_release(struct trace_sweep *s)
{
	free(s->stack);
	s->stack = NULL;
	s->sp = s->cap = 0;
}

#endif
