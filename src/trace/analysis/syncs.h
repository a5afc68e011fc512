/*
 * syncs.h — the hidden-sync finder over a trace: every blocking host call,
 * grouped by the user's Python line, the aten op that caused it and the API,
 * ranked by the GPU idle time it causes.
 *
 * Blocking calls are actx.h's (TRF_SYNC calls, async device-to-host copies
 * into pageable memory, and async host-to-device copies from pageable
 * memory that the trace shows drained the device). For each one, inside the
 * selected steps (or the whole trace when it has no step markers):
 *   site    actx_site(): innermost Python source frame not inside torch,
 *           "file.py(line): function"; "[no Python frame]" without one
 *   op      the op that asked for the value: the outermost cpu_op of the
 *           call's enclosing op chain whose name is a known syncing op
 *           (aten::is_nonzero, aten::item, aten::_local_scalar_dense,
 *           aten::nonzero, aten::to, aten::_to_copy, aten::copy_, ...), else
 *           the innermost enclosing cpu_op, else "-"
 *   api     the blocking call's name (cudaStreamSynchronize, ...)
 *   copy    the device-to-host async copy call that precedes the sync inside
 *           the same op (the .item() / .cpu() signature), else NULL
 *   wait    host time inside the blocking call(s)
 *   bubble  the idle the call exposes (gaps.h): when it returned into an
 *           idle gap of the device it had waited on while the device was
 *           busy, the idle from the moment the device's work ran out until
 *           the next work was issued, at most the call's wait while the
 *           device was busy (the lead the host threw away), inside the
 *           selected steps (each step its own part); 0 when the call
 *           drained nothing. The gap table's `sync` cause is something
 *           else: the idle while the issuing thread is inside a blocking
 *           call.
 * A site is one row per (Python site, op) when there is a Python site (a
 * .tolist() that copies then synchronises is one row, one fix), else per
 * (op, api). Sites are ranked by bubble, then wait, then count.
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_SYNCS_H
#define GF_SYNCS_H

#include "trace/analysis/steps.h"

/* Fix patterns: the advice's key (the words: trace/write/prose.h). */
enum sync_fix {
	SF_ITEM = 0,     /* .item() */
	SF_BOOL,         /* if t: / is_nonzero */
	SF_NONZERO,      /* nonzero, masked indexing */
	SF_TO_HOST,      /* .cpu() / .tolist() / .to("cpu") */
	SF_TO_DEVICE,    /* blocking host-to-device copy */
	SF_DEVICE_SYNC,  /* torch.cuda.synchronize() */
	SF_EVENT_SYNC,   /* event.synchronize() */
	SF_STREAM_SYNC,  /* stream.synchronize() */
	SF_PAGEABLE,     /* async copy with pageable memory */
	SF_H2D_INPUT,    /* a host-to-device input copy from pageable memory that waited */
	SF_FREE,         /* cudaFree/hipFree: waits for the device */
	SF_COUNT_
};

struct sync_site {
	uint32_t site;       /* range index of the Python frame, TRACE_NONE */
	uint32_t op;         /* range index of one instance's op (for its name), TRACE_NONE */
	char *site_name;     /* "file.py(line): function" or "[no Python frame]" */
	char *op_name;       /* "aten::item" or "-" */
	char *op_chain;      /* "aten::is_nonzero > aten::item > aten::_local_scalar_dense" */
	char *api;
	char *copy;          /* "cudaMemcpyAsync" or NULL */
	bool pageable;       /* an async copy made blocking by pageable memory */
	uint64_t count;
	gf_ns wait, bubble;
	gf_ns max_wait;
	int fix;             /* enum sync_fix */
	gf_ns after;         /* of bubble, the part after the calls returned */
	gf_ns bubble_steady; /* of bubble, the part inside the steady steps */
	bool host_work_after; /* after > 30 us per call: host work follows the sync before the next launch */
};

struct syncs_result {
	struct sync_site *sites;   /* ranked */
	size_t nsites;
	uint64_t count;            /* blocking calls (grouped instances) */
	gf_ns wait, bubble;        /* totals */
	size_t nsteady;            /* steady steps (bubble_steady / nsteady: the per-step bubble) */
	size_t nsteps;             /* steps the counts are over (1 for the whole trace) */
};

/* Analyses the blocking calls inside the rows of st (their windows); gp is
 * the gap model over the same rows (the bubbles). @return GF_OK. */
struct gaps_result;
int syncs_analyze(const struct actx *c, const struct steps_result *st, const struct gaps_result *gp,
		  struct syncs_result *r);
void syncs_release(struct syncs_result *r);

#endif
