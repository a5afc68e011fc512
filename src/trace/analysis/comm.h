/*
 * comm.h — NCCL communication: its time, its overlap with compute, the
 * communication each step exposes, and the straggler among ranks.
 *
 * On the analysed device, communication = kernels trace.h flags TAF_NCCL
 * ("nccl" in the name: ncclKernel_*, ncclDevKernel_*); computation = every
 * other kernel (memcpy/memset are neither, as in HTA's kernel types).
 *   comm      |union(comm kernels) ∩ step|
 *   overlap   |union(comm) ∩ union(compute) ∩ step|
 *   exposed   comm - overlap: communication the step waits for
 * HTA's get_comm_comp_overlap is the same sweep over the whole trace
 * (hta_comm, hta_overlap; ratio = overlap / comm), without step windows.
 * A step costs O(log n) (prefix sums over the two unions' pieces), however
 * many steps hold the same kernels.
 *
 * Straggler (several traces, one per rank; ranks are never merged): the
 * collectives of each rank are its comm kernels starting inside its selected
 * steps (each kernel once, even where steps nest or overlap),
 * matched across ranks by (kernel name, occurrence number of that name).
 * For each instance found on every rank: min = the shortest duration,
 * each rank's wait = its duration - min; the rank with the shortest duration
 * arrived last (TB plugin / TraceLens / DeepSpeed rule; durations only, so
 * clock offsets between hosts do not matter). The straggler is the rank that
 * arrived last most often (ties: the smallest total wait, then input order).
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_COMM_H
#define GF_COMM_H

#include "trace/analysis/steps.h"

struct comm_row {
	gf_ns comm, overlap, exposed;
};

struct comm_result {
	uint64_t kernels;          /* comm kernels on the device (whole trace) */
	struct comm_row *rows;     /* parallel to the step rows */
	size_t n;
	struct comm_row steady;    /* mean over steady steps */
	gf_ns hta_comm, hta_overlap; /* whole trace */
};

int comm_analyze(const struct actx *c, const struct steps_result *st, struct comm_result *r);
void comm_release(struct comm_result *r);

/* One collective instance of one rank. */
struct coll {
	uint32_t name;   /* pool id (share one pool across the ranks' traces) */
	gf_ns start, dur;
};

/* The rank's collectives: its comm kernels starting inside any of its step
 * rows, each once (steps that nest or overlap do not repeat a kernel), by
 * start. O(n + steps log steps). Caller frees *out. */
void comm_collectives(const struct actx *c, const struct steps_result *st, struct coll **out,
		      size_t *n);

struct strag_rank {
	gf_ns wait;          /* Σ (dur - min) over matched instances */
	uint64_t last;       /* instances where this rank arrived last */
};

struct strag_result {
	size_t nranks;
	struct strag_rank *r;
	uint64_t matched;    /* instances present on every rank */
	uint64_t unmatched;  /* instances missing on some rank */
	long straggler;      /* index into the ranks, -1 when nothing matched */
	bool clear;          /* it arrived last strictly more often than every other rank */
};

/* colls[k][0..ncolls[k]) for rank k. @return GF_OK. */
int comm_straggler(struct coll *const *colls, const size_t *ncolls, size_t nranks,
		   struct strag_result *r);
void comm_straggler_release(struct strag_result *r);

#endif
