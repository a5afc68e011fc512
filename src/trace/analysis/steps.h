/*
 * steps.h — the per-step table: where each step's wall time goes on the GPU.
 *
 * A step is a step-marker range of the trace (ProfilerStep#N, or the
 * --step-marker name), [start, end) as written on the host. When the trace
 * has no marker, the whole trace window is one step (number -1). For each
 * step, on the analysed device (actx.h):
 *   wall        end - start
 *   gpu_busy    |union of all activity intervals of all streams ∩ step|
 *               (HTA's merged kernel intervals, but per step and with memcpy
 *               and memset counted as busy, as nsys gpu_time_util does)
 *   kernel      Σ |kernel ∩ step|   (a sum: concurrent streams add up)
 *   memcpy      Σ |memcpy ∩ step|;  memset likewise
 *   idle        wall - gpu_busy
 *   syncs       blocking calls (actx.h) starting in the step, any host thread
 *   sync_wait   their durations (whole, even past the step end)
 *   launches    runtime/driver calls starting in the step that launched GPU
 *               work (trace.h TRF_LAUNCH: kernels, graphs, memcpy, memset)
 *   graph_launches  of which graph launches
 *   kernels     kernels on the device starting in the step
 *   median_kernel   median duration of those kernels
 *
 * Selection: trace_sel (--steps A..B keeps steps numbered A..B, then --skip N
 * drops the first N of those). Warm-up: the longest prefix of the kept steps whose walls
 * all exceed 1.5x the median wall of the kept steps (at most half of them)
 * is flagged warm-up. The steady state is the per-column median over the
 * non-warm-up steps (all steps when every one is warm-up).
 *
 * Cost: O((events + steps) log n) even when steps nest or overlap (every
 * window holding most of the trace): sums, counts and the busy union come
 * from prefix sums, the median kernel from a copy of each step's kernels
 * when the steps hold each kernel about once (disjoint steps: linear in
 * all), else from a range query (actx_kth), so no step of a nested or
 * overlapping table visits its own events. steps_row is the plain definition (a visit of
 * the window), kept for tests and the whole-trace row.
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_STEPS_H
#define GF_STEPS_H

#include "trace/analysis/actx.h"
#include "trace/model/trace_sel.h"

/* Warm-up threshold: wall > (num / den) x median wall. */
#define STEPS_WARM_NUM 3
#define STEPS_WARM_DEN 2

struct step_row {
	int64_t number;     /* N of ProfilerStep#N; -1 for the whole trace */
	uint32_t step;      /* index into t->steps, TRACE_NONE for the whole trace */
	gf_ns start, end;
	gf_ns wall, busy, kernel, memcpy, memset, idle, sync_wait;
	uint64_t syncs, launches, graph_launches, kernels;
	gf_ns median_kernel;
	bool warmup;
};

struct steps_result {
	struct step_row *rows;
	size_t n;
	bool whole_trace;     /* no step markers: one row for the trace window */
	size_t nwarm, nsteady;
	struct step_row steady; /* per-column medians over steady steps (number = -1) */
	uint64_t dropped;     /* markers outside --steps or skipped */
	uint64_t empty;       /* selected markers of zero duration, left out (not steady: issue 24) */
};

/*
 * Builds the table over the steps o selects (trace_sel_pick; a trace
 * without steps is one whole-trace row whatever o says). @return GF_OK, or
 * GF_EUSAGE with trace_sel_pick's message when o keeps no step.
 */
int steps_analyze(const struct actx *c, const struct trace_sel *o, struct steps_result *r,
		  struct sbuf *err);
/* What steps_analyze_part computes beyond the windows (number, step,
 * start, end, wall, warm-up: always). */
#define STEPS_SUMS 1u   /* every other column but median_kernel */
#define STEPS_MEDIAN 2u /* median_kernel (with STEPS_SUMS) */

/* The same table, only what asks: the columns not asked are 0 (also in the
 * steady row). Without STEPS_MEDIAN it skips the kernels' durations (the
 * costliest part) for callers that never print them or fill them later
 * (steps_medians); without STEPS_SUMS (syncs: only the windows) no
 * prefix sums are built. steps_analyze is STEPS_SUMS | STEPS_MEDIAN. */
int steps_analyze_part(const struct actx *c, const struct trace_sel *o, unsigned what,
		       struct steps_result *r, struct sbuf *err);
/* Fills the median_kernel of a table built with STEPS_SUMS alone (its rows
 * and the steady row's; nothing else is written, so it may run on another
 * thread while others read the rest of r). */
void steps_medians(const struct actx *c, struct steps_result *r);
void steps_release(struct steps_result *r);

/* Where a time falls among the rows (which are by start): steps_pmax gives
 * the prefix maxima of their ends (caller frees; NULL when there is no
 * row), steps_row_at the index of the first row whose window holds ts (an
 * outer step before the steps it nests), or -1. O(log n) a query. */
gf_ns *steps_pmax(const struct steps_result *r);
long steps_row_at(const struct steps_result *r, const gf_ns *pmax, gf_ns ts);

/* Fills one row for the window [lo, hi) (used for steps and tests). */
void steps_row(const struct actx *c, gf_ns lo, gf_ns hi, struct step_row *row);

#endif
