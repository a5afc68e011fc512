/*
 * gaps.h — why the GPU idles: every idle interval of the analysed device
 * inside each step, by cause, plus the launch-bound diagnosis.
 *
 * An idle interval is a gap in the busy union (actx.h). It is classified on
 * its full extent [a, b) (b = start of the next busy interval), and the part
 * inside the step is charged:
 *   sync      a blocking call (any host thread) returned within [a, b]: the
 *             GPU drained because the host waited, then stayed idle while
 *             the host worked before the next launch (attributed to the
 *             call's Python site)
 *   launch    else b - a < 30 us (HTA's consecutive_kernel_delay): launch
 *             overhead between short kernels
 *   host      else the next activity's launch call started after a (HTA
 *             "host wait"): the host was late; split over time by what the
 *             launching thread was doing (its innermost open range) ...
 *   untraced  ... where no range (or only the step marker) was open there
 *   other     else: the work was queued but waited (cross-stream or event
 *             waits), or no activity follows, or the next one has no launch
 * sync + launch + host + untraced + other = idle, per step, exactly.
 *
 * For cross-checking, the same gaps are also classified with HTA's rule
 * alone (hta_host: launch started after a; hta_kernel: else gap < 30 us;
 * hta_other), per device rather than per stream.
 *
 * Cost: each gap is classified once, on its full extent; a step's row is
 * the measure of each cause inside its window, and a host stack or sync
 * site adds its time inside every steady step (actx_span): O(n log n) even
 * when steps nest or overlap.
 *
 * Layer: analyze. Never prints.
 */
#ifndef GF_GAPS_H
#define GF_GAPS_H

#include "trace/analysis/steps.h"

struct gap_row {
	gf_ns sync, launch, host, untraced, other;
	gf_ns hta_host, hta_kernel, hta_other;
};

/* A host stack (Python site > innermost range) or a sync site, with the GPU
 * idle time charged to it over the steady steps. */
struct gap_key {
	char *label;
	gf_ns ns;
};

struct launch_diag {
	gf_ns kernels_per_step, launches_per_step; /* steady medians (counts) */
	uint64_t kernels, launch_calls;   /* in the steady steps */
	gf_ns median_kernel, median_launch;
	uint64_t short_kernels;           /* kernels shorter than their launch call
					     (call <= 50 us, HTA's runtime_cutoff) */
	uint64_t compared;                /* kernels with a non-graph launch */
	uint64_t graph_launches;          /* in the steady steps */
	bool launch_bound;
	bool graphs;                      /* the steady steps use graph launches */
};

struct gaps_result {
	struct gap_row *rows;       /* parallel to steps_result.rows */
	size_t n;
	struct gap_row steady;      /* mean over steady steps, ns rounded half to even */
	struct gap_key *host;       /* host stacks by idle, over steady steps, descending */
	size_t nhost;
	struct gap_key *sync;       /* sync sites by idle, over steady steps, descending */
	size_t nsync;
	struct launch_diag ld;
};

/* @return GF_OK. */
int gaps_analyze(const struct actx *c, const struct steps_result *st, struct gaps_result *r);
void gaps_release(struct gaps_result *r);

/* The recommendation for a launch-bound step (graphs already used or not). */
const char *gaps_launch_advice(const struct launch_diag *ld);

/* x / n rounded half to even (0 when n = 0). */
gf_ns gaps_mean(gf_ns x, size_t n);

#endif
