/*
 * report.h — everything `gpuflame report` says about one trace (one rank):
 * the step table, gap causes, hidden syncs, launch diagnosis, NCCL, the top
 * calls per step, and the one-sentence verdict built from them.
 *
 *   struct report r;
 *   report_build(&r, &actx, &opts, &err);   // runs steps, gaps, syncs, comm
 *   ... write/report_out.h renders it ...
 *   report_release(&r);
 *
 * Verdict rules (docs/report.md):
 *  - no GPU activity: says so;
 *  - GPU busy >= 90% of the steady step: GPU-bound, look at the kernels;
 *  - else "GPU busy B of W ms per step (P%); I ms are gaps: " followed by the
 *    causes (gaps.h) largest first, each named by its top site (the sync's
 *    Python line, the host stack), causes under 1% of the step merged into
 *    "other". report.action holds the next step for the largest cause.
 *
 * Layer: analyze. Never prints.
 */
#ifndef GF_REPORT_H
#define GF_REPORT_H

#include "trace/analysis/comm.h"
#include "trace/analysis/gaps.h"
#include "trace/analysis/syncs.h"

#define REPORT_TOP_CALLS 10

struct top_call {
	uint32_t name;     /* pool id */
	uint8_t kind;      /* enum trange_kind */
	uint64_t count;    /* over the steady steps */
};

struct report_opts {
	struct steps_opts steps;
	gf_ns unprofiled_ns;   /* --unprofiled-step-ms, -1 when absent */
	gf_ns expect_ns;       /* --expect-ms, -1 when absent */
};

struct report {
	const struct actx *c;
	struct steps_result st;
	struct gaps_result gp;
	struct syncs_result sy;
	struct comm_result cm;
	struct top_call top[REPORT_TOP_CALLS];
	size_t ntop;
	gf_ns unprofiled_ns, expect_ns;
	char *verdict;       /* one sentence */
	char *action;        /* what to do next, one sentence */
};

void report_opts_init(struct report_opts *o);

/* @return GF_OK, or GF_EUSAGE when the step selection keeps no step. */
int report_build(struct report *r, const struct actx *c, const struct report_opts *o,
		 struct sbuf *err);
void report_release(struct report *r);

/* Appends a duration for prose: "38.0 ms" (>= 1 ms, 1 decimal) or "7.3 us". */
void report_fmt_dur(struct sbuf *b, gf_ns ns);
/* Appends part/whole as a whole percentage, rounded half up ("29%"). */
void report_fmt_pct(struct sbuf *b, gf_ns part, gf_ns whole);

#endif
