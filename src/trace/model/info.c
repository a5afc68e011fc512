/* info.c — trace summary and warnings for `gpuflame info` (see info.h). */
#include "trace/model/info.h"

#include "base/names.h"
#include "input/source.h"

#include <stdlib.h>
#include <string.h>

enum {
	NF_DONE = 1,
	NF_STEP = 2,
	NF_MODULE = 4,
	NF_GRAPH = 8,
	NF_NCCL = 16,
	NF_SYNC = 32,
};

struct info *info_new(struct pool *names)
{
	struct info *in = gf_xcalloc(1, sizeof *in);
	in->names = names;
	return in;
}

void info_free(struct info *in)
{
	if (!in)
		return;
	vec_free(&in->track_events);
	vec_free(&in->name_flags);
	vec_free(&in->steps);
	vec_free(&in->rt_corr);
	vec_free(&in->gpu_corr);
	vec_free(&in->host);
	free(in);
}

/* The classes of a name (base/names.h), cached per pool id; a step
 * marker's number goes to *num (-1 for the bare marker). */
static unsigned name_flags(struct info *in, uint32_t id)
{
	if (id >= in->name_flags.n) {
		size_t n = (size_t)id + 1;
		vec_reserve(&in->name_flags, n);
		memset(in->name_flags.v + in->name_flags.n, 0, n - in->name_flags.n);
		in->name_flags.n = n;
	}
	uint8_t f = in->name_flags.v[id];
	if (f & NF_DONE)
		return f;
	const char *s = pool_str(in->names, id);
	size_t n = pool_len(in->names, id);
	int64_t num;
	f = NF_DONE;
	if (names_step(s, n, names_marker(in->marker), &num))
		f |= NF_STEP;
	if (names_is_module(s, n))
		f |= NF_MODULE;
	unsigned api = names_api(s, n);
	if (api & NAMES_API_GRAPH)
		f |= NF_GRAPH;
	if (api & NAMES_API_SYNC)
		f |= NF_SYNC;
	if (names_is_comm(s, n))
		f |= NF_NCCL;
	in->name_flags.v[id] = f;
	return f;
}

int info_event(void *ctx, const struct kev *e)
{
	struct info *in = ctx;
	if (e->kc == KC_METADATA)
		return 0;
	if (e->track >= in->track_events.n) {
		size_t n = (size_t)e->track + 1;
		vec_reserve(&in->track_events, n);
		memset(in->track_events.v + in->track_events.n, 0, (n - in->track_events.n) * sizeof(uint64_t));
		in->track_events.n = n;
	}
	in->track_events.v[e->track]++;
	/* the model's range (trace_times_usable), so that ts + dur and every
	 * difference of two times fit in int64 */
	gf_ns dur = e->dur != KEV_NONE && e->dur > 0 ? e->dur : 0;
	bool usable = trace_times_usable(e->ts, dur);
	bool gpu = e->kc == KC_KERNEL || e->kc == KC_GPU_MEMCPY || e->kc == KC_GPU_MEMSET;
	if (gpu) {
		if (e->ph == 'X' && e->dur != KEV_NONE && usable) {
			in->gpu_weighted++;
			if (__builtin_add_overflow(in->gpu_time_ns, dur, &in->gpu_time_ns))
				in->gpu_time_overflow = true;
		} else {
			in->gpu_unweighted++;
		}
	}
	if (!usable)
		in->out_of_range++;
	gf_ns end = usable ? e->ts + dur : 0;
	if (!usable) {
		/* not in the span */
	} else if (!in->have_span) {
		in->have_span = true;
		in->t_min = e->ts;
		in->t_max = end;
	} else {
		if (e->ts < in->t_min)
			in->t_min = e->ts;
		if (end > in->t_max)
			in->t_max = end;
	}
	unsigned f = name_flags(in, e->name);
	switch (e->kc) {
	case KC_USER_ANNOTATION:
	case KC_CPU_OP:
		/* a step when the model keeps the range (trace_add_event) */
		if ((f & NF_STEP) && e->ph == 'X' && e->dur != KEV_NONE && usable) {
			int64_t num;
			names_step(pool_str(in->names, e->name), pool_len(in->names, e->name), names_marker(in->marker),
				   &num);
			if (num >= 0)
				vec_push(&in->steps, num);
			else
				in->step_bare++;
			in->step_events++;
		}
		break;
	case KC_PYTHON_FUNCTION:
		in->python_events++;
		if (f & NF_MODULE)
			in->module_events++;
		break;
	case KC_CUDA_RUNTIME:
	case KC_CUDA_DRIVER:
		in->rt_events++;
		if (f & NF_GRAPH)
			in->graph_launches++;
		if (f & NF_SYNC)
			in->sync_calls++;
		if (e->correlation != KEV_NONE) {
			struct info_rtc rc = { e->correlation, (int64_t)e->track };
			vec_push(&in->rt_corr, rc);
		}
		if (e->external_id != KEV_NONE) {
			in->rt_with_ext++;
			if (e->external_id == e->correlation)
				in->rt_ext_eq_corr++;
		}
		break;
	case KC_CUDA_SYNC:
		in->dev_syncs++;
		in->dev_sync_kind[trace_sync_kind_of(pool_str(in->names, e->name), pool_len(in->names, e->name))]++;
		if (e->wait_stream != KEV_NONE && e->wait_stream >= 0)
			in->dev_sync_wait_stream++;
		if (e->wait_corr != KEV_NONE && e->wait_corr > 0)
			in->dev_sync_wait_corr++;
		break;
	case KC_INSTANT:
		if (pool_len(in->names, e->name) == 8 && !memcmp(pool_str(in->names, e->name), "[memory]", 8)) {
			in->mem_events++;
			int64_t by = e->bytes == KEV_NONE ? 0 : e->bytes;
			if (by > 0) {
				in->mem_allocs++;
				in->mem_overflow |= __builtin_add_overflow(in->mem_alloc_bytes, by, &in->mem_alloc_bytes);
			} else if (by < 0 && by != INT64_MIN) {
				in->mem_frees++;
				in->mem_overflow |= __builtin_add_overflow(in->mem_freed_bytes, -by, &in->mem_freed_bytes);
			}
			if (e->total_alloc != KEV_NONE && e->total_alloc > in->mem_peak)
				in->mem_peak = e->total_alloc;
		}
		break;
	case KC_KERNEL:
	case KC_GPU_MEMCPY:
	case KC_GPU_MEMSET:
		if (e->kc == KC_KERNEL && (e->grid[0] >= 0 || e->block[0] >= 0 || e->regs >= 0 || e->occupancy != KEV_NONE))
			in->kernels_with_config++;
		in->gpu_activities++;
		if (e->kc == KC_KERNEL && (f & NF_NCCL))
			in->nccl_kernels++;
		if (e->correlation != KEV_NONE) {
			struct info_corr c = { e->correlation, e->ts };
			vec_push(&in->gpu_corr, c);
		}
		if (e->external_id != KEV_NONE) {
			in->gpu_with_ext++;
			if (e->external_id == e->correlation)
				in->gpu_ext_eq_corr++;
		}
		break;
	default:
		break;
	}
	if (e->ph == 'X' && e->dur != KEV_NONE && usable &&
	    (e->kc == KC_CPU_OP || e->kc == KC_USER_ANNOTATION || e->kc == KC_PYTHON_FUNCTION ||
	     e->kc == KC_CUDA_RUNTIME || e->kc == KC_CUDA_DRIVER)) {
		struct info_hev h = { e->track, e->name, e->ts, end };
		vec_push(&in->host, h);
		if (__builtin_add_overflow(in->host_time_ns, dur, &in->host_time_ns))
			in->host_time_overflow = true;
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Sorts v[0..n) ascending; nothing to do when it already is (the usual case
 * for correlation ids and steps, written in order). */
static void sort_i64(int64_t *v, size_t n)
{
	size_t i = 1;
	while (i < n && v[i - 1] <= v[i])
		i++;
	if (i < n)
		qsort(v, n, sizeof *v, cmp_i64);
}

/* Whether sorted v[0..n) holds x. */
static bool has_i64(const int64_t *v, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo] == x;
}

static int cmp_rtc(const void *a, const void *b)
{
	const struct info_rtc *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Sorts by (corr, pid); nothing to do when already in order. */
static void sort_rtc(struct info_rtc *v, size_t n)
{
	size_t i = 1;
	while (i < n && cmp_rtc(&v[i - 1], &v[i]) <= 0)
		i++;
	if (i < n)
		qsort(v, n, sizeof *v, cmp_rtc);
}

static inline bool hev_lt(const struct info_hev *x, const struct info_hev *y)
{
	if (x->track != y->track)
		return x->track < y->track;
	if (x->ts != y->ts)
		return x->ts < y->ts;
	return x->end > y->end; /* longer first: parents before children */
}

/* Stable merge sort of v[0..n) by hev_lt with scratch tmp[0..n) (the order
 * of qsort(cmp_hev) in glibc, which is a stable merge sort). */
static void hev_msort(struct info_hev *v, struct info_hev *tmp, size_t n)
{
	if (n < 2)
		return;
	if (n <= 16) { /* insertion sort: stable */
		for (size_t i = 1; i < n; i++) {
			struct info_hev x = v[i];
			size_t j = i;
			while (j && hev_lt(&x, &v[j - 1])) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
		return;
	}
	size_t h = n / 2;
	hev_msort(v, tmp, h);
	hev_msort(v + h, tmp, n - h);
	if (!hev_lt(&v[h], &v[h - 1]))
		return; /* already in order */
	memcpy(tmp, v, h * sizeof *v);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		v[k++] = hev_lt(&v[j], &tmp[i]) ? v[j++] : tmp[i++];
	while (i < h)
		v[k++] = tmp[i++];
}

/* Sorts the host events by (track, ts, longer first), stably: events come
 * mostly in time order per track, so a stable counting sort by track
 * followed by a merge sort of each (nearly sorted) track is linear in
 * practice. */
static void sort_host(struct info *in)
{
	size_t n = in->host.n;
	struct info_hev *v = in->host.v;
	size_t i = 1;
	while (i < n && !hev_lt(&v[i], &v[i - 1]))
		i++;
	if (i >= n)
		return;
	uint32_t ntr = 0;
	for (size_t k = 0; k < n; k++)
		if (v[k].track >= ntr)
			ntr = v[k].track + 1;
	size_t *start = gf_xcalloc((size_t)ntr + 1, sizeof *start);
	for (size_t k = 0; k < n; k++)
		start[v[k].track + 1]++;
	for (uint32_t t = 0; t < ntr; t++)
		start[t + 1] += start[t];
	struct info_hev *out = gf_xreallocarray(NULL, n, sizeof *out);
	for (size_t k = 0; k < n; k++)
		out[start[v[k].track]++] = v[k]; /* start[t] ends as the end of track t */
	struct info_hev *tmp = gf_xreallocarray(NULL, n / 2 + 1, sizeof *tmp);
	size_t b = 0;
	for (uint32_t t = 0; t < ntr; t++) {
		size_t e = start[t];
		hev_msort(out + b, tmp, e - b);
		b = e;
	}
	free(tmp);
	free(start);
	free(in->host.v);
	in->host.v = out;
	in->host.cap = n;
}

static void find_overlaps(struct info *in)
{
	sort_host(in);
	VEC(struct info_hev) st = VEC_INIT;
	uint32_t cur = UINT32_MAX;
	for (size_t i = 0; i < in->host.n; i++) {
		const struct info_hev *h = &in->host.v[i];
		if (h->track != cur) {
			st.n = 0;
			cur = h->track;
		}
		while (st.n && vec_last(&st).end <= h->ts)
			st.n--;
		if (st.n && h->end > vec_last(&st).end) {
			if (!in->overlaps) {
				in->overlap_a = vec_last(&st);
				in->overlap_b = *h;
			}
			in->overlaps++;
		}
		vec_push(&st, *h);
	}
	vec_free(&st);
}

void info_finish(struct info *in, const struct kineto_trace *kt)
{
	/* steps: the model numbers bare markers 0, 1, ... by start; sorted, unique */
	for (uint64_t i = 0; i < in->step_bare; i++)
		vec_push(&in->steps, (int64_t)i);
	sort_i64(in->steps.v, in->steps.n);
	size_t k = 0;
	for (size_t i = 0; i < in->steps.n; i++)
		if (!k || in->steps.v[k - 1] != in->steps.v[i])
			in->steps.v[k++] = in->steps.v[i];
	in->steps.n = k;

	/* runtime correlations: the tracks' pids, sorted by (corr, pid); then
	 * the plain sorted ids for the lookups below */
	for (size_t i = 0; i < in->rt_corr.n; i++) {
		uint32_t tr = (uint32_t)in->rt_corr.v[i].pid;
		in->rt_corr.v[i].pid = kt && tr < kt->ntracks ? kt->tracks[tr].pid : KEV_NONE;
	}
	sort_rtc(in->rt_corr.v, in->rt_corr.n);
	VEC(int64_t) pids = VEC_INIT;
	int64_t *ids = gf_xreallocarray(NULL, in->rt_corr.n ? in->rt_corr.n : 1, sizeof *ids);
	size_t nids = 0;
	for (size_t i = 0; i < in->rt_corr.n;) {
		const struct info_rtc *c = &in->rt_corr.v[i];
		size_t j = i;
		while (j < in->rt_corr.n && in->rt_corr.v[j].corr == c->corr) {
			if (!j || in->rt_corr.v[j - 1].pid != in->rt_corr.v[j].pid || j == i)
				vec_push(&pids, in->rt_corr.v[j].pid);
			j++;
		}
		ids[nids++] = c->corr;
		if (in->rt_corr.v[j - 1].pid != c->pid)
			in->corr_shared++; /* sorted by pid within the id: first != last */
		i = j;
	}
	sort_i64(pids.v, pids.n);
	for (size_t i = 0; i < pids.n; i++)
		if (!i || pids.v[i - 1] != pids.v[i])
			in->corr_processes++;
	vec_free(&pids);
	int64_t min_rt = nids ? ids[0] : INT64_MAX;
	in->before_window_last_ts = KEV_NONE;
	for (size_t i = 0; i < in->gpu_corr.n; i++) {
		const struct info_corr *c = &in->gpu_corr.v[i];
		if (has_i64(ids, nids, c->corr)) {
			in->gpu_linked++;
			continue;
		}
		in->gpu_unlinked++;
		if (c->corr < min_rt) {
			in->gpu_before_window++;
			if (in->before_window_last_ts == KEV_NONE || c->ts > in->before_window_last_ts)
				in->before_window_last_ts = c->ts;
		}
	}
	free(ids);
	/* the pre-2024-10 Kineto bug: unlinked runtime calls got External id =
	 * their own correlation; flagged when most runtime calls show it */
	in->external_id_bogus = in->rt_ext_eq_corr > 0 && in->rt_ext_eq_corr * 2 >= in->rt_with_ext;
	find_overlaps(in);
}

int info_load(struct info_file *f, const char *path, const struct trace_opts *o, struct sbuf *err)
{
	memset(f, 0, sizeof *f);
	f->names = pool_new();
	kineto_init(&f->kt, f->names);
	f->in = info_new(f->names);
	if (o)
		f->in->marker = o->step_marker;
	int rc = trace_read(&f->kt, path, info_event, f->in, o, err);
	if (rc) {
		info_release(f);
		return rc;
	}
	info_finish(f->in, &f->kt);
	return GF_OK;
}

void info_release(struct info_file *f)
{
	info_free(f->in);
	kineto_release(&f->kt);
	pool_free(f->names);
	memset(f, 0, sizeof *f);
}

const char *info_compression(const struct info_file *f)
{
	return source_kind_name(f->kt.stats.compression);
}

const char *info_format(const struct info_file *f)
{
	return f->kt.meta.legacy_events ? "legacy-autograd" : "kineto";
}
