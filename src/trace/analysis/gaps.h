/*
 * gaps.h — why the GPU idles: the queue-aware gap model. Every idle interval
 * of the analysed device inside each step gets one cause per piece, from
 * evidence in the trace (docs/report.md "The gap model"), plus the
 * launch-to-start latency and the launch-bound diagnosis.
 *
 * An idle gap is [a, b) between busy pairs of the device (actx.h; a = -inf
 * before the first, b = +inf after the last). For a finite b, N is the
 * first activity starting at b (lowest index), L its launching call, i =
 * L.start. Each piece of a gap is:
 *   edge      a = -inf or b = +inf (the window's leading or trailing edge),
 *             or N was launched before the window (TAF_BEFORE): never code
 *   launch    else a, b finite and b - a < 30 us (HTA's
 *             consecutive_kernel_delay): launch overhead, the whole gap
 *   queued    else L none (no launch in the trace), or i <= a (issued before
 *             the GPU went idle): the whole gap; else the device side
 *             [h, b), h = min(i, b), when b - i >= 30 us
 *   launch    ... the device side [h, b) when b - i < 30 us
 *             (launch-to-start latency)
 *   sync      the host side [a, h) when a blocking call B (actx.h, any host
 *             thread) has B.start < a <= B.end <= h: it was called while the
 *             device still had work and returned after the work ran out
 *             (smallest B.end, then lowest index); charged to B's Python site
 *   host      else the host side, split over time by the innermost range
 *             open on L's thread, keyed "Python site > innermost range" ...
 *   untraced  ... where no range (or only the step marker) was open
 * edge + sync + host + untraced + queued + launch = idle, per step, exactly.
 * A queued piece is labelled by the latest wait-event call (NAMES_API_WAIT)
 * on L's thread after its previous launch call and at or before L.start,
 * "<call> (stream S)", else "stream S: no wait call in the trace", or "no
 * launch in the trace (stream S)" (S = N's stream).
 *
 * For cross-checking, the same gaps are also classified with HTA's rule
 * alone (hta_rule_host: launch started after a; hta_rule_kernel: else gap
 * < 30 us; hta_rule_other), per device in exact ns over every step: not
 * HTA's own per-stream, whole-us figures.
 *
 * Cost: each gap is classified once, on its full extent; the blocking calls
 * scanned for a gap are those ending inside it (gaps are disjoint: linear in
 * all), the wait label of every launch comes from one pass per thread; a
 * step's row is the measure of each cause inside its window, and a key adds
 * its time inside every steady step (actx_span): O(n log n) even when steps
 * nest or overlap.
 *
 * The causes' names, JSON fields and store metrics are causes.h's table;
 * the words about them are the writers' (trace/write/prose.h).
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_GAPS_H
#define GF_GAPS_H

#include "trace/analysis/causes.h"
#include "trace/analysis/steps.h"

struct gap_row {
	gf_ns c[GAP_NCAUSES];                  /* idle by cause (enum gap_cause) */
	gf_ns hta_host, hta_kernel, hta_other; /* the HTA rule (hta_rule_* in JSON) */
};

/* A host stack (Python site > innermost range), a sync site or a queued
 * wait, with the GPU idle time charged to it over the steady steps: the
 * keys of a cause (gaps_result.keys; GAPS_KEYED says which have keys). */
struct gap_key {
	char *label;
	gf_ns ns;
};

/* The sync piece charged to one blocking call, inside the selected steps
 * (each step its own part): syncs' bubble. after = its part from the
 * call's return on (host work after the sync before the next launch);
 * steady = its part inside the steady steps (the gap table's sync sites). */
struct gap_call {
	uint32_t ri;
	gf_ns ns, after, steady;
};

/* One classified piece of idle time (gaps_analyze_pieces): [lo, hi) of the
 * analysed device, its cause (GAP_*), and for a sync piece the blocking call
 * (range index) it is charged to, for a host piece the innermost range open
 * on the launching thread (TRACE_NONE: none). Pieces are disjoint and in
 * time order; inside a step window they sum to its idle time, cause by
 * cause, exactly (they cover the span of the steps, gaps between steps
 * included: clip them to the windows). */
struct gap_piece {
	gf_ns lo, hi;
	uint32_t ri;
	uint8_t cause;
};

struct launch_diag {
	gf_ns kernels_per_step, launches_per_step; /* steady medians (counts) */
	uint64_t kernels, launch_calls;   /* in the steady steps */
	gf_ns median_kernel, median_launch;
	uint64_t short_kernels;           /* kernels shorter than their launch call
					     (call <= 50 us, HTA's runtime_cutoff) */
	uint64_t compared;                /* kernels with a non-graph launch */
	uint64_t graph_launches;          /* in the steady steps */
	gf_ns median_latency;             /* launch-to-start: first linked activity on
					     the device's start - call start, median over
					     the steady steps' launch calls */
	uint64_t latency_launches;        /* launch calls in that median */
	bool launch_bound;
	bool graphs;                      /* the steady steps use graph launches */
};

struct gaps_result {
	struct gap_row *rows;       /* parallel to steps_result.rows */
	size_t n;
	struct gap_row steady;      /* mean over steady steps, ns rounded half to even */
	struct gap_row steady_sum;  /* sum over the steady steps (the keys' shares are of it) */
	size_t nsteady;             /* steps in those (all when none is steady) */
	/* a cause's keys by idle over the steady steps, descending: sync sites
	 * (GAP_SYNC), host stacks (GAP_HOST), queued waits (GAP_QUEUED); the
	 * other causes have none (NULL, 0) */
	struct gap_key *keys[GAP_NCAUSES];
	size_t nkeys[GAP_NCAUSES];
	struct gap_call *calls;     /* blocking calls with a sync piece, by range index */
	size_t ncalls;
	struct launch_diag ld;
	struct gap_piece *pieces;   /* gaps_analyze_pieces only, else NULL */
	size_t npieces;
};

/* @return GF_OK. Only the windows of st are read for the causes (a table
 * built without STEPS_SUMS will do); the launch diagnosis reads its counts. */
int gaps_analyze(const struct actx *c, const struct steps_result *st, struct gaps_result *r);
void gaps_release(struct gaps_result *r);
/* Same as gaps_analyze, and keeps every classified piece (r->pieces) for
 * the exports (trace/write/export_perfetto.h). */
int gaps_analyze_pieces(const struct actx *c, const struct steps_result *st, struct gaps_result *r);
/* The sync piece charged to blocking call ri, or NULL. O(log n). */
const struct gap_call *gaps_call(const struct gaps_result *r, uint32_t ri);

/* x / n rounded half to even (0 when n = 0). */
gf_ns gaps_mean(gf_ns x, size_t n);
/* The sum of a row's causes: the idle time it splits. */
gf_ns gaps_idle(const struct gap_row *g);

/* part / whole in units of 1e-4, rounded half to even (0 when whole <= 0):
 * a key's share of its cause, JSON 4 decimals, text a percentage with 2. */
int64_t gaps_share(gf_ns part, gf_ns whole);

#endif
