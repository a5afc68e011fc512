/*
 * trace_walk.h — ancestor queries and stack sweeps over the trace model
 * (trace/model/trace.h) in O(log depth) instead of O(depth), so analyses that ask
 * once per gap, window or event stay linear on deeply nested traces.
 *
 *   struct trace_walk w;
 *   trace_walk_init(&w, t);                  // O(ranges), 16 bytes per range
 *   uint32_t q = trace_walk_innermost(&w, th, ts);   // = trace_innermost
 *   struct trace_wsweep s;
 *   trace_wsweep_init(&s, &w, th, lo, hi);   // O(log n): no stack copy
 *   while (trace_wsweep_next(&s, &a, &b, &r)) ...
 *   trace_wsweep_release(&s);
 *   trace_walk_release(&w);
 *
 * Many sweeps of one thread at increasing lo (a gap after another):
 * trace_wsweep_restart(&s, &w, th, lo, hi, &hint[th]) keeps the stack's
 * buffer and gallops from the hint instead of two binary searches.
 *
 * The segment sweep: walks [lo, hi) of one thread and yields maximal
 * segments [a, b) with the innermost open range r (TRACE_NONE where none is
 * open); segments are contiguous, cover [lo, hi) exactly and have a < b. Its
 * initial stack is the enclosing range's parent chain, read lazily as
 * ranges close, not copied (tests/unit/sweep_ref.h keeps the plain sweep
 * that copies it, as the tests' reference). Jump pointers: each range keeps one extra
 * ancestor (skew-binary jumps, O(log depth) hops to any ancestor) and the
 * latest end over the ranges that jump skips, so "the first ancestor still
 * open at ts" needs no walk. The model guarantees a parent comes before its
 * children in t->r (same thread, earlier start); a range breaking that is
 * treated as a root of the jumps (answers stay right, only slower).
 *
 * trace_walk_steps counts parent hops made by these queries (tests assert
 * that the work is linear); per thread, as the analyses may run on two.
 *
 * Layer: trace/model. Never prints.
 */
#ifndef GF_TRACE_WALK_H
#define GF_TRACE_WALK_H

#include "trace/model/trace.h"

struct trace_walk {
	const struct trace *t;
	uint32_t *jump;   /* per range: an ancestor (TRACE_NONE), skew-binary */
	uint32_t *jlen;   /* ranges from r (included) up to jump (excluded) */
	gf_ns *jmax;      /* the latest end among those ranges */
};

extern _Thread_local unsigned long long trace_walk_steps;

void trace_walk_init(struct trace_walk *w, const struct trace *t);
void trace_walk_release(struct trace_walk *w);

/* Same as trace_innermost(t, th, ts). */
uint32_t trace_walk_innermost(const struct trace_walk *w, uint32_t th, gf_ns ts);

/* First ancestor-or-self of ri (parent chain) with end > ts, TRACE_NONE. */
uint32_t trace_walk_open_at(const struct trace_walk *w, uint32_t ri, gf_ns ts);

/* The segment sweep (above), without an O(depth) copy of the open stack at lo. */
struct trace_wsweep {
	const struct trace *t;
	uint32_t th, next, end;  /* next range to open; one past the thread's last */
	gf_ns cur, hi, lo;
	uint32_t base;           /* top of the initial chain (parent links), TRACE_NONE */
	uint32_t *stack;         /* ranges opened since, above base */
	size_t sp, cap;
};
void trace_wsweep_init(struct trace_wsweep *s, const struct trace_walk *w, uint32_t th, gf_ns lo, gf_ns hi);
/* The same sweep, keeping S's stack buffer (S zeroed before its first
 * use) and starting the search for lo at *HINT (a range index of TH, or
 * anything else), which it then sets: a caller sweeping one thread at
 * increasing lo pays O(log distance) a sweep, not O(log n). */
void trace_wsweep_restart(struct trace_wsweep *s, const struct trace_walk *w, uint32_t th, gf_ns lo, gf_ns hi,
			  uint32_t *hint);
bool trace_wsweep_next(struct trace_wsweep *s, gf_ns *a, gf_ns *b, uint32_t *r);
void trace_wsweep_release(struct trace_wsweep *s);

#endif
