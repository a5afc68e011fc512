/*
 * actx.h — analysis context: what the step, gap, sync and comm analyses
 * derive once from a trace model (trace/model/trace.h) and share.
 *
 *  - the analysed device: the one whose activities were launched by the
 *    thread holding the steps, with the most GPU time (ties: lowest index);
 *    other devices of a multi-GPU process are not merged into it;
 *  - per host range: its first linked GPU activity (trace.h links activity
 *    -> launch only), and whether the call blocks the host (ACTX_B_*);
 *  - the longest activity duration, so windows can find activities that
 *    started before them.
 *
 * Blocking calls, the one classification that syncs, the step table (syncs,
 * sync_wait), the gap model (gaps.h: the candidates for `sync`) and the
 * palettes share (c->blk, actx_blocking):
 *  - ACTX_B_SYNC: every range trace.h flags TRF_SYNC (cudaStreamSynchronize,
 *    cudaDeviceSynchronize, cudaEventSynchronize, synchronous cudaMemcpy*,
 *    cu* and hip* equivalents, hipMemcpyWithStream);
 *  - ACTX_B_PAGEABLE: an asynchronous memcpy call whose copy is
 *    device-to-host into pageable memory ("Memcpy DtoH (Device -> Pageable)",
 *    or "Pageable" with no HtoD): CUDA returns from it only once the copy is
 *    done, so it always blocks;
 *  - ACTX_B_PAGEABLE | ACTX_B_H2D: an asynchronous host-to-device copy from
 *    pageable memory, which *may* synchronise: blocking only when the trace
 *    shows it drained the analysed device (busy when the call began, and the
 *    call returned at or after the end of that busy interval); otherwise it
 *    is an ordinary async copy (blk 0).
 *
 * Cost: everything per range is computed once in actx_init in one forward
 * pass (a parent comes before its children), names are classified once per
 * distinct name, so no query walks a parent chain: the analyses stay linear
 * on traces nested 100k deep. With t->cores 2, the jump links and the
 * by-start order are built on a second thread (the results are the same).
 * Sorting int64 keys (actx_sort_ns, actx_sort_kv) checks the order first
 * and merges a few sorted runs or radix-sorts, with no comparator.
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_ACTX_H
#define GF_ACTX_H

#include "trace/model/trace.h"
#include "trace/model/trace_walk.h"

#define ACTX_B_SYNC 1u
#define ACTX_B_PAGEABLE 2u
#define ACTX_B_H2D 4u

/* HTA's consecutive_kernel_delay: a gap shorter than this between queued
 * activities is launch overhead ("kernel wait"). */
#define ACTX_KERNEL_WAIT_NS 30000

struct actx {
	struct trace *t;
	uint32_t dev;          /* index into t->dev, TRACE_NONE when no GPU activity */
	int device;            /* its device number, -1 when none */
	uint32_t *first_act;   /* per range: first linked activity (by start), TRACE_NONE */
	uint8_t *blk;          /* per range: ACTX_B_* bits, 0 = not blocking */
	gf_ns max_act;         /* longest activity on the device */
	const gf_ns *busy;     /* busy union pairs of the device (trace_busy) */
	size_t nbusy;
	uint64_t nblocking;    /* ranges with blk != 0 */
	uint32_t *site_pref;   /* per range: innermost non-torch source frame ancestor-or-self */
	uint32_t *site_src;    /* per range: innermost source frame ancestor-or-self */
	uint32_t *nonrt;       /* per range: nearest strict ancestor not a runtime/driver call */
	struct trace_walk walk; /* O(log depth) sweeps (gaps) */
	gf_ns *endmax;         /* max-tree over the device's activity ends (actx_straddlers) */
	uint32_t *by_start;    /* all host ranges (every thread) by start, then index */
	size_t endleaves;      /* its leaves: a power of two >= t->nact */
	uint64_t *busy_pre;    /* busy_pre[i]: Σ lengths of busy pairs 0..i-1 (mod 2^64) */
};

/* device: a device number to analyse, or -1 for the automatic choice.
 * @return GF_OK, or GF_EUSAGE when the device has no activity. */
int actx_init(struct actx *c, struct trace *t, int device, struct sbuf *err);
void actx_release(struct actx *c);

/* The blocking class of range ri (ACTX_B_* bits, 0 = not blocking). */
static inline unsigned actx_blocking(const struct actx *c, uint32_t ri)
{
	return c->blk[ri];
}

/* True when activity a runs on the analysed device. */
static inline bool actx_on_dev(const struct actx *c, const struct trace_act *a)
{
	return c->dev != TRACE_NONE && a->device == c->device;
}

/* First index of an activity on the device that may overlap [lo, ...):
 * scans back from trace_act_lower(lo) by the longest duration (O(n) per
 * call when one activity is long: prefer actx_straddlers). */
uint32_t actx_act_from(const struct actx *c, gf_ns lo);

/* The activities on the device that start before lo and end after it
 * (start < lo < end), by index, into *v (grown as needed; *cap its size).
 * O((k + 1) log n) for k of them, through a max-tree of the ends: steps cost
 * their own activities, not a scan back by the longest activity.
 * @return k. */
size_t actx_straddlers(const struct actx *c, gf_ns lo, uint32_t **v, size_t *cap);

/* First position in c->by_start whose range starts at or after ts
 * (t->nr when none): the ranges of every thread that start in [lo, hi) are
 * by_start[actx_range_lower(lo) ..] while start < hi, so a window costs its
 * own ranges, not one search per thread. */
uint32_t actx_range_lower(const struct actx *c, gf_ns ts);

/* Length of [a0, a1) ∩ [b0, b1) (0 when disjoint). */
static inline gf_ns actx_overlap(gf_ns a0, gf_ns a1, gf_ns b0, gf_ns b1)
{
	gf_ns lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

/* Index of the first busy interval (c->busy[2i], c->busy[2i+1]) whose end
 * is > ts; c->nbusy when none. */
size_t actx_busy_after(const struct actx *c, gf_ns ts);

/* Busy time of the device inside [lo, hi): O(log n) by prefix sums, so
 * nested or overlapping step windows cost no scan of their pairs. */
gf_ns actx_busy_in(const struct actx *c, gf_ns lo, gf_ns hi);
/* The measure inside [lo, hi) of n sorted disjoint pairs v[2i], v[2i+1]
 * whose prefix sums of lengths are pre[0..n] (mod 2^64), exactly, in
 * O(log n); the one search behind actx_busy_in, actx_pairs_in and comm's. */
gf_ns actx_measure_in(const gf_ns *v, size_t n, const uint64_t *pre, gf_ns lo, gf_ns hi);

/* Start of the first busy interval that starts at or after ts, or -1 when
 * the device is busy at ts (an interval covers ts), or INT64_MAX when no
 * activity follows. */
gf_ns actx_next_busy(const struct actx *c, gf_ns ts);

/*
 * The user's Python site of range ri: the innermost python_function
 * ancestor that is a source frame ("path(line): function", not "<built-in
 * ...>" nor "nn.Module: ...": names_py_source) and not inside torch
 * (names_in_torch), else
 * the innermost source frame, else NULL. @return a range index or TRACE_NONE.
 */
uint32_t actx_site(const struct actx *c, uint32_t ri);

/* The nearest strict ancestor of ri that is not a runtime/driver call
 * (TRACE_NONE). */
static inline uint32_t actx_nonrt_parent(const struct actx *c, uint32_t ri)
{
	return c->nonrt[ri];
}

/* How many of the sorted v[0..n) are <= ts (a binary search). */
size_t actx_count_le(const gf_ns *v, size_t n, gf_ns ts);

/* Sorts v[0..n) ascending: a linear check first (nothing when already in
 * order), else an LSD radix sort on the bytes that differ, O(n) a pass. */
void actx_sort_ns(gf_ns *v, size_t n);

/* A map from a 64-bit key to two sums (open addressing; zeroed = empty):
 * the gap model's charges and keys, the verdict's names and ranges.
 * actx_cmap_get may move the slots: a pointer lives until the next get. */
struct actx_cslot {
	uint64_t key;
	gf_ns a, b;
	bool used;
};
struct actx_cmap {
	struct actx_cslot *s;
	size_t cap, n;
};
struct actx_cslot *actx_cmap_get(struct actx_cmap *m, uint64_t key);
void actx_cmap_add(struct actx_cmap *m, uint64_t key, gf_ns a, gf_ns b);
void actx_cmap_free(struct actx_cmap *m);

/* A key and a value sorted by it (actx_sort_kv). */
struct actx_kv {
	gf_ns k;
	uint64_t v;
};
/* Sorts v[0..n) by key, stable (equal keys keep their order), as actx_sort_ns. */
void actx_sort_kv(struct actx_kv *v, size_t n);

/* Median of v[0..n) (sorts v); the mean of the middle two for even n,
 * rounded half to even; 0 for n = 0. */
gf_ns actx_median(gf_ns *v, size_t n);

/* A value and how many times it counts (actx_wmedian). */
struct actx_wval {
	gf_ns v;
	uint64_t w;
};

/* Median of the multiset where v[i].v appears v[i].w times (sorts v): the
 * same as actx_median of that list written out, in O(n log n) of the
 * distinct entries. */
gf_ns actx_wmedian(struct actx_wval *v, size_t n);

/* Sorted disjoint intervals with prefix sums of their lengths: the length
 * of their union inside any window in O(log n). */
struct actx_pairs {
	gf_ns *v;          /* v[2i], v[2i+1]: interval i */
	size_t n, cap;     /* intervals */
	uint64_t *pre;     /* after actx_pairs_seal: Σ lengths of 0..i-1 (mod 2^64) */
};
/* Appends [a, b) (nothing when b <= a); a must be >= the last end. */
void actx_pairs_add(struct actx_pairs *p, gf_ns a, gf_ns b);
void actx_pairs_seal(struct actx_pairs *p);
/* |(∪ intervals) ∩ [lo, hi)| (sealed). */
gf_ns actx_pairs_in(const struct actx_pairs *p, gf_ns lo, gf_ns hi);
void actx_pairs_release(struct actx_pairs *p);

/* Any intervals (they may overlap): Σ |interval ∩ [lo, hi)| in O(log n),
 * as F(hi) - F(lo) with F(x) = Σ |interval ∩ (-inf, x)| = #starts<x · x -
 * Σ starts<x - (#ends<x · x - Σ ends<x), exact modulo 2^64. */
struct actx_span {
	gf_ns *s, *e;         /* sorted starts, sorted ends (intervals with end > start) */
	uint64_t *ps, *pe;    /* prefix sums */
	size_t n, cap;
};
void actx_span_add(struct actx_span *o, gf_ns a, gf_ns b);
void actx_span_seal(struct actx_span *o);
gf_ns actx_span_in(const struct actx_span *o, gf_ns lo, gf_ns hi);
/* The same measure, searched from where the caller's cursor (zeroed at
 * first) was left: O(1) for queries in time order, O(log n) for any. */
struct actx_span_cur {
	size_t c[4];
};
gf_ns actx_span_in_near(const struct actx_span *o, struct actx_span_cur *cur, gf_ns lo, gf_ns hi);
void actx_span_release(struct actx_span *o);

/* k-th smallest of any range of a fixed list (a wavelet matrix over the
 * values' ranks): O(n log n) to build, O(log n) a query, n log n bits. */
struct actx_kth {
	size_t n;
	unsigned levels;
	uint64_t **bits;   /* per level, bit i of the value's rank, level order */
	uint32_t **ones;   /* per level, ones before each 64-bit word */
	size_t *zeros;     /* per level, zeros in the level */
	gf_ns *vals;       /* distinct values, sorted (rank -> value) */
};
void actx_kth_init(struct actx_kth *w, const gf_ns *v, size_t n);
/* The k-th smallest (0-based, k < r - l) of v[l..r). */
gf_ns actx_kth_at(const struct actx_kth *w, size_t l, size_t r, size_t k);
/* actx_median of v[l..r) without copying it: O(log n). */
gf_ns actx_kth_median(const struct actx_kth *w, size_t l, size_t r);
void actx_kth_release(struct actx_kth *w);

/* Counts how many of a set of windows [start, end) contain a time: the
 * steady steps of st (all steps when none is steady), each counted once. */
struct steps_result;
struct actx_cover {
	gf_ns *starts, *ends;  /* each sorted */
	size_t n;
};
void actx_cover_init(struct actx_cover *cv, const struct steps_result *st);
/* Windows containing ts (start <= ts < end): O(log n). */
uint64_t actx_cover_at(const struct actx_cover *cv, gf_ns ts);
/* actx_cover_at along a sweep: amortised O(1) while ts does not decrease
 * (a binary search when it does, or on the first call; zero sw first). */
struct actx_cover_sweep {
	size_t a, b;   /* windows started by, ended by last */
	gf_ns last;
	bool started;
};
uint64_t actx_cover_next(const struct actx_cover *cv, struct actx_cover_sweep *sw, gf_ns ts);
void actx_cover_release(struct actx_cover *cv);

#endif
