/*
 * test_model_hostile.c — the trace model and info under hostile times and
 * ids (issue 16, "Hold under attack"):
 *  - GPU activities without usable times (dur absent/null/1e400 = KEV_NONE,
 *    not a complete event, ts/dur beyond 2^61 ns) are counted in
 *    warn.unweighted, never in a GPU sum, and info counts the same ones with
 *    the same GPU total;
 *  - the sum of all GPU durations, or of all host range durations, beyond
 *    INT64_MAX is an input error of trace_finish (no signed overflow in any
 *    partial sum after it), and info says so;
 *  - info's span and host intervals never compute an overflowing ts + dur;
 *  - correlation ids that collide across processes link within the
 *    device's process (merged multi-rank traces); one process is unchanged.
 * Run under ASan+UBSan: an overflow is a failure there.
 */
#include "t.h"
#include "tkev.h"

#include "trace/model/info.h"
#include "trace/model/trace.h"

#include <stdlib.h>

/* tracks: 0 host pid 100, 1 GPU 0 stream 7, 2 host pid 200, 3 GPU 1 stream 7 */
static struct ktrack tracks[4];

static void tracks_init(void)
{
	memset(tracks, 0, sizeof tracks);
	tracks[0] = (struct ktrack){ 100, 100, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, false, false };
	tracks[1] = (struct ktrack){ 0, 7, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, true, true };
	tracks[2] = (struct ktrack){ 200, 200, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, false, false };
	tracks[3] = (struct ktrack){ 1, 7, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, true, true };
}

/* Each event goes to the model and to info, as trace_load and info do. */
struct both {
	struct trace t;
	struct info *in;
	struct kineto_trace kt; /* only .tracks/.ntracks, for info_finish */
};

static void both_init(struct both *b)
{
	tracks_init();
	trace_init(&b->t, NULL);
	b->in = info_new(b->t.names);
	memset(&b->kt, 0, sizeof b->kt);
	b->kt.tracks = tracks;
	b->kt.ntracks = 4;
}

static void both_release(struct both *b)
{
	info_free(b->in);
	trace_release(&b->t);
}

static void add(struct both *b, struct kev e)
{
	trace_add_event(&b->t, &e, &tracks[e.track]);
	info_event(b->in, &e);
}

static struct kev ev(struct both *b, int kc, const char *name, int64_t ts, int64_t dur, uint32_t track)
{
	return tkev(b->t.names, kc, name, ts, dur, track);
}

static struct kev corr(struct kev e, int64_t c)
{
	e.correlation = c;
	return e;
}

static int finish(struct both *b, struct sbuf *err)
{
	int rc = trace_finish(&b->t, NULL, err);
	info_finish(b->in, &b->kt);
	return rc;
}

/* Sum of the durations the model keeps (what fold --weight gpu folds). */
static int64_t model_gpu_sum(const struct trace *t)
{
	int64_t s = 0;
	for (uint32_t i = 0; i < t->nact; i++)
		s += t->act[i].end - t->act[i].start;
	return s;
}

/* Name of the launching call's enclosing op of activity a, "-" if none. */
static const char *launch_op(const struct trace *t, uint32_t a)
{
	uint32_t L = t->act[a].launch;
	if (L == TRACE_NONE)
		return "-";
	uint32_t op = trace_enclosing_kind(t, L, TR_OP);
	return op == TRACE_NONE ? "?" : trace_rname(t, op);
}

T_TEST(test_model_hostile__unweighted_counted_same_as_info)
{
	struct both b;
	both_init(&b);
	struct sbuf err = SBUF_INIT;
	add(&b, ev(&b, KC_CPU_OP, "aten::mm", 100, 1000, 0));
	for (int i = 1; i <= 6; i++)
		add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 100 + 10 * i, 5, 0), i));
	add(&b, corr(ev(&b, KC_KERNEL, "gemm", 200, 50, 1), 1));                 /* weighted */
	add(&b, corr(ev(&b, KC_KERNEL, "gemm", 300, KEV_NONE, 1), 2));           /* dur null / 1e400 */
	struct kev inst = corr(ev(&b, KC_KERNEL, "gemm", 310, KEV_NONE, 1), 3);  /* not a complete event */
	inst.ph = 'i';
	add(&b, inst);
	add(&b, corr(ev(&b, KC_GPU_MEMCPY, "Memcpy DtoH", 320, TRACE_MAX_TIME + 1, 1), 4)); /* dur too long */
	add(&b, corr(ev(&b, KC_GPU_MEMSET, "Memset", TRACE_MAX_TIME + 1, 5, 1), 5));       /* ts too far */
	add(&b, corr(ev(&b, KC_KERNEL, "neg", 400, 0, 1), 6));                   /* dur 0: weighted, 0 ns */
	T_EQ_I64(finish(&b, &err), GF_OK);
	T_EQ_I64(b.t.nact, 2);
	T_EQ_I64(b.t.warn.unweighted, 4);
	T_EQ_I64(b.in->gpu_activities, 6);
	T_EQ_I64(b.in->gpu_unweighted, 4);
	T_EQ_I64(b.in->gpu_weighted, 2);
	T_EQ_I64(b.in->gpu_time_ns, 50);
	T_EQ_I64(model_gpu_sum(&b.t), b.in->gpu_time_ns);
	T_TRUE(!b.in->gpu_time_overflow);
	/* both out-of-range ones are also out of info's span */
	T_EQ_I64(b.in->out_of_range, 2);
	T_EQ_I64(b.in->t_min, 100);
	T_EQ_I64(b.in->t_max, 1100);
	/* the shared wording */
	struct sbuf m = SBUF_INIT;
	trace_msg_unweighted(&m, b.t.warn.unweighted);
	T_TRUE(strstr(m.buf, "4 GPU activities are unweighted: dur missing or out of range") == m.buf);
	sbuf_release(&m);
	sbuf_release(&err);
	both_release(&b);
}

T_TEST(test_model_hostile__gpu_sum_overflow_is_an_error)
{
	struct both b;
	both_init(&b);
	struct sbuf err = SBUF_INIT;
	add(&b, ev(&b, KC_CPU_OP, "aten::mm", 0, 100, 0));
	/* four kernels of 2^61 ns each: every one in range, their sum is 2^63 */
	for (int i = 0; i < 4; i++) {
		add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 1 + i, 1, 0), i + 1));
		struct kev k = corr(ev(&b, KC_KERNEL, "gemm", 10, TRACE_MAX_TIME, 1), i + 1);
		k.stream = 7 + i;
		add(&b, k);
	}
	T_EQ_I64(finish(&b, &err), GF_EINPUT);
	T_TRUE(strstr(err.buf, "add up to more than 2^63-1 ns") != NULL);
	T_TRUE(b.in->gpu_time_overflow);
	T_EQ_I64(b.in->gpu_weighted, 4);
	sbuf_release(&err);
	both_release(&b);
}

T_TEST(test_model_hostile__host_sum_overflow_is_an_error)
{
	struct both b;
	both_init(&b);
	struct sbuf err = SBUF_INIT;
	/* five nested ranges of about 2^61 ns on one thread: each in range */
	for (int i = 0; i < 5; i++)
		add(&b, ev(&b, i ? KC_CPU_OP : KC_USER_ANNOTATION, "r", i, TRACE_MAX_TIME - 2 * i, 0));
	T_EQ_I64(finish(&b, &err), GF_EINPUT);
	T_TRUE(strstr(err.buf, "the durations of the 5 host ranges add up to more than 2^63-1 ns") == err.buf);
	T_TRUE(b.in->host_time_overflow);
	T_TRUE(!b.in->gpu_time_overflow);
	/* the failed trace is finished: a second call says so, it does not
	 * hand the (already handed) records over again */
	T_EQ_I64(trace_finish(&b.t, NULL, &err), GF_EINTERNAL);
	T_EQ_STR(err.buf, "trace_finish called twice");
	T_EQ_I64(b.t.nr, 5);
	trace_add_event(&b.t, &(struct kev){ .kc = KC_CPU_OP }, &tracks[0]); /* ignored, no crash */
	sbuf_release(&err);
	both_release(&b);
}

/* info finds the steps the model finds: the same names (names_step), the
 * same kinds (user_annotation, cpu_op), only ranges the model keeps (ph X
 * with a dur), bare markers numbered 0, 1, ... — with the default marker
 * and with a custom one. Expected numbers written out by hand. */
T_TEST(test_model_hostile__steps_same_as_info)
{
	static const struct {
		const char *marker;
		size_t nexp;
		int64_t exp[4];
	} m[] = { { NULL, 4, { 0, 1, 3, 8 } }, { "decode", 2, { 0, 2 } } };
	for (size_t k = 0; k < 2; k++) {
		struct both b;
		both_init(&b);
		b.in->marker = m[k].marker;
		struct sbuf err = SBUF_INIT;
		add(&b, ev(&b, KC_USER_ANNOTATION, "ProfilerStep#3", 100, 10, 0));
		add(&b, ev(&b, KC_USER_ANNOTATION, "ProfilerStep", 200, 10, 0));       /* bare: 0 */
		add(&b, ev(&b, KC_USER_ANNOTATION, "ProfilerStep", 300, 10, 0));       /* bare: 1 */
		add(&b, ev(&b, KC_USER_ANNOTATION, "ProfilerStep#12abc", 400, 10, 0)); /* not a step */
		add(&b, ev(&b, KC_USER_ANNOTATION, "ProfilerStep# 4", 450, 10, 0));    /* not a step */
		struct kev inst = ev(&b, KC_USER_ANNOTATION, "ProfilerStep#5", 500, 0, 0);
		inst.ph = 'i';                                                         /* not a range */
		add(&b, inst);
		add(&b, ev(&b, KC_USER_ANNOTATION, "ProfilerStep#7", 600, KEV_NONE, 0)); /* no dur */
		add(&b, ev(&b, KC_CPU_OP, "ProfilerStep#8", 700, 10, 0));
		add(&b, ev(&b, KC_PYTHON_FUNCTION, "ProfilerStep#9", 800, 10, 0));    /* not a marker kind */
		add(&b, ev(&b, KC_USER_ANNOTATION, "decode#2", 900, 10, 0));
		add(&b, ev(&b, KC_USER_ANNOTATION, "decode", 1000, 10, 0));
		add(&b, ev(&b, KC_USER_ANNOTATION, "decode#", 1100, 10, 0));           /* not a step */
		struct trace_opts o = { .step_marker = m[k].marker };
		T_EQ_I64(trace_finish(&b.t, &o, &err), GF_OK);
		info_finish(b.in, &b.kt);
		T_EQ_I64(b.in->steps.n, m[k].nexp);
		T_EQ_I64(b.t.nsteps, m[k].nexp);
		T_EQ_I64(b.in->step_events, b.t.nsteps);
		for (size_t i = 0; i < m[k].nexp && i < b.in->steps.n; i++)
			T_EQ_I64(b.in->steps.v[i], m[k].exp[i]);
		/* the model's numbers, sorted, are the same set */
		int64_t got[8];
		uint32_t n = b.t.nsteps < 8 ? b.t.nsteps : 8;
		for (uint32_t i = 0; i < n; i++)
			got[i] = b.t.steps[i].number;
		for (uint32_t i = 1; i < n; i++)
			for (uint32_t j = i; j > 0 && got[j - 1] > got[j]; j--) {
				int64_t x = got[j];
				got[j] = got[j - 1];
				got[j - 1] = x;
			}
		for (uint32_t i = 0; i < n && i < m[k].nexp; i++)
			T_EQ_I64(got[i], m[k].exp[i]);
		sbuf_release(&err);
		both_release(&b);
	}
}

/* Graph launches and communication kernels: info counts what the model
 * flags (cuGraphLaunch too; rccl in any case). */
T_TEST(test_model_hostile__classes_same_as_info)
{
	struct both b;
	both_init(&b);
	struct sbuf err = SBUF_INIT;
	add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaGraphLaunch", 100, 5, 0), 1));
	add(&b, corr(ev(&b, KC_CUDA_DRIVER, "cuGraphLaunch", 110, 5, 0), 2));
	add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaGraphLaunchX", 120, 5, 0), 3));
	add(&b, corr(ev(&b, KC_KERNEL, "RCCL_AllReduce", 200, 5, 1), 1));
	add(&b, corr(ev(&b, KC_KERNEL, "ncclKernel", 210, 5, 1), 2));
	add(&b, corr(ev(&b, KC_KERNEL, "gemm", 220, 5, 1), 3));
	T_EQ_I64(finish(&b, &err), GF_OK);
	uint64_t graph = 0, comm = 0;
	for (uint32_t i = 0; i < b.t.nr; i++)
		graph += !!(b.t.r[i].flags & TRF_GRAPH);
	for (uint32_t i = 0; i < b.t.nact; i++)
		comm += !!(b.t.act[i].flags & TAF_NCCL);
	T_EQ_I64(graph, 2);
	T_EQ_I64(comm, 2);
	T_EQ_I64(b.in->graph_launches, graph);
	T_EQ_I64(b.in->nccl_kernels, comm);
	sbuf_release(&err);
	both_release(&b);
}

T_TEST(test_model_hostile__info_extreme_times)
{
	struct both b;
	both_init(&b);
	struct sbuf err = SBUF_INIT;
	/* ts near INT64_MAX ns and a huge dur: ts + dur would overflow */
	int64_t big = INT64_MAX - 1000;
	add(&b, ev(&b, KC_CPU_OP, "far", big, big, 0));
	add(&b, ev(&b, KC_CPU_OP, "far_neg", -big, 5, 0));
	struct kev i = ev(&b, KC_OTHER, "[memory]", big, KEV_NONE, 0);
	i.ph = 'i';
	add(&b, i);
	/* the extremes the model keeps: |ts| = 2^61, dur = 2^61 */
	add(&b, ev(&b, KC_CPU_OP, "edge", -TRACE_MAX_TIME, TRACE_MAX_TIME, 0));
	add(&b, ev(&b, KC_CPU_OP, "edge2", TRACE_MAX_TIME, TRACE_MAX_TIME, 2));
	T_EQ_I64(finish(&b, &err), GF_OK);
	T_EQ_I64(b.in->out_of_range, 3);
	T_TRUE(b.in->have_span);
	T_EQ_I64(b.in->t_min, -TRACE_MAX_TIME);
	T_EQ_I64(b.in->t_max, 2 * TRACE_MAX_TIME);
	T_EQ_I64(b.t.nr, 2);
	T_EQ_I64(b.t.warn.out_of_range, 2); /* the two X host events; the instant is not the model's */
	T_EQ_I64(b.t.win_start, -TRACE_MAX_TIME);
	T_EQ_I64(b.t.win_end, 2 * TRACE_MAX_TIME);
	sbuf_release(&err);
	both_release(&b);
}

/* Two processes (ranks) with colliding ids 1..2; process 200 also has id 3
 * (it issued one call more), which makes device 1 its own; device 0 is then
 * process 100's by elimination (each kernel launch starts one activity). */
T_TEST(test_model_hostile__collision_linked_within_process)
{
	struct both b;
	both_init(&b);
	struct sbuf err = SBUF_INIT;
	add(&b, ev(&b, KC_CPU_OP, "rank0_op", 10, 100, 0));
	add(&b, ev(&b, KC_CPU_OP, "rank1_op", 10, 100, 2));
	for (int c = 1; c <= 3; c++) {
		if (c < 3)
			add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 10 + 10 * c, 5, 0), c));
		add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 11 + 10 * c, 5, 2), c));
	}
	for (int c = 1; c <= 3; c++) {
		if (c < 3)
			add(&b, corr(ev(&b, KC_KERNEL, "gemm_a", 40 + 10 * c, 10, 1), c));
		add(&b, corr(ev(&b, KC_KERNEL, "reduce_b", 41 + 10 * c, 20, 3), c));
	}
	T_EQ_I64(finish(&b, &err), GF_OK);
	T_EQ_I64(b.t.nact, 5);
	for (uint32_t a = 0; a < b.t.nact; a++) {
		const char *k = pool_str(b.t.names, b.t.act[a].name);
		T_EQ_STR(launch_op(&b.t, a), !strcmp(k, "gemm_a") ? "rank0_op" : "rank1_op");
	}
	T_EQ_I64(b.t.warn.processes, 2);
	T_EQ_I64(b.t.warn.corr_shared, 2);
	T_EQ_I64(b.t.warn.cross_process, 0);
	T_EQ_I64(b.t.warn.unattributed, 0);
	T_EQ_I64(b.t.warn.dup_corr, 0);
	T_EQ_I64(b.in->corr_shared, 2);
	T_EQ_I64(b.in->corr_processes, 2);
	struct sbuf m = SBUF_INIT;
	trace_msg_cross_process(&m, &b.t);
	T_TRUE(strstr(m.buf, "2 correlation ids are carried by runtime/driver calls of more than one process") == m.buf);
	sbuf_release(&m);
	sbuf_release(&err);
	both_release(&b);
}

/* A kernel on process 200's device whose id only process 100 carries (it was
 * launched before process 200's window) is not charged to process 100. */
T_TEST(test_model_hostile__foreign_id_left_unattributed)
{
	struct both b;
	both_init(&b);
	struct sbuf err = SBUF_INIT;
	add(&b, ev(&b, KC_CPU_OP, "rank0_op", 10, 100, 0));
	add(&b, ev(&b, KC_CPU_OP, "rank1_op", 10, 100, 2));
	for (int c = 5; c <= 7; c++)
		add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 10 + c, 1, 0), c));
	for (int c = 8; c <= 10; c++)
		add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 10 + c, 1, 2), c));
	for (int c = 5; c <= 7; c++)
		add(&b, corr(ev(&b, KC_KERNEL, "gemm_a", 40 + c, 1, 1), c));
	for (int c = 8; c <= 10; c++)
		add(&b, corr(ev(&b, KC_KERNEL, "reduce_b", 40 + c, 1, 3), c));
	add(&b, corr(ev(&b, KC_KERNEL, "early_b", 30, 3, 3), 6)); /* process 200's id 6: before its window */
	T_EQ_I64(finish(&b, &err), GF_OK);
	for (uint32_t a = 0; a < b.t.nact; a++) {
		const char *k = pool_str(b.t.names, b.t.act[a].name);
		T_EQ_STR(launch_op(&b.t, a), !strcmp(k, "gemm_a") ? "rank0_op" : !strcmp(k, "reduce_b") ? "rank1_op" : "-");
	}
	T_EQ_I64(b.t.warn.cross_process, 1);
	T_EQ_I64(b.t.warn.unattributed, 1);
	T_EQ_I64(b.t.warn.unattributed_ns, 3);
	T_EQ_I64(b.t.warn.before_window, 1); /* 6 < 8, the first id of its device's process */
	T_EQ_I64(b.t.warn.corr_shared, 0);
	sbuf_release(&err);
	both_release(&b);
}

/* Two processes share GPU 0 at different times (ids 1..3 and 7..8, no
 * collision): the device's owner is process 100 (more activities), but
 * process 200's kernels start outside process 100's host time, so they link
 * to process 200's calls. A kernel whose launch would start after it is not
 * a candidate when a call that starts before it exists. */
T_TEST(test_model_hostile__shared_device_and_plausible_times)
{
	struct both b;
	both_init(&b);
	struct sbuf err = SBUF_INIT;
	tracks[3] = tracks[1]; /* process 200 on GPU 0 as well */
	add(&b, ev(&b, KC_CPU_OP, "p100_op", 10, 100, 0));
	for (int c = 1; c <= 3; c++)
		add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 10 + 10 * c, 5, 0), c));
	for (int c = 1; c <= 3; c++)
		add(&b, corr(ev(&b, KC_KERNEL, "k100", 50 + 10 * c, 5, 1), c));
	add(&b, ev(&b, KC_CPU_OP, "p200_op", 10000, 100, 2));
	for (int c = 7; c <= 8; c++)
		add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 10000 + c, 5, 2), c));
	for (int c = 7; c <= 8; c++)
		add(&b, corr(ev(&b, KC_KERNEL, "k200", 10050 + c, 5, 3), c));
	/* id 2 again in process 200, launched late: process 100's id-2 kernel
	 * started long before it */
	add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 10090, 5, 2), 2));
	add(&b, corr(ev(&b, KC_KERNEL, "k200", 10095, 5, 3), 2));
	T_EQ_I64(finish(&b, &err), GF_OK);
	for (uint32_t a = 0; a < b.t.nact; a++) {
		const char *k = pool_str(b.t.names, b.t.act[a].name);
		T_EQ_STR(launch_op(&b.t, a), !strcmp(k, "k100") ? "p100_op" : "p200_op");
	}
	T_EQ_I64(b.t.warn.unattributed, 0);
	T_EQ_I64(b.t.warn.cross_process, 0);
	T_EQ_I64(b.t.warn.corr_shared, 1);
	sbuf_release(&err);
	both_release(&b);
}

/* One process: linking is the plain lookup (first call wins, duplicates
 * counted), whatever the devices. */
T_TEST(test_model_hostile__one_process_unchanged)
{
	struct both b;
	both_init(&b);
	struct sbuf err = SBUF_INIT;
	tracks[2].pid = 100; /* a second thread of the same process */
	add(&b, ev(&b, KC_CPU_OP, "t1_op", 10, 100, 0));
	add(&b, ev(&b, KC_CPU_OP, "t2_op", 10, 100, 2));
	add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 20, 5, 0), 1));
	add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 21, 5, 2), 1)); /* duplicate id */
	add(&b, corr(ev(&b, KC_CUDA_RUNTIME, "cudaLaunchKernel", 30, 5, 2), 2));
	add(&b, corr(ev(&b, KC_KERNEL, "k1", 50, 10, 1), 1));
	add(&b, corr(ev(&b, KC_KERNEL, "k1b", 51, 10, 3), 1));
	add(&b, corr(ev(&b, KC_KERNEL, "k2", 60, 10, 3), 2));
	T_EQ_I64(finish(&b, &err), GF_OK);
	T_EQ_I64(b.t.warn.processes, 1);
	T_EQ_I64(b.t.warn.dup_corr, 1);
	T_EQ_I64(b.t.warn.corr_shared, 0);
	T_EQ_I64(b.t.warn.cross_process, 0);
	for (uint32_t a = 0; a < b.t.nact; a++) {
		const char *k = pool_str(b.t.names, b.t.act[a].name);
		T_EQ_STR(launch_op(&b.t, a), !strcmp(k, "k2") ? "t2_op" : "t1_op");
	}
	T_EQ_I64(b.in->corr_shared, 0);
	T_EQ_I64(b.in->corr_processes, 1);
	sbuf_release(&err);
	both_release(&b);
}

int main(void)
{
	T_RUN(test_model_hostile__unweighted_counted_same_as_info);
	T_RUN(test_model_hostile__gpu_sum_overflow_is_an_error);
	T_RUN(test_model_hostile__host_sum_overflow_is_an_error);
	T_RUN(test_model_hostile__steps_same_as_info);
	T_RUN(test_model_hostile__classes_same_as_info);
	T_RUN(test_model_hostile__info_extreme_times);
	T_RUN(test_model_hostile__collision_linked_within_process);
	T_RUN(test_model_hostile__foreign_id_left_unattributed);
	T_RUN(test_model_hostile__shared_device_and_plausible_times);
	T_RUN(test_model_hostile__one_process_unchanged);
	return t_done();
}
