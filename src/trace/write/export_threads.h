/*
 * export_threads.h — a trace's host threads as time-ordered profiles for
 * the speedscope export (stacks/export/export_stacks.h: struct
 * export_stacks_evented), one per thread with host ranges.
 *
 *   struct export_threads th;
 *   export_threads_init(&th, &trace);
 *   x.ev = th.ev; x.nev = th.n;        // then export_speedscope_write(&x, ...)
 *   export_threads_release(&th);
 *
 * Each thread's ranges (annotations, Python frames, ops, runtime and driver
 * calls: the model's, nested by time after its clipping, trace.h) open at
 * their start and close at their end, inner ones first; frames are the
 * ranges' names as written. Times are ns from the trace's window start
 * (t->win_start), so they stay exact as speedscope's doubles (below 2^53 ns,
 * 104 days). Named like fold's thread frame: "thread (TID): NAME", with
 * " [pid P]" when the trace has several processes. Iterators hold a stack
 * of open ranges only (at most the thread's depth).
 *
 * Layer: trace/write. Never prints.
 */
#ifndef GF_EXPORT_THREADS_H
#define GF_EXPORT_THREADS_H

#include "stacks/export/export_stacks.h"
#include "trace/model/trace.h"

struct export_threads_it;

struct export_threads {
	struct export_stacks_evented *ev;
	struct export_threads_it *it;
	size_t n;
};

void export_threads_init(struct export_threads *x, const struct trace *t);
void export_threads_release(struct export_threads *x);

#endif
