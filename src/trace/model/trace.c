/*
 * trace.c — the trace model (see trace.h): intake of reader events into
 * compact records, then one sort per array, a stack sweep per thread for
 * nesting, a correlation table for launch links, and step detection.
 */
#include "trace/model/trace.h"

#include "base/names.h"
#include "base/num.h"
#include "base/vec.h"
#include "trace/model/trace_coll.h"

#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Build state, freed by trace_finish. */
struct trace_build {
	VEC(struct trace_range) r;
	VEC(struct trace_act) act;
	VEC(struct trace_act) ann;
	VEC(struct trace_thread) th;
	VEC(uint32_t) track_thread; /* track index -> thread index + 1 (0 = none yet) */
	VEC(uint32_t) thread_track; /* thread index -> track index */
	VEC(uint32_t) nflags;       /* per name id: name-derived flags (see name_flags), 0 = not yet */
	struct pyid { int64_t id, parent; } *py;
	size_t npy, cappy;
	int64_t min_rt_corr;
	trace_coll_notes coll;      /* events with communication args (trace_coll.h) */
	bool finished;
	VEC(struct trace_sync) syncs;
	VEC(struct trace_kcfg) kcfg;
	struct pool *kcfg_keys;     /* (name, configuration) bytes -> index into kcfg */
};

void trace_init(struct trace *t, struct pool *names)
{
	memset(t, 0, sizeof *t);
	t->names = names ? names : pool_new();
	t->own_names = !names;
	t->meta.rank = t->meta.world_size = KEV_NONE;
	t->cores = 1;
	struct trace_build *b = gf_xcalloc(1, sizeof *b);
	b->min_rt_corr = INT64_MAX;
	t->priv_ = b;
}

static void build_free(struct trace_build *b)
{
	if (!b)
		return;
	vec_free(&b->r);
	vec_free(&b->act);
	vec_free(&b->ann);
	vec_free(&b->th);
	vec_free(&b->track_thread);
	vec_free(&b->thread_track);
	vec_free(&b->nflags);
	vec_free(&b->coll);
	vec_free(&b->syncs);
	vec_free(&b->kcfg);
	pool_free(b->kcfg_keys);
	free(b->py);
	free(b);
}

void trace_release(struct trace *t)
{
	build_free(t->priv_);
	free(t->r);
	free(t->th);
	free(t->act);
	free(t->gpu_ann);
	for (uint32_t i = 0; i < t->ndev; i++)
		free(t->dev[i].busy);
	free(t->dev);
	free(t->steps);
	free(t->coll);
	free(t->meta.pgs);
	free(t->syncs);
	free(t->kcfg);
	if (t->own_names)
		pool_free(t->names);
	memset(t, 0, sizeof *t);
}

const char *trace_kind_name(int kind)
{
	static const char *const n[] = { "annotation", "python", "op", "runtime", "driver" };
	return kind >= 0 && kind < 5 ? n[kind] : "?";
}

static uint32_t thread_of(struct trace *t, struct trace_build *b, const struct kev *e,
			  const struct ktrack *track, struct sbuf *err)
{
	uint32_t tr = e->track;
	if (tr >= b->track_thread.n) {
		size_t old = b->track_thread.n;
		vec_reserve(&b->track_thread, (size_t)tr + 1);
		memset(b->track_thread.v + old, 0, ((size_t)tr + 1 - old) * sizeof(uint32_t));
		b->track_thread.n = (size_t)tr + 1;
	}
	uint32_t ti = b->track_thread.v[tr];
	if (ti) {
		struct trace_thread *th = &b->th.v[ti - 1];
		if (th->name == TRACE_NONE && track && track->thread_name != UINT32_MAX)
			th->name = track->thread_name;
		return ti - 1;
	}
	if (b->th.n >= 65535)
		return TRACE_NONE;
	struct trace_thread *th = vec_add(&b->th);
	th->pid = track ? track->pid : KEV_NONE;
	th->tid = track ? track->tid : KEV_NONE;
	th->name = track && track->thread_name != UINT32_MAX ? track->thread_name : TRACE_NONE;
	vec_push(&b->thread_track, tr);
	b->track_thread.v[tr] = (uint32_t)b->th.n;
	(void)t;
	(void)err;
	return (uint32_t)b->th.n - 1;
}

/* Flags derived from a name, cached per pool id: TAF_* in bits 0-7, TRF_*
 * in bits 8-15, bit 31 = computed. */
static uint32_t name_flags(struct trace *t, struct trace_build *b, uint32_t name)
{
	if (name >= b->nflags.n) {
		size_t old = b->nflags.n, need = (size_t)name + 1;
		if (need < old * 2)
			need = old * 2;
		vec_reserve(&b->nflags, need);
		memset(b->nflags.v + old, 0, (need - old) * sizeof(uint32_t));
		b->nflags.n = need;
	}
	uint32_t f = b->nflags.v[name];
	if (f)
		return f;
	const char *nm = pool_str(t->names, name);
	size_t nl = pool_len(t->names, name);
	f = 1u << 31;
	if (names_is_comm(nm, nl))
		f |= TAF_NCCL;
	static const uint32_t dir[] = { 0, TAF_DTOH, TAF_HTOD, TAF_DTOD };
	f |= dir[names_copy_dir(nm, nl)];
	unsigned api = names_api(nm, nl);
	uint32_t rf = (api & NAMES_API_SYNC ? TRF_SYNC : 0) | (api & NAMES_API_GRAPH ? TRF_GRAPH : 0) |
		      (api & NAMES_API_MEMCPY ? TRF_MEMCPY : 0);
	if (names_is_module(nm, nl))
		rf |= TRF_MODULE;
	f |= rf << 8;
	b->nflags.v[name] = f;
	return f;
}

const struct trace_sync_kind_def trace_sync_kinds[TS_N] = {
	[TS_OTHER] = { "other", "other" },
	[TS_STREAM] = { "Stream Sync", "stream_sync" },
	[TS_EVENT] = { "Event Sync", "event_sync" },
	[TS_STREAM_WAIT] = { "Stream Wait Event", "stream_wait_event" },
	[TS_CONTEXT] = { "Context Sync", "context_sync" },
};

int trace_sync_kind_of(const char *name, size_t n)
{
	for (int k = TS_OTHER + 1; k < TS_N; k++)
		if (n == strlen(trace_sync_kinds[k].name) && !memcmp(name, trace_sync_kinds[k].name, n))
			return k;
	if (n == 10 && !memcmp(name, "event_wait", 10)) /* MTIA's: a stream waits for another (wait_on_stream) */
		return TS_STREAM_WAIT;
	return TS_OTHER;
}

static int32_t i32_or(int64_t v, int32_t none)
{
	return v == KEV_NONE || v < INT32_MIN || v > INT32_MAX ? none : (int32_t)v;
}

/* A device sync record (cuda_sync; MTIA's event_wait/event_record). */
static void add_sync(struct trace *t, struct trace_build *b, const struct kev *e, gf_ns dur,
		     const struct ktrack *track)
{
	struct trace_sync y;
	memset(&y, 0, sizeof y);
	y.start = e->ts;
	y.end = e->ts + dur;
	y.corr = e->correlation;
	y.wait_corr = e->wait_corr;
	int64_t dv = e->device != KEV_NONE ? e->device : track ? track->pid : KEV_NONE;
	y.device = dv == KEV_NONE || dv < -1 || dv > INT16_MAX ? -1 : (int16_t)dv;
	y.stream = i32_or(e->stream, -1);
	y.wait_stream = i32_or(e->wait_stream, -1);
	y.name = e->name;
	y.kind = (uint8_t)trace_sync_kind_of(pool_str(t->names, e->name), pool_len(t->names, e->name));
	vec_push(&b->syncs, y);
}

/* Counts a kernel's launch configuration under (name, configuration). */
static void add_kcfg(struct trace_build *b, const struct kev *e, gf_ns dur)
{
	struct trace_kcfg k;
	memset(&k, 0, sizeof k);
	k.name = e->name;
	memcpy(k.grid, e->grid, sizeof k.grid);
	memcpy(k.block, e->block, sizeof k.block);
	if (k.grid[0] < 0)
		k.grid[1] = k.grid[2] = -1;
	if (k.block[0] < 0)
		k.block[1] = k.block[2] = -1;
	k.regs = e->regs;
	k.occupancy = e->occupancy;
	if (!b->kcfg_keys)
		b->kcfg_keys = pool_new();
	/* the key: everything but the counts */
	uint32_t id = pool_intern(b->kcfg_keys, (const char *)&k, offsetof(struct trace_kcfg, count));
	if (id >= b->kcfg.n)
		vec_push(&b->kcfg, k);
	b->kcfg.v[id].count++;
	if (b->kcfg.v[id].time <= INT64_MAX - dur)
		b->kcfg.v[id].time += dur;
}

int trace_add_event(struct trace *t, const struct kev *e, const struct ktrack *track)
{
	struct trace_build *b = t->priv_;
	if (!b || b->finished)
		return GF_OK;
	bool gpu = e->kc == KC_KERNEL || e->kc == KC_GPU_MEMCPY || e->kc == KC_GPU_MEMSET;
	if (e->ph != 'X' || e->dur == KEV_NONE || e->ts == KEV_NONE) {
		/* a GPU activity without a duration has no GPU time: counted, so
		 * that fold/report/syncs say what info counts and they don't */
		if (gpu)
			t->warn.unweighted++;
		return GF_OK;
	}
	gf_ns dur = e->dur < 0 ? 0 : e->dur;
	/* keep every difference of two times inside int64: |ts|, dur <= 2^61 ns
	 * (73 years; absolute epoch ns stay below it until 2043) */
	if (!trace_times_usable(e->ts, dur)) {
		t->warn.out_of_range++;
		if (gpu)
			t->warn.unweighted++;
		return GF_OK;
	}
	int kind = -1;
	switch (e->kc) {
	case KC_USER_ANNOTATION: kind = TR_ANNOTATION; break;
	case KC_PYTHON_FUNCTION: kind = TR_PYTHON; break;
	case KC_CPU_OP: kind = TR_OP; break;
	case KC_CUDA_RUNTIME: kind = TR_RUNTIME; break;
	case KC_CUDA_DRIVER: kind = TR_DRIVER; break;
	case KC_CUDA_SYNC:
		add_sync(t, b, e, dur, track);
		return GF_OK;
	case KC_KERNEL: case KC_GPU_MEMCPY: case KC_GPU_MEMSET: case KC_GPU_USER_ANNOTATION: {
		struct trace_act a;
		memset(&a, 0, sizeof a);
		a.start = e->ts;
		a.end = e->ts + dur;
		a.corr = e->correlation;
		a.name = e->name;
		a.launch = TRACE_NONE;
		int64_t dv = e->device != KEV_NONE ? e->device : track ? track->pid : KEV_NONE;
		int64_t st = e->stream != KEV_NONE ? e->stream : track ? track->tid : KEV_NONE;
		a.device = dv == KEV_NONE || dv < -1 || dv > INT16_MAX ? -1 : (int16_t)dv;
		a.stream = st == KEV_NONE || st < INT32_MIN || st > INT32_MAX ? -1 : (int32_t)st;
		uint32_t nf = name_flags(t, b, e->name);
		if (e->kc == KC_KERNEL) {
			a.kind = TA_KERNEL;
			a.flags |= nf & TAF_NCCL;
			if (a.flags & TAF_NCCL)
				trace_coll_add(&b->coll, e, TRACE_NONE, a.device);
			if (e->grid[0] >= 0 || e->block[0] >= 0 || e->regs >= 0 || e->occupancy != KEV_NONE)
				add_kcfg(b, e, dur);
		} else if (e->kc == KC_GPU_MEMCPY) {
			a.kind = TA_MEMCPY;
			a.flags |= nf & (TAF_DTOH | TAF_HTOD | TAF_DTOD);
		} else if (e->kc == KC_GPU_MEMSET) {
			a.kind = TA_MEMSET;
		} else {
			a.kind = TA_ANNOTATION;
			vec_push(&b->ann, a);
			return GF_OK;
		}
		if (b->act.n >= UINT32_MAX - 1)
			return GF_EINTERNAL;
		vec_push(&b->act, a);
		return GF_OK;
	}
	default:
		return GF_OK;
	}
	uint32_t ti = thread_of(t, b, e, track, NULL);
	if (ti == TRACE_NONE || b->r.n >= UINT32_MAX - 1)
		return GF_EINTERNAL;
	struct trace_range r;
	memset(&r, 0, sizeof r);
	r.start = e->ts;
	r.end = e->ts + dur;
	r.corr = KEV_NONE;
	r.name = e->name;
	r.parent = TRACE_NONE;
	r.thread = (uint16_t)ti;
	r.kind = (uint8_t)kind;
	if (kind == TR_RUNTIME || kind == TR_DRIVER) {
		r.corr = e->correlation;
		r.flags = (uint8_t)((name_flags(t, b, e->name) >> 8) & (TRF_SYNC | TRF_GRAPH | TRF_MEMCPY));
		if (e->correlation != KEV_NONE && e->external_id == e->correlation)
			t->warn.bogus_external++;
		if (e->correlation != KEV_NONE && e->correlation < b->min_rt_corr)
			b->min_rt_corr = e->correlation;
	} else if (kind == TR_OP) {
		trace_coll_add(&b->coll, e, ti, -1);
	} else if (kind == TR_PYTHON) {
		if ((name_flags(t, b, e->name) >> 8) & TRF_MODULE)
			r.flags |= TRF_MODULE;
		if (e->python_id != KEV_NONE || e->python_parent_id != KEV_NONE) {
			if (b->npy == b->cappy) {
				b->cappy = b->cappy ? b->cappy * 2 : 1024;
				b->py = gf_xreallocarray(b->py, b->cappy, sizeof *b->py);
			}
			b->py[b->npy].id = e->python_id;
			b->py[b->npy].parent = e->python_parent_id;
			r.corr = (int64_t)b->npy++; /* temporary: index into b->py */
		}
	}
	vec_push(&b->r, r);
	return GF_OK;
}

void trace_msg_unweighted(struct sbuf *b, uint64_t n)
{
	sbuf_addf(b, "%llu GPU activities are unweighted: dur missing or out of range (absent, null, not a "
		     "number, or ts/dur beyond 2^61 ns); counted, but left out of every GPU time sum",
		  (unsigned long long)n);
}

void trace_msg_shared_ids(struct sbuf *b, uint64_t ids, uint32_t processes)
{
	sbuf_addf(b, "%llu correlation ids are carried by runtime/driver calls of more than one process (%u "
		     "processes have such calls; ids are per process, so merged traces repeat them)",
		  (unsigned long long)ids, processes);
}

void trace_msg_cross_process(struct sbuf *b, const struct trace *t)
{
	if (t->warn.corr_shared) {
		trace_msg_shared_ids(b, t->warn.corr_shared, t->warn.processes);
		sbuf_addf(b, "; GPU activities were linked within their device's process, %llu left unattributed",
			  (unsigned long long)t->warn.cross_process);
	} else {
		sbuf_addf(b, "%llu GPU activities have a correlation id that only calls of another process than "
			     "their device's carry (%u processes have correlated calls); launches are linked within "
			     "a process, so they are unattributed",
			  (unsigned long long)t->warn.cross_process, t->warn.processes);
	}
}

void trace_update_thread_names(struct trace *t, const struct ktrack *tracks, uint32_t ntracks)
{
	struct trace_build *b = t->priv_;
	if (!b)
		return;
	for (size_t i = 0; i < b->th.n; i++) {
		uint32_t tr = b->thread_track.v[i];
		if (tr < ntracks && tracks[tr].thread_name != UINT32_MAX)
			b->th.v[i].name = tracks[tr].thread_name;
	}
}

/* --- finish --- */

static int cmp_range(const void *pa, const void *pb)
{
	const struct trace_range *a = pa, *b = pb;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1; /* longest first */
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	return 0;
}

static int cmp_act(const void *pa, const void *pb)
{
	const struct trace_act *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return 0;
}

/* qsort unless already in order (the common case for many tracks). */
static void sort_maybe(void *v, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	char *p = v;
	for (size_t i = 1; i < n; i++)
		if (cmp(p + (i - 1) * sz, p + i * sz) > 0) {
			qsort(v, n, sz, cmp);
			return;
		}
}

/* cmp_range(a, b) <= 0 for the common cases without a call: another thread
 * or start decides; equal (thread, start) goes to cmp_range. */
static inline bool range_le(const struct trace_range *a, const struct trace_range *b)
{
	if (a->thread != b->thread)
		return a->thread < b->thread;
	if (a->start != b->start)
		return a->start < b->start;
	return cmp_range(a, b) <= 0;
}

static inline bool act_le(const struct trace_act *a, const struct trace_act *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	return cmp_act(a, b) <= 0;
}

/* sort_maybe for ranges and activities, the order checked inline. */
static void sort_ranges(struct trace_range *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (!range_le(&v[i - 1], &v[i])) {
			qsort(v, n, sizeof *v, cmp_range);
			return;
		}
}

static void sort_acts(struct trace_act *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (!act_le(&v[i - 1], &v[i])) {
			qsort(v, n, sizeof *v, cmp_act);
			return;
		}
}

_Thread_local unsigned long long trace_nest_steps;

/* Python id -> frame, for one thread: (id, range index) pairs sorted by id
 * then index, so the first frame with an id is the first pair with it.
 * Sorted rather than hashed: ids are untrusted, and a fixed hash of crafted
 * ids would put them all in one bucket. */
struct pyent {
	int64_t id;
	uint32_t idx;
};

static int cmp_pyent(const void *pa, const void *pb)
{
	const struct pyent *a = pa, *b = pb;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The first frame (lowest index) with Python id k, TRACE_NONE. */
static uint32_t pyent_find(const struct pyent *v, size_t n, int64_t k)
{
	size_t l = 0, h = n;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (v[m].id < k)
			l = m + 1;
		else
			h = m;
	}
	return l < n && v[l].id == k ? v[l].idx : TRACE_NONE;
}

/* Scratch of nest_thread, reused across threads (sized for the largest). */
struct nest_scratch {
	uint32_t *stack;
	size_t cap;
	struct pyent *py;  /* this thread's Python ids */
	size_t cappy;
	/* per range of the thread (index - lo), for the re-parent check:
	 * depth in the parent tree (roots 1), a skew-binary jump ancestor
	 * (TRACE_NONE above the roots) and the nearest ancestor-or-self that
	 * is not a Python frame (TRACE_NONE: none) */
	uint32_t *depth, *jump, *top;
	size_t capn;
};

static void nest_scratch_free(struct nest_scratch *s)
{
	free(s->stack);
	free(s->py);
	free(s->depth);
	free(s->jump);
	free(s->top);
}

static inline uint32_t nest_depth(const struct nest_scratch *s, uint32_t lo, uint32_t q)
{
	return q == TRACE_NONE ? 0 : s->depth[q - lo];
}

/* Records range i's final parent in the jump tables. */
static void nest_link(const struct trace *t, struct nest_scratch *s, uint32_t lo, uint32_t i)
{
	uint32_t u = t->r[i].parent, k = i - lo;
	s->depth[k] = nest_depth(s, lo, u) + 1;
	s->top[k] = t->r[i].kind != TR_PYTHON ? i : u == TRACE_NONE ? TRACE_NONE : s->top[u - lo];
	s->jump[k] = u;
	if (u != TRACE_NONE) {
		uint32_t j = s->jump[u - lo];
		if (j != TRACE_NONE) {
			uint32_t jj = s->jump[j - lo];
			/* two equal segments above: one jump over both */
			if (s->depth[u - lo] - s->depth[j - lo] == s->depth[j - lo] - nest_depth(s, lo, jj))
				s->jump[k] = jj;
		}
	}
}

/* Whether the parent chain from x reaches p through Python frames only
 * (x itself included, p excluded): p is an ancestor of x and the first
 * non-Python frame above x is also the first one above p. O(log depth). */
static bool nest_python_path(const struct trace *t, const struct nest_scratch *s, uint32_t lo, uint32_t x,
			     uint32_t p)
{
	uint32_t dp = s->depth[p - lo];
	if (dp >= s->depth[x - lo] || s->top[p - lo] != s->top[x - lo])
		return false;
	while (s->depth[x - lo] > dp) {
		trace_nest_steps++;
		uint32_t j = s->jump[x - lo];
		x = nest_depth(s, lo, j) >= dp ? j : t->r[x].parent;
	}
	return x == p;
}

/* Nests the ranges of one thread [lo, hi) (global indices). */
static void nest_thread(struct trace *t, struct trace_build *b, uint32_t lo, uint32_t hi, struct nest_scratch *s)
{
	struct trace_range *r = t->r;
	size_t npy = 0;
	for (uint32_t i = lo; i < hi; i++)
		if (r[i].kind == TR_PYTHON && r[i].corr != KEV_NONE && b->py[r[i].corr].id != KEV_NONE)
			npy++;
	if (npy) {
		if (npy > s->cappy) {
			free(s->py);
			s->py = gf_xreallocarray(NULL, npy, sizeof *s->py);
			s->cappy = npy;
		}
		size_t k = 0;
		for (uint32_t i = lo; i < hi; i++)
			if (r[i].kind == TR_PYTHON && r[i].corr != KEV_NONE && b->py[r[i].corr].id != KEV_NONE)
				s->py[k++] = (struct pyent){ b->py[r[i].corr].id, i };
		sort_maybe(s->py, npy, sizeof *s->py, cmp_pyent);
		if (hi - lo > s->capn) {
			free(s->depth);
			free(s->jump);
			free(s->top);
			s->capn = hi - lo;
			s->depth = gf_xreallocarray(NULL, s->capn, sizeof *s->depth);
			s->jump = gf_xreallocarray(NULL, s->capn, sizeof *s->jump);
			s->top = gf_xreallocarray(NULL, s->capn, sizeof *s->top);
		}
	}
	uint32_t *st = s->stack;
	size_t sp = 0, cap = s->cap;
	for (uint32_t i = lo; i < hi; i++) {
		struct trace_range *R = &r[i];
		while (sp && r[st[sp - 1]].end <= R->start)
			sp--;
		while (sp && r[st[sp - 1]].end < R->end) {
			struct trace_range *T = &r[st[sp - 1]];
			if (T->end - T->start < R->end - R->start) {
				T->end = R->start; /* the shorter one is cut */
				T->flags |= TRF_CLIPPED;
				t->warn.clipped++;
				sp--;
			} else {
				R->end = T->end;
				R->flags |= TRF_CLIPPED;
				t->warn.clipped++;
				break;
			}
		}
		R->parent = sp ? st[sp - 1] : TRACE_NONE;
		if (R->kind == TR_PYTHON && R->corr != KEV_NONE) {
			int64_t pid = b->py[R->corr].parent;
			if (npy && pid != KEV_NONE && R->parent != TRACE_NONE) {
				uint32_t p = pyent_find(s->py, npy, pid);
				/* the named frame, when it encloses R and the time
				 * parent reaches it through Python frames only */
				if (p != TRACE_NONE && p != R->parent && p < i && r[p].start <= R->start &&
				    r[p].end >= R->end && nest_python_path(t, s, lo, R->parent, p)) {
					R->parent = p;
					R->flags |= TRF_PYFIX;
					t->warn.pyparent_fixed++;
				}
			}
		}
		if (npy)
			nest_link(t, s, lo, i);
		if (sp == cap) {
			cap = cap ? cap * 2 : 64;
			st = gf_xreallocarray(st, cap, sizeof *st);
		}
		st[sp++] = i;
	}
	for (uint32_t i = lo; i < hi; i++)
		if (r[i].kind == TR_PYTHON)
			r[i].corr = KEV_NONE;
	s->stack = st;
	s->cap = cap;
}

struct corr_ent {
	int64_t corr;
	uint32_t idx;
	uint8_t kind;
};

static int cmp_corr(const void *pa, const void *pb)
{
	const struct corr_ent *a = pa, *b = pb;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Records activity A's launch L (TRACE_NONE: unattributed; TAF_BEFORE when
 * its correlation is absent or below min_corr — but not an absent one in a
 * legacy autograd profiler trace, which records no correlations nor launch
 * calls at all: its kernels ran in the window). The caller has checked that
 * the sum of all durations fits in int64. */
static void set_launch(struct trace *t, struct trace_act *A, uint32_t L, int64_t min_corr)
{
	A->launch = L;
	if (L == TRACE_NONE) {
		t->warn.unattributed++;
		t->warn.unattributed_ns += A->end - A->start;
		if (A->corr == KEV_NONE ? !t->meta.legacy : A->corr < min_corr) {
			A->flags |= TAF_BEFORE;
			t->warn.before_window++;
		}
		return;
	}
	struct trace_range *R = &t->r[L];
	if (R->nact != UINT32_MAX)
		R->nact++;
	if (!(R->flags & TRF_LAUNCH)) {
		R->flags |= TRF_LAUNCH;
		t->th[R->thread].launches++;
	}
	if (R->flags & TRF_GRAPH)
		A->flags |= TAF_GRAPH;
}

/* The runtime/driver calls with a correlation (one pass over the ranges
 * finds them with other things, see trace_finish): how many, the range of
 * their correlations, and the threads holding them. */
struct corr_calls {
	size_t n;
	int64_t lo, hi;  /* INT64_MAX, INT64_MIN when none */
	bool *has;       /* per thread */
};

/* Links every activity to the call carrying its correlation, whatever its
 * process (the trace has at most one process with correlated calls). */
static void link_one_process(struct trace *t, struct trace_build *b, const struct corr_calls *cc)
{
	/* runtime/driver calls with a correlation */
	size_t n = cc->n;
	int64_t lo = cc->lo, hi = cc->hi;
	uint32_t *dense = NULL;
	struct corr_ent *ce = NULL;
	uint64_t span = n ? (uint64_t)hi - (uint64_t)lo + 1 : 0;
	if (n && span <= 4 * (uint64_t)n + 4096) {
		dense = gf_xmalloc(span * sizeof *dense);
		for (uint64_t k = 0; k < span; k++)
			dense[k] = TRACE_NONE;
		/* runtime first, then driver: a driver call never replaces a runtime one */
		for (int pass = TR_RUNTIME; pass <= TR_DRIVER; pass++)
			for (uint32_t i = 0; i < t->nr; i++) {
				const struct trace_range *r = &t->r[i];
				if (r->kind != pass || r->corr == KEV_NONE)
					continue;
				uint32_t *slot = &dense[(uint64_t)r->corr - (uint64_t)lo];
				if (*slot == TRACE_NONE)
					*slot = i;
				else if (t->r[*slot].kind == r->kind)
					t->warn.dup_corr++;
			}
	} else if (n) {
		ce = gf_xmalloc(n * sizeof *ce);
		size_t k = 0;
		for (uint32_t i = 0; i < t->nr; i++)
			if ((t->r[i].kind == TR_RUNTIME || t->r[i].kind == TR_DRIVER) && t->r[i].corr != KEV_NONE)
				ce[k++] = (struct corr_ent){ t->r[i].corr, i, t->r[i].kind };
		qsort(ce, n, sizeof *ce, cmp_corr);
		for (size_t j = 1; j < n; j++)
			if (ce[j].corr == ce[j - 1].corr && ce[j].kind == ce[j - 1].kind)
				t->warn.dup_corr++;
	}
	for (uint32_t a = 0; a < t->nact; a++) {
		struct trace_act *A = &t->act[a];
		uint32_t L = TRACE_NONE;
		if (A->corr != KEV_NONE && n && A->corr >= lo && A->corr <= hi) {
			if (dense) {
				L = dense[(uint64_t)A->corr - (uint64_t)lo];
			} else {
				size_t l = 0, h = n;
				while (l < h) {
					size_t m = l + (h - l) / 2;
					if (ce[m].corr < A->corr)
						l = m + 1;
					else
						h = m;
				}
				if (l < n && ce[l].corr == A->corr)
					L = ce[l].idx;
			}
		}
		set_launch(t, A, L, b->min_rt_corr);
	}
	free(dense);
	free(ce);
}

/* A correlated call of the multi-process table: sorted by (corr, proc,
 * kind, idx), so that within one process runtime calls come before driver
 * calls and the first index wins, as in link_one_process. */
struct pcorr_ent {
	int64_t corr;
	uint32_t proc, idx;
	uint8_t kind;
};

static int cmp_pcorr(const void *pa, const void *pb)
{
	const struct pcorr_ent *a = pa, *b = pb;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* A (device, process) vote: an activity of the device whose correlation
 * only that process carries. */
struct dvote {
	int32_t device;
	uint32_t proc;
};

static int cmp_dvote(const void *pa, const void *pb)
{
	const struct dvote *a = pa, *b = pb;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->proc < b->proc ? -1 : a->proc > b->proc;
}

static int cmp_pid(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
}

/* First entry of ce[0..n) with corr c (n when none). */
static size_t pcorr_lower(const struct pcorr_ent *ce, size_t n, int64_t c)
{
	size_t l = 0, h = n;
	while (l < h) {
		size_t m = l + (h - l) / 2;
		if (ce[m].corr < c)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/*
 * The candidate calls of an activity starting at `start` among the entries
 * ce[l..h) of its correlation: per process, its first entry (runtime before
 * driver) that is not taken (when taken is given) and, when plaus, whose
 * call starts at or before the activity (a kernel never starts before its
 * launch). @return the number of processes with a candidate; *pick gets the
 * candidate of the last of them.
 */
static unsigned cands(const struct trace *t, const struct pcorr_ent *ce, size_t l, size_t h, gf_ns start,
		      const bool *taken, bool plaus, size_t *pick)
{
	unsigned k = 0;
	for (size_t j = l; j < h;) {
		size_t e = j;
		bool found = false;
		while (e < h && ce[e].proc == ce[j].proc) {
			if (!found && !(taken && taken[e]) && (!plaus || t->r[ce[e].idx].start <= start)) {
				found = true;
				*pick = e;
			}
			e++;
		}
		k += found;
		j = e;
	}
	return k;
}

/* cands with plausible times, or without when no call is plausible (a
 * trace whose clocks disagree keeps its links). */
static unsigned cands_any(const struct trace *t, const struct pcorr_ent *ce, size_t l, size_t h, gf_ns start,
			  const bool *taken, size_t *pick)
{
	unsigned k = cands(t, ce, l, h, start, taken, true, pick);
	return k ? k : cands(t, ce, l, h, start, taken, false, pick);
}

/* The owner's entry for an activity: its first plausible one, else its
 * first one; h when the owner does not carry the id. */
static size_t owner_entry(const struct trace *t, const struct pcorr_ent *ce, size_t l, size_t h, uint32_t owner,
			  gf_ns start)
{
	size_t first = h;
	for (size_t j = l; j < h; j++) {
		if (ce[j].proc != owner)
			continue;
		if (first == h)
			first = j;
		if (t->r[ce[j].idx].start <= start)
			return j;
	}
	return first;
}

/*
 * Linking within a process (see trace.h): correlation ids are per process,
 * so a trace merging several processes links an activity only to a call of
 * the process that owns its device. ce holds the n correlated calls, span
 * each process's host time [span[2p], span[2p + 1]).
 */
static void link_processes(struct trace *t, struct pcorr_ent *ce, size_t n, uint32_t nproc, const gf_ns *span)
{
	qsort(ce, n, sizeof *ce, cmp_pcorr);
	for (size_t j = 1; j < n; j++)
		if (ce[j].corr == ce[j - 1].corr && ce[j].proc == ce[j - 1].proc && ce[j].kind == ce[j - 1].kind)
			t->warn.dup_corr++;
	for (size_t j = 0; j < n;) {
		size_t h = j + 1;
		while (h < n && ce[h].corr == ce[j].corr)
			h++;
		if (ce[h - 1].proc != ce[j].proc)
			t->warn.corr_shared++; /* sorted by process within an id */
		j = h;
	}
	/* smallest correlation per process (launched-before-window test) */
	int64_t *pmin = gf_xmalloc((size_t)nproc * sizeof *pmin);
	for (uint32_t p = 0; p < nproc; p++)
		pmin[p] = INT64_MAX;
	for (size_t j = 0; j < n; j++)
		if (ce[j].corr < pmin[ce[j].proc])
			pmin[ce[j].proc] = ce[j].corr;
	int64_t gmin = n ? ce[0].corr : INT64_MAX;
	/* votes: activities with a candidate in exactly one process */
	struct dvote *vote = gf_xmalloc((size_t)(t->nact ? t->nact : 1) * sizeof *vote);
	size_t nv = 0;
	for (uint32_t a = 0; a < t->nact; a++) {
		const struct trace_act *A = &t->act[a];
		if (A->corr == KEV_NONE)
			continue;
		size_t l = pcorr_lower(ce, n, A->corr), h = l, pick = n;
		while (h < n && ce[h].corr == A->corr)
			h++;
		if (h > l && cands_any(t, ce, l, h, A->start, NULL, &pick) == 1)
			vote[nv++] = (struct dvote){ A->device, ce[pick].proc };
	}
	qsort(vote, nv, sizeof *vote, cmp_dvote);
	/* owner per device: the process with the most votes (none on a tie) */
	struct dvote *own = gf_xmalloc((nv ? nv : 1) * sizeof *own);
	size_t no = 0;
	for (size_t i = 0; i < nv;) {
		size_t best = 0;
		uint32_t bp = TRACE_NONE;
		bool tie = false;
		size_t j = i;
		while (j < nv && vote[j].device == vote[i].device) {
			size_t k = j;
			while (k < nv && vote[k].device == vote[j].device && vote[k].proc == vote[j].proc)
				k++;
			if (k - j > best) {
				best = k - j;
				bp = vote[j].proc;
				tie = false;
			} else if (k - j == best) {
				tie = true;
			}
			j = k;
		}
		own[no++] = (struct dvote){ vote[i].device, tie ? TRACE_NONE : bp };
		i = j;
	}
	/* links: to the owner's call; where the device has no owner, to the
	 * only process with a candidate call, else (pass 2) to the only
	 * candidate that no other activity took (a kernel launch starts one
	 * activity; a graph launch many, so it is never "taken"); pass 2 also
	 * takes an owned activity whose owner's call was taken already while
	 * another process has a candidate */
	bool *taken = gf_xcalloc(n ? n : 1, sizeof *taken);
	struct pdefer {
		uint32_t act, owner;
	} *defer = gf_xmalloc((size_t)(t->nact ? t->nact : 1) * sizeof *defer);
	size_t nd = 0;
	for (uint32_t a = 0; a < t->nact; a++) {
		struct trace_act *A = &t->act[a];
		uint32_t owner = TRACE_NONE;
		size_t lo = 0, hi = no;
		while (lo < hi) {
			size_t m = lo + (hi - lo) / 2;
			if (own[m].device < A->device)
				lo = m + 1;
			else
				hi = m;
		}
		if (lo < no && own[lo].device == A->device)
			owner = own[lo].proc;
		size_t l = n, h = n, pick = n;
		if (A->corr != KEV_NONE) {
			l = h = pcorr_lower(ce, n, A->corr);
			while (h < n && ce[h].corr == A->corr)
				h++;
		}
		uint32_t L = TRACE_NONE;
		if (h > l && owner != TRACE_NONE) {
			size_t j = owner_entry(t, ce, l, h, owner, A->start);
			if (j < h && taken[j] && cands_any(t, ce, l, h, A->start, taken, &pick) > 0) {
				/* the owner's launch already started an activity:
				 * this one is another process's */
				defer[nd++] = (struct pdefer){ a, owner };
				continue;
			}
			if (j == h && (A->corr > pmin[owner] || A->start < span[2 * owner] ||
				       A->start >= span[2 * owner + 1]) &&
			    cands_any(t, ce, l, h, A->start, taken, &pick) == 1) {
				/* the owner does not carry an id inside its window, or
				 * the activity starts outside the owner's host time: a
				 * process sharing the device launched it */
				j = pick;
			}
			if (j < h) {
				L = ce[j].idx;
				taken[j] = !(t->r[L].flags & TRF_GRAPH);
			}
		} else if (h > l) {
			unsigned k = cands_any(t, ce, l, h, A->start, NULL, &pick);
			if (k > 1) {
				defer[nd++] = (struct pdefer){ a, owner }; /* pass 2 */
				continue;
			}
			L = ce[pick].idx; /* one process has candidates */
			taken[pick] = !(t->r[L].flags & TRF_GRAPH);
		}
		if (L == TRACE_NONE && h > l)
			t->warn.cross_process++;
		set_launch(t, A, L, owner != TRACE_NONE ? pmin[owner] : gmin);
	}
	for (size_t k = 0; k < nd; k++) {
		struct trace_act *A = &t->act[defer[k].act];
		uint32_t owner = defer[k].owner;
		size_t l = pcorr_lower(ce, n, A->corr), h = l, pick = n;
		while (h < n && ce[h].corr == A->corr)
			h++;
		uint32_t L = TRACE_NONE;
		if (cands_any(t, ce, l, h, A->start, taken, &pick) == 1) {
			L = ce[pick].idx;
			taken[pick] = !(t->r[L].flags & TRF_GRAPH);
		} else {
			t->warn.cross_process++;
		}
		set_launch(t, A, L, owner != TRACE_NONE ? pmin[owner] : gmin);
	}
	free(defer);
	free(taken);
	free(own);
	free(vote);
	free(pmin);
}

static void link_acts(struct trace *t, struct trace_build *b, const struct corr_calls *cc)
{
	/* processes of the threads with correlated runtime/driver calls */
	int64_t *pids = gf_xmalloc((size_t)(t->nth ? t->nth : 1) * sizeof *pids);
	uint32_t np = 0;
	const bool *has = cc->has;
	size_t n = cc->n;
	for (uint32_t i = 0; i < t->nth; i++)
		if (has[i])
			pids[np++] = t->th[i].pid;
	qsort(pids, np, sizeof *pids, cmp_pid);
	uint32_t nproc = 0;
	for (uint32_t i = 0; i < np; i++)
		if (!nproc || pids[nproc - 1] != pids[i])
			pids[nproc++] = pids[i];
	t->warn.processes = nproc;
	if (nproc <= 1) {
		free(pids);
		link_one_process(t, b, cc);
		return;
	}
	uint32_t *proc_of = gf_xmalloc((size_t)t->nth * sizeof *proc_of);
	for (uint32_t i = 0; i < t->nth; i++) {
		int64_t *p = bsearch(&t->th[i].pid, pids, nproc, sizeof *pids, cmp_pid);
		proc_of[i] = p ? (uint32_t)(p - pids) : TRACE_NONE;
	}
	/* each process's host time: [earliest start, latest end) of its ranges */
	gf_ns *span = gf_xmalloc(2 * (size_t)nproc * sizeof *span);
	for (uint32_t p = 0; p < nproc; p++) {
		span[2 * p] = INT64_MAX;
		span[2 * p + 1] = INT64_MIN;
	}
	struct pcorr_ent *ce = gf_xmalloc(n * sizeof *ce);
	size_t k = 0;
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *r = &t->r[i];
		uint32_t p = proc_of[r->thread];
		if (p != TRACE_NONE) {
			span[2 * p] = GF_MIN(span[2 * p], r->start);
			span[2 * p + 1] = GF_MAX(span[2 * p + 1], r->end);
		}
		if ((r->kind == TR_RUNTIME || r->kind == TR_DRIVER) && r->corr != KEV_NONE)
			ce[k++] = (struct pcorr_ent){ r->corr, p, i, r->kind };
	}
	link_processes(t, ce, n, nproc, span);
	free(span);
	free(ce);
	free(proc_of);
	free(pids);
}

static int cmp_step(const void *pa, const void *pb)
{
	const struct trace_step *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->range < b->range ? -1 : a->range > b->range;
}

/* A run of activities of one device launched from one thread. */
struct dev_run {
	uint64_t key; /* device index << 32 | thread */
	uint64_t n;
};

static int cmp_run(const void *pa, const void *pb)
{
	uint64_t a = ((const struct dev_run *)pa)->key, b = ((const struct dev_run *)pb)->key;
	return a < b ? -1 : a > b;
}

static int cmp_int(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	return a < b ? -1 : a > b;
}

/* Every device of the activities, sorted (trace_device_index searches
 * them): however many there are (a trace of a 70-GPU node keeps all 70). */
/* The invariants the queries rely on (GF_ASSERT: test builds): each
 * thread's ranges in start order (binary searches, the sweeps), every range
 * inside its parent on its thread (the nesting, clipped), the activities in
 * start order (trace_act_lower), the devices sorted and distinct. */
static void check_model(const struct trace *t)
{
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *r = &t->r[i];
		GF_ASSERT(r->start <= r->end);
		GF_ASSERT(i == 0 || t->r[i - 1].thread != r->thread || t->r[i - 1].start <= r->start);
		if (r->parent == TRACE_NONE)
			continue;
		const struct trace_range *p = &t->r[r->parent];
		GF_ASSERT(r->parent < i && p->thread == r->thread);
		GF_ASSERT(p->start <= r->start && r->end <= p->end);
	}
	for (uint32_t i = 1; i < t->nact; i++)
		GF_ASSERT(t->act[i - 1].start <= t->act[i].start);
	for (uint32_t k = 1; k < t->ndev; k++)
		GF_ASSERT(t->dev[k - 1].device < t->dev[k].device);
}

static void find_devices(struct trace *t)
{
	VEC(int) dv = VEC_INIT;
	int last = 0;
	for (uint32_t a = 0; a < t->nact; a++) {
		int d = t->act[a].device;
		if (a && d == last)
			continue; /* runs of one device: the list stays short */
		vec_push(&dv, d);
		last = d;
	}
	if (dv.n)
		qsort(dv.v, dv.n, sizeof *dv.v, cmp_int);
	unsigned nd = 0;
	for (size_t i = 0; i < dv.n; i++)
		if (!nd || dv.v[i] != dv.v[nd - 1])
			dv.v[nd++] = dv.v[i];
	int *devs = dv.v;
	t->ndev = nd;
	t->dev = gf_xcalloc(nd ? nd : 1, sizeof *t->dev);
	for (unsigned k = 0; k < nd; k++) {
		t->dev[k].device = devs[k];
		t->dev[k].launch_thread = TRACE_NONE;
	}
	/* (device, launching thread) of every linked activity, counted in runs
	 * (consecutive activities mostly share both) and the runs sorted: each
	 * device's launch thread is the one with most activities (lowest
	 * thread on ties); memory by runs, not devices x threads */
	VEC(struct dev_run) runs = VEC_INIT;
	for (uint32_t a = 0; a < t->nact; a++) {
		uint32_t di = trace_device_index(t, t->act[a].device);
		if (di == TRACE_NONE)
			continue;
		t->dev[di].nact++;
		t->dev[di].act_ns += t->act[a].end - t->act[a].start;
		if (t->act[a].launch == TRACE_NONE)
			continue;
		uint64_t key = (uint64_t)di << 32 | t->r[t->act[a].launch].thread;
		if (runs.n && runs.v[runs.n - 1].key == key) {
			runs.v[runs.n - 1].n++;
		} else {
			struct dev_run x = { key, 1 };
			vec_push(&runs, x);
		}
	}
	if (runs.n)
		qsort(runs.v, runs.n, sizeof *runs.v, cmp_run);
	uint64_t best = 0;
	for (size_t i = 0, j; i < runs.n; i = j) {
		uint64_t n = 0;
		for (j = i; j < runs.n && runs.v[j].key == runs.v[i].key; j++)
			n += runs.v[j].n;
		uint32_t di = (uint32_t)(runs.v[i].key >> 32);
		if (!i || di != (uint32_t)(runs.v[i - 1].key >> 32))
			best = 0;
		if (n > best) {
			best = n;
			t->dev[di].launch_thread = (uint32_t)runs.v[i].key;
		}
	}
	vec_free(&runs);
	vec_free(&dv);
}

/* Cores for the analyses: 2 unless o says 1 (-j1, GPUFLAME_THREADS=1) or the
 * process may run on one CPU only; 1 without options. */
static unsigned analysis_cores(const struct trace_opts *o)
{
	if (!o || o->threads == 1)
		return 1;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return CPU_COUNT(&set) >= 2 ? 2 : 1;
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

int trace_finish(struct trace *t, const struct trace_opts *o, struct sbuf *err)
{
	struct trace_build *b = t->priv_;
	if (!b) {
		sbuf_setf(err, "trace_finish called twice");
		return GF_EINTERNAL;
	}
	const char *marker = names_marker(o ? o->step_marker : NULL);
	t->cores = analysis_cores(o);
	/* hand the arrays over */
	t->nr = (uint32_t)b->r.n;
	t->r = b->r.v;
	b->r.v = NULL;
	t->nact = (uint32_t)b->act.n;
	t->act = b->act.v;
	b->act.v = NULL;
	t->ngpu_ann = (uint32_t)b->ann.n;
	t->gpu_ann = b->ann.v;
	b->ann.v = NULL;
	t->nth = (uint32_t)b->th.n;
	t->th = b->th.v;
	b->th.v = NULL;
	t->nsyncs = (uint32_t)b->syncs.n;
	t->syncs = b->syncs.v;
	b->syncs.v = NULL;
	t->nkcfg = (uint32_t)b->kcfg.n;
	t->kcfg = b->kcfg.v;
	b->kcfg.v = NULL;

	/* every sum of durations below (per device, unattributed, and the
	 * analyses' per-step GPU, sync and launch times) is a part of one of
	 * these two: check them once */
	gf_ns total = 0;
	for (uint32_t i = 0; i < t->nact; i++)
		if (__builtin_add_overflow(total, t->act[i].end - t->act[i].start, &total)) {
			sbuf_setf(err, "the durations of the %u GPU activities add up to more than 2^63-1 ns "
				       "(292 years); not a plausible trace",
				  t->nact);
			goto input_error;
		}
	sort_ranges(t->r, t->nr);
	sort_acts(t->act, t->nact);
	sort_acts(t->gpu_ann, t->ngpu_ann);

	/* one pass over the sorted ranges (each pass reads them all from
	 * memory): the sum of their durations (checked below, the order does
	 * not matter), thread groups, zero-length ranges, and the steps from
	 * the marker ranges as written */
	for (uint32_t i = 0; i < t->nth; i++)
		t->th[i].first = t->th[i].n = 0;
	VEC(struct trace_step) steps = VEC_INIT;
	int64_t ordinal = 0;
	size_t mlen = strlen(marker);
	bool ovf = false;
	total = 0;
	for (uint32_t i = 0; i < t->nr; i++) {
		struct trace_range *r = &t->r[i];
		if (!ovf && __builtin_add_overflow(total, r->end - r->start, &total))
			ovf = true;
		struct trace_thread *th = &t->th[r->thread];
		if (!th->n)
			th->first = i;
		th->n++;
		if (r->end == r->start)
			t->warn.zero_len++;
		if (r->kind != TR_ANNOTATION && r->kind != TR_OP)
			continue;
		const char *nm = pool_str(t->names, r->name);
		if (nm[0] != marker[0] || pool_len(t->names, r->name) < mlen)
			continue;
		int64_t num;
		if (!names_step(nm, pool_len(t->names, r->name), marker, &num))
			continue;
		r->flags |= TRF_STEP;
		struct trace_step *s = vec_add(&steps);
		s->start = r->start;
		s->end = r->end;
		s->number = num;
		s->range = i;
		s->thread = r->thread;
	}
	if (ovf) {
		vec_free(&steps);
		sbuf_setf(err, "the durations of the %u host ranges add up to more than 2^63-1 ns "
			       "(292 years); not a plausible trace",
			  t->nr);
		goto input_error;
	}
	if (steps.n)
		qsort(steps.v, steps.n, sizeof *steps.v, cmp_step);
	for (size_t i = 0; i < steps.n; i++)
		if (steps.v[i].number < 0)
			steps.v[i].number = ordinal++;
	t->steps = steps.v;
	t->nsteps = (uint32_t)steps.n;

	/* nesting per thread */
	struct nest_scratch ns;
	memset(&ns, 0, sizeof ns);
	for (uint32_t i = 0; i < t->nth; i++)
		if (t->th[i].n)
			nest_thread(t, b, t->th[i].first, t->th[i].first + t->th[i].n, &ns);
	nest_scratch_free(&ns);
	/* one pass over the nested ranges: blocking calls per thread, the
	 * window (ends as clipped), the correlated calls link_acts needs */
	bool any = false;
	struct corr_calls cc = { 0, INT64_MAX, INT64_MIN, gf_xcalloc(t->nth ? t->nth : 1, sizeof *cc.has) };
	for (uint32_t i = 0; i < t->nr; i++) {
		const struct trace_range *r = &t->r[i];
		if (r->flags & TRF_SYNC)
			t->th[r->thread].syncs++;
		if (!any || r->start < t->win_start)
			t->win_start = r->start;
		if (!any || r->end > t->win_end)
			t->win_end = r->end;
		any = true;
		if ((r->kind == TR_RUNTIME || r->kind == TR_DRIVER) && r->corr != KEV_NONE) {
			cc.n++;
			cc.has[r->thread] = true;
			cc.lo = GF_MIN(cc.lo, r->corr);
			cc.hi = GF_MAX(cc.hi, r->corr);
		}
	}
	link_acts(t, b, &cc);
	free(cc.has);
	find_devices(t);
	trace_coll_resolve(t, &b->coll);
	if (GF_CHECKS)
		check_model(t);

	for (uint32_t i = 0; i < t->nact; i++) {
		if (!any || t->act[i].start < t->win_start)
			t->win_start = t->act[i].start;
		if (!any || t->act[i].end > t->win_end)
			t->win_end = t->act[i].end;
		any = true;
	}
	build_free(b);
	t->priv_ = NULL;
	return GF_OK;
input_error:
	/* finished all the same: the records are t's (trace_release frees
	 * them), and a second call is an error, not a second hand-over */
	build_free(b);
	t->priv_ = NULL;
	return GF_EINPUT;
}

/* --- queries --- */

size_t trace_ancestors(const struct trace *t, uint32_t ri, uint32_t *buf, size_t cap)
{
	size_t depth = 0;
	for (uint32_t q = ri; q != TRACE_NONE; q = t->r[q].parent)
		depth++;
	size_t k = GF_MIN(depth, cap), i = k;
	for (uint32_t q = ri; q != TRACE_NONE && i; q = t->r[q].parent)
		buf[--i] = q;
	return depth;
}

uint32_t trace_innermost(const struct trace *t, uint32_t th, gf_ns ts)
{
	if (th >= t->nth || !t->th[th].n)
		return TRACE_NONE;
	uint32_t l = t->th[th].first, h = l + t->th[th].n;
	/* last range with start <= ts */
	while (l < h) {
		uint32_t m = l + (h - l) / 2;
		if (t->r[m].start <= ts)
			l = m + 1;
		else
			h = m;
	}
	if (l == t->th[th].first)
		return TRACE_NONE;
	for (uint32_t q = l - 1; q != TRACE_NONE; q = t->r[q].parent)
		if (t->r[q].end > ts && t->r[q].start <= ts)
			return q;
	return TRACE_NONE;
}

uint32_t trace_enclosing_kind(const struct trace *t, uint32_t ri, int kind)
{
	for (uint32_t q = ri; q != TRACE_NONE; q = t->r[q].parent)
		if (t->r[q].kind == kind)
			return q;
	return TRACE_NONE;
}

uint32_t trace_device_index(const struct trace *t, int device)
{
	uint32_t l = 0, h = t->ndev; /* the devices are sorted (find_devices) */
	while (l < h) {
		uint32_t m = l + (h - l) / 2;
		if (t->dev[m].device < device)
			l = m + 1;
		else
			h = m;
	}
	return l < t->ndev && t->dev[l].device == device ? l : TRACE_NONE;
}

const gf_ns *trace_busy(struct trace *t, uint32_t di, size_t *n)
{
	struct trace_device *d = &t->dev[di];
	if (!d->busy_done) {
		size_t cap = 0, k = 0;
		gf_ns *v = NULL;
		for (uint32_t a = 0; a < t->nact; a++) {
			const struct trace_act *A = &t->act[a];
			if (A->device != d->device || A->end <= A->start)
				continue;
			if (k && A->start <= v[2 * k - 1]) {
				if (A->end > v[2 * k - 1])
					v[2 * k - 1] = A->end;
				continue;
			}
			if (k == cap) {
				cap = cap ? cap * 2 : 256;
				v = gf_xreallocarray(v, cap, 2 * sizeof *v);
			}
			v[2 * k] = A->start;
			v[2 * k + 1] = A->end;
			k++;
		}
		d->busy = v;
		d->nbusy = k;
		d->busy_done = true;
	}
	*n = d->nbusy;
	return d->busy;
}

uint32_t trace_step_at(const struct trace *t, gf_ns ts)
{
	uint32_t l = 0, h = t->nsteps;
	while (l < h) {
		uint32_t m = l + (h - l) / 2;
		if (t->steps[m].start <= ts)
			l = m + 1;
		else
			h = m;
	}
	/* steps may overlap in odd traces: look back a little */
	for (uint32_t k = l; k > 0 && l - k < 4; k--)
		if (t->steps[k - 1].start <= ts && ts < t->steps[k - 1].end)
			return k - 1;
	return TRACE_NONE;
}

uint32_t trace_act_lower(const struct trace *t, gf_ns ts)
{
	uint32_t l = 0, h = t->nact;
	while (l < h) {
		uint32_t m = l + (h - l) / 2;
		if (t->act[m].start < ts)
			l = m + 1;
		else
			h = m;
	}
	return l;
}

/* First range of thread th with start > ts (after) or >= ts (not after). */
static uint32_t range_bound(const struct trace *t, uint32_t th, gf_ns ts, bool after)
{
	uint32_t l = t->th[th].first, h = l + t->th[th].n;
	while (l < h) {
		uint32_t m = l + (h - l) / 2;
		if (t->r[m].start < ts || (after && t->r[m].start == ts))
			l = m + 1;
		else
			h = m;
	}
	return l;
}

uint32_t trace_range_lower(const struct trace *t, uint32_t th, gf_ns ts)
{
	return range_bound(t, th, ts, false);
}

uint32_t trace_range_upper(const struct trace *t, uint32_t th, gf_ns ts)
{
	return range_bound(t, th, ts, true);
}


const char *trace_device_kind(unsigned k, char buf[64])
{
	buf[0] = 0;
	size_t n = 0;
	if (k & KDEV_HIP) /* a "cuda_runtime" category holding hip* calls is ROCm's */
		k &= ~KDEV_CUDA;
	for (size_t i = 0; i < KDEV_N; i++) {
		if (!(k & kdev_defs[i].bit))
			continue;
		int w = snprintf(buf + n, 64 - n, "%s%s", n ? "+" : "", kdev_defs[i].name);
		if (w < 0 || (size_t)w >= 64 - n)
			break;
		n += (size_t)w;
	}
	return buf;
}

const struct trace_kcfg *trace_kcfg_top(const struct trace *t, uint32_t name)
{
	const struct trace_kcfg *best = NULL;
	for (uint32_t i = 0; i < t->nkcfg; i++) {
		const struct trace_kcfg *c = &t->kcfg[i];
		if (c->name != name)
			continue;
		if (!best || c->count > best->count || (c->count == best->count && c->time > best->time))
			best = c;
	}
	return best;
}

void trace_kcfg_text(const struct trace_kcfg *c, struct sbuf *b)
{
	size_t at = b->len;
	if (c->grid[0] >= 0)
		sbuf_addf(b, "grid %dx%dx%d", c->grid[0], c->grid[1], c->grid[2]);
	if (c->block[0] >= 0)
		sbuf_addf(b, "%sblock %dx%dx%d", b->len > at ? ", " : "", c->block[0], c->block[1], c->block[2]);
	if (c->regs >= 0)
		sbuf_addf(b, "%s%d regs", b->len > at ? ", " : "", c->regs);
	if (c->occupancy != KEV_NONE) {
		sbuf_addstr(b, b->len > at ? ", " : "");
		num_fmt(b, c->occupancy, 3);
		sbuf_addstr(b, "% occupancy");
	}
}
