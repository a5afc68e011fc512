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
 * Collectives (for the straggler among ranks, ranks/ranks.h): the comm
 * kernels of a rank starting inside its selected steps (each kernel once,
 * even where steps nest or overlap), with the process group, collective and
 * sequence number the trace gives them (trace.h: struct trace_coll).
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

/* One collective instance of one rank: a comm kernel with the
 * communication args the model found for it (trace.h: struct trace_coll;
 * pool ids TRACE_NONE and integers KEV_NONE when absent). */
struct coll {
	uint32_t name;    /* the kernel's pool id */
	uint32_t group;   /* process group name (kev.pg_name) */
	uint32_t desc, ranks, coll, dtype; /* its description, rank list, collective name, dtype */
	int64_t seq;      /* Seq as written */
	int64_t nelems, group_size;
	int64_t step;     /* number of the first selected step holding its start */
	gf_ns enqueue;    /* start of its launching call, KEV_NONE when unattributed */
	gf_ns start, dur;
};

/* The rank's collectives: its comm kernels starting inside any of its step
 * rows, each once (steps that nest or overlap do not repeat a kernel), by
 * start, with their group, collective and sequence number when the trace
 * has them. O(n log n + steps log steps). Caller frees *out. */
void comm_collectives(const struct actx *c, const struct steps_result *st, struct coll **out,
		      size_t *n);

#endif
