/*
 * trace_coll.h — the communication args of NCCL kernels (struct trace_coll,
 * trace.h) while the model is built: trace_add_event notes every cpu_op and
 * kernel that carries a process group or a collective name, trace_finish
 * resolves them once the ranges are sorted and nested and the kernels
 * linked to their launches. Private to trace.c and trace_coll.c.
 *
 * Layer: trace/model.
 */
#ifndef GF_TRACE_COLL_H
#define GF_TRACE_COLL_H

#include "base/vec.h"
#include "trace/model/trace.h"

/* An event with communication args, before the arrays are sorted. */
struct trace_coll_note {
	gf_ns start;
	int64_t corr;        /* kernels: their correlation */
	uint32_t name;
	uint32_t thread;     /* ops: their thread; kernels: TRACE_NONE */
	int16_t device;
	struct trace_coll c; /* c.act unused here */
};

typedef VEC(struct trace_coll_note) trace_coll_notes;

/* Whether e carries communication args; notes them (thread: the op's
 * thread, TRACE_NONE for a kernel). */
void trace_coll_add(trace_coll_notes *v, const struct kev *e, uint32_t thread, int16_t device);

/* After sorting, nesting and linking: fills t->coll (by act) from the
 * notes; frees nothing of v. */
void trace_coll_resolve(struct trace *t, const trace_coll_notes *v);

#endif
