#include "trace/write/export_threads.h"

#include "base/vec.h"

#include <stdlib.h>
#include <string.h>

struct export_threads_it {
	const struct trace *t;
	uint32_t th;
	uint32_t next;          /* next range of the thread to open (0..n) */
	VEC(uint32_t) open;     /* open ranges, innermost last */
	char *name;
};

static void it_rewind(void *ctx)
{
	struct export_threads_it *it = ctx;
	it->next = 0;
	it->open.n = 0;
}

static bool it_next(void *ctx, struct export_stacks_event *ev)
{
	struct export_threads_it *it = ctx;
	const struct trace *t = it->t;
	const struct trace_thread *th = &t->th[it->th];
	const struct trace_range *nr = it->next < th->n ? &t->r[th->first + it->next] : NULL;
	/* close the innermost open range when it ends before the next opens */
	if (it->open.n) {
		const struct trace_range *top = &t->r[it->open.v[it->open.n - 1]];
		if (!nr || top->end <= nr->start) {
			it->open.n--;
			ev->open = false;
			ev->name = pool_str(t->names, top->name);
			ev->len = pool_len(t->names, top->name);
			ev->at = top->end - t->win_start;
			return true;
		}
	}
	if (!nr)
		return false;
	uint32_t ri = th->first + it->next++;
	vec_push(&it->open, ri);
	ev->open = true;
	ev->name = pool_str(t->names, nr->name);
	ev->len = pool_len(t->names, nr->name);
	ev->at = nr->start - t->win_start;
	return true;
}

void export_threads_init(struct export_threads *x, const struct trace *t)
{
	memset(x, 0, sizeof *x);
	size_t n = 0;
	bool pids = false;
	for (uint32_t i = 0; i < t->nth; i++) {
		n += t->th[i].n > 0;
		pids |= t->th[i].pid != t->th[0].pid;
	}
	x->ev = gf_xcalloc(n ? n : 1, sizeof *x->ev);
	x->it = gf_xcalloc(n ? n : 1, sizeof *x->it);
	for (uint32_t i = 0; i < t->nth; i++) {
		const struct trace_thread *th = &t->th[i];
		if (!th->n)
			continue;
		struct export_threads_it *it = &x->it[x->n];
		struct export_stacks_evented *e = &x->ev[x->n++];
		it->t = t;
		it->th = i;
		struct sbuf nm = SBUF_INIT;
		if (th->tid != KEV_NONE)
			sbuf_addf(&nm, "thread (%lld)", (long long)th->tid);
		else
			sbuf_addf(&nm, "thread %u", i);
		if (th->name != TRACE_NONE)
			sbuf_addf(&nm, ": %s", pool_str(t->names, th->name));
		if (pids && th->pid != KEV_NONE)
			sbuf_addf(&nm, " [pid %lld]", (long long)th->pid);
		it->name = sbuf_detach(&nm, NULL);
		gf_ns lo = INT64_MAX, hi = INT64_MIN;
		for (uint32_t k = 0; k < th->n; k++) {
			const struct trace_range *r = &t->r[th->first + k];
			lo = r->start < lo ? r->start : lo;
			hi = r->end > hi ? r->end : hi;
		}
		e->name = it->name;
		e->start = lo - t->win_start;
		e->end = hi - t->win_start;
		e->ctx = it;
		e->next = it_next;
		e->rewind = it_rewind;
	}
}

void export_threads_release(struct export_threads *x)
{
	for (size_t i = 0; i < x->n; i++) {
		vec_free(&x->it[i].open);
		free(x->it[i].name);
	}
	free(x->it);
	free(x->ev);
	memset(x, 0, sizeof *x);
}
