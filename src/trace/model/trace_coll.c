/* trace_coll.c — communication args of NCCL kernels (see trace_coll.h). */
#include "trace/model/trace_coll.h"

#include <stdlib.h>
#include <string.h>

void trace_coll_add(trace_coll_notes *v, const struct kev *e, uint32_t thread, int16_t device)
{
	if (e->pg_name == UINT32_MAX && e->coll_name == UINT32_MAX && e->seq == KEV_NONE)
		return;
	struct trace_coll_note *n = vec_add(v);
	memset(n, 0, sizeof *n);
	n->start = e->ts;
	n->corr = e->correlation;
	n->name = e->name;
	n->thread = thread;
	n->device = device;
	n->c.act = TRACE_NONE;
	n->c.pg = e->pg_name;
	n->c.pg_desc = e->pg_desc;
	n->c.pg_ranks = e->pg_ranks;
	n->c.coll = e->coll_name;
	n->c.dtype = e->dtype;
	n->c.seq = e->seq;
	n->c.nelems = e->nelems;
	n->c.group_size = e->group_size;
	n->c.own = thread == TRACE_NONE;
}

/* A range index with the note it carries. */
struct opnote {
	uint32_t range;
	uint32_t note;
};

static int cmp_opnote(const void *a, const void *b)
{
	const struct opnote *x = a, *y = b;
	return (x->range > y->range) - (x->range < y->range);
}

static int cmp_coll(const void *a, const void *b)
{
	const struct trace_coll *x = a, *y = b;
	return (x->act > y->act) - (x->act < y->act);
}

/* The op range a note stands for: same thread, start and name. */
static uint32_t find_op(const struct trace *t, const struct trace_coll_note *n)
{
	if (n->thread >= t->nth)
		return TRACE_NONE;
	const struct trace_thread *th = &t->th[n->thread];
	for (uint32_t i = trace_range_lower(t, n->thread, n->start); i < th->first + th->n; i++) {
		const struct trace_range *r = &t->r[i];
		if (r->start != n->start)
			break;
		if (r->name == n->name && r->kind == TR_OP)
			return i;
	}
	return TRACE_NONE;
}

/* The kernel a note stands for: same start, correlation and name. */
static uint32_t find_act(const struct trace *t, const struct trace_coll_note *n)
{
	for (uint32_t i = trace_act_lower(t, n->start); i < t->nact && t->act[i].start == n->start; i++) {
		const struct trace_act *a = &t->act[i];
		if (a->name == n->name && a->corr == n->corr && a->kind == TA_KERNEL && a->device == n->device)
			return i;
	}
	return TRACE_NONE;
}

/* The note of the innermost enclosing op of range ri, or UINT32_MAX. */
static uint32_t op_note(const struct trace *t, const struct opnote *ops, size_t nops, uint32_t ri)
{
	for (unsigned depth = 0; ri != TRACE_NONE && depth < 256; ri = t->r[ri].parent, depth++) {
		if (t->r[ri].kind != TR_OP)
			continue;
		size_t l = 0, h = nops;
		while (l < h) {
			size_t m = l + (h - l) / 2;
			if (ops[m].range < ri)
				l = m + 1;
			else
				h = m;
		}
		if (l < nops && ops[l].range == ri)
			return ops[l].note;
	}
	return UINT32_MAX;
}

void trace_coll_resolve(struct trace *t, const trace_coll_notes *v)
{
	if (!v->n)
		return;
	VEC(struct opnote) ops = VEC_INIT;
	VEC(struct trace_coll) out = VEC_INIT;
	uint8_t *own = NULL; /* acts that have their own args */
	for (size_t i = 0; i < v->n; i++) {
		const struct trace_coll_note *n = &v->v[i];
		if (n->thread != TRACE_NONE) {
			uint32_t r = find_op(t, n);
			if (r != TRACE_NONE) {
				struct opnote o = { r, (uint32_t)i };
				vec_push(&ops, o);
			}
			continue;
		}
		uint32_t a = find_act(t, n);
		if (a == TRACE_NONE || !(t->act[a].flags & TAF_NCCL))
			continue;
		if (!own)
			own = gf_xcalloc(t->nact, 1);
		if (own[a])
			continue;
		own[a] = 1;
		struct trace_coll c = n->c;
		c.act = a;
		vec_push(&out, c);
	}
	if (ops.n)
		qsort(ops.v, ops.n, sizeof *ops.v, cmp_opnote);
	for (uint32_t a = 0; ops.n && a < t->nact; a++) {
		const struct trace_act *x = &t->act[a];
		if (x->kind != TA_KERNEL || !(x->flags & TAF_NCCL) || x->launch == TRACE_NONE || (own && own[a]))
			continue;
		uint32_t k = op_note(t, ops.v, ops.n, x->launch);
		if (k == UINT32_MAX)
			continue;
		struct trace_coll c = v->v[k].c;
		c.act = a;
		c.own = false;
		vec_push(&out, c);
	}
	if (out.n)
		qsort(out.v, out.n, sizeof *out.v, cmp_coll);
	free(own);
	vec_free(&ops);
	t->coll = out.v;
	t->ncoll = (uint32_t)out.n;
}

const struct trace_coll *trace_coll_of(const struct trace *t, uint32_t ai)
{
	size_t l = 0, h = t->ncoll;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (t->coll[m].act < ai)
			l = m + 1;
		else
			h = m;
	}
	return l < t->ncoll && t->coll[l].act == ai ? &t->coll[l] : NULL;
}
