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
 * many steps hold the same kernels, plus its collectives' pieces.
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

/*
 * A step's busy time split exactly: busy = compute + overlap + exposed,
 * where busy is the step table's (the union of every activity of the
 * device in the step), comm = overlap + exposed, and compute = busy - comm
 * (busy time with no communication kernel running: kernels, copies and
 * memsets). The steady row is the mean of each column over the steady
 * steps, compute taken as the remainder so that the row still adds up.
 */
struct comm_row {
	gf_ns comm, overlap, exposed;
	gf_ns wall, busy, compute;
};

/*
 * Exposed time per collective (the steady steps' sums; divide by nsteady
 * for a mean per step). Each ns of the communication union belongs to the
 * communication kernel that started first among those running then (ties:
 * the table's activity order), so the rows' comm adds up to the union's
 * and their exposed to the steps' exposed. A row is one (collective kind,
 * stream): the kind from the launching call's annotation or c10d op
 * (nccl:all_reduce, c10d::allreduce_), else from the kernel's name
 * (ncclKernel_AllReduce_...), else unknown (ncclDevKernel_Generic launched
 * before the window); names.h names_coll_kind.
 */
struct comm_coll {
	int kind;                  /* enum names_coll */
	int32_t stream;            /* -1 unknown */
	char *kernel;              /* its kernel with the most exposed time (its own copy) */
	uint64_t calls;            /* its kernels starting in a steady step (each step counts) */
	gf_ns comm, exposed;       /* Σ over steady steps */
	gf_ns top_exposed;         /* that kernel's exposed time */
	int64_t nelems;            /* that kernel's message ("In msg nelems"; KEV_NONE: the trace has none) */
	char *dtype;               /* and its element type ("Float"; its own copy; NULL: none) */
};

struct comm_result {
	uint64_t kernels;          /* comm kernels on the device (whole trace) */
	struct comm_row *rows;     /* parallel to the step rows */
	size_t n;
	struct comm_row steady;    /* mean over steady steps */
	size_t nsteady;            /* the steps the steady row and the collectives are over */
	struct comm_coll *coll;    /* by exposed, then comm, descending; then kind, stream */
	size_t ncoll;
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
