/*
 * test_trace.c — the trace model (src/trace/model/trace.h), fed with kev records
 * directly (no JSON): nesting and tie order, clipping of partial overlaps,
 * Python parent ids, correlation linking (runtime before driver, graph
 * fan-out, launched-before-window, unattributed), bogus External ids, API
 * classification, steps, busy unions, innermost/sweep queries.
 */
#include "t.h"
#include "tkev.h"

#include "trace/model/trace.h"
#include "trace/model/trace_walk.h"

static struct ktrack tracks[3];

static void tracks_init(void)
{
	memset(tracks, 0, sizeof tracks);
	tracks[0] = (struct ktrack){ 100, 1, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, false, false };
	tracks[1] = (struct ktrack){ 0, 7, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, true, true };
	tracks[2] = (struct ktrack){ 100, 2, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX, false, false };
}

static struct kev ev(struct trace *t, int kc, const char *name, int64_t ts, int64_t dur, uint32_t track)
{
	return tkev(t->names, kc, name, ts, dur, track);
}

static void add(struct trace *t, struct kev e)
{
	trace_add_event(t, &e, &tracks[e.track]);
}

static struct kev corr(struct kev e, int64_t c)
{
	e.correlation = c;
	return e;
}

static struct kev py(struct kev e, int64_t id, int64_t parent)
{
	e.python_id = id;
	e.python_parent_id = parent;
	return e;
}

/* index of the range named n (first one) */
static uint32_t find(const struct trace *t, const char *n)
{
	for (uint32_t i = 0; i < t->nr; i++)
		if (!strcmp(trace_rname(t, i), n))
			return i;
	return TRACE_NONE;
}

static const char *pname(const struct trace *t, uint32_t ri)
{
	uint32_t p = t->r[ri].parent;
	return p == TRACE_NONE ? "-" : trace_rname(t, p);
}

static int finish(struct trace *t, const char *marker)
{
	struct trace_opts o;
	memset(&o, 0, sizeof o);
	o.step_marker = marker;
	struct sbuf err = SBUF_INIT;
	int rc = trace_finish(t, &o, &err);
	sbuf_release(&err);
	return rc;
}

T_TEST(test_trace__nesting_and_link)
{
	struct trace t;
	tracks_init();
	trace_init(&t, NULL);
	/* given out of order, as Kineto writes them */
	add(&t, corr(ev(&t, KC_KERNEL, "void k<int>(int)", 45, 15, 1), 5));
	add(&t, corr(ev(&t, KC_CUDA_RUNTIME, "cudaLaunchKernel", 30, 10, 0), 5));
	add(&t, ev(&t, KC_CPU_OP, "aten::mm", 20, 30, 0));
	add(&t, ev(&t, KC_PYTHON_FUNCTION, "m.py(1): f", 10, 80, 0));
	add(&t, ev(&t, KC_USER_ANNOTATION, "ProfilerStep#7", 0, 100, 0));
	/* same span as its parent: longest-first then kind order keeps python above op */
	add(&t, ev(&t, KC_CPU_OP, "aten::linear", 10, 80, 0));
	T_EQ_I64(finish(&t, NULL), GF_OK);
	T_EQ_I64(t.nr, 5);
	T_EQ_I64(t.nth, 1);
	T_EQ_STR(pname(&t, find(&t, "ProfilerStep#7")), "-");
	T_EQ_STR(pname(&t, find(&t, "m.py(1): f")), "ProfilerStep#7");
	T_EQ_STR(pname(&t, find(&t, "aten::linear")), "m.py(1): f");
	T_EQ_STR(pname(&t, find(&t, "aten::mm")), "aten::linear");
	uint32_t rt = find(&t, "cudaLaunchKernel");
	T_EQ_STR(pname(&t, rt), "aten::mm");
	T_EQ_I64(t.nact, 1);
	T_EQ_I64(t.act[0].launch, rt);
	T_EQ_I64(t.act[0].device, 0);
	T_EQ_I64(t.act[0].stream, 7);
	T_TRUE(t.r[rt].flags & TRF_LAUNCH);
	T_EQ_I64(t.r[rt].nact, 1);
	T_EQ_I64(t.th[0].launches, 1);
	T_EQ_I64(t.nsteps, 1);
	T_EQ_I64(t.steps[0].number, 7);
	T_EQ_I64(t.steps[0].start, 0);
	T_EQ_I64(t.steps[0].end, 100);
	T_TRUE(t.r[find(&t, "ProfilerStep#7")].flags & TRF_STEP);
	T_EQ_I64(trace_innermost(&t, 0, 35), rt);
	T_EQ_I64(trace_innermost(&t, 0, 40), find(&t, "aten::mm"));
	T_EQ_I64(trace_innermost(&t, 0, 95), find(&t, "ProfilerStep#7"));
	T_EQ_I64(trace_innermost(&t, 0, 100), TRACE_NONE);
	T_EQ_I64(trace_innermost(&t, 0, -1), TRACE_NONE);
	uint32_t buf[8];
	T_EQ_I64(trace_ancestors(&t, rt, buf, 8), 5);
	T_EQ_STR(trace_rname(&t, buf[0]), "ProfilerStep#7");
	T_EQ_I64(buf[4], rt);
	T_EQ_I64(trace_ancestors(&t, rt, buf, 2), 5); /* only the innermost 2 */
	T_EQ_I64(buf[1], rt);
	T_EQ_STR(trace_rname(&t, buf[0]), "aten::mm");
	T_EQ_I64(trace_enclosing_kind(&t, rt, TR_PYTHON), find(&t, "m.py(1): f"));
	T_EQ_I64(t.win_start, 0);
	T_EQ_I64(t.win_end, 100);
	T_EQ_I64(trace_step_at(&t, 50), 0);
	T_EQ_I64(trace_step_at(&t, 100), TRACE_NONE);
	trace_release(&t);
}

T_TEST(test_trace__clipping)
{
	struct trace t;
	tracks_init();
	trace_init(&t, NULL);
	/* a 2 ns C-call frame the step starts inside: the frame is cut, the step kept */
	add(&t, ev(&t, KC_PYTHON_FUNCTION, "<built-in method _record_function_enter_new>", 0, 10, 0));
	add(&t, ev(&t, KC_USER_ANNOTATION, "ProfilerStep#1", 5, 200, 0));
	/* a short frame outliving the step: cut at the step's end */
	add(&t, ev(&t, KC_PYTHON_FUNCTION, "profiler.py(811): step", 190, 30, 0));
	T_EQ_I64(finish(&t, NULL), GF_OK);
	T_EQ_I64(t.warn.clipped, 2);
	uint32_t c = find(&t, "<built-in method _record_function_enter_new>");
	uint32_t s = find(&t, "ProfilerStep#1");
	uint32_t p = find(&t, "profiler.py(811): step");
	T_EQ_I64(t.r[c].end, 5);
	T_TRUE(t.r[c].flags & TRF_CLIPPED);
	T_EQ_I64(t.r[s].parent, TRACE_NONE);
	T_EQ_I64(t.r[s].end, 205);
	T_EQ_I64(t.r[p].end, 205);
	T_EQ_I64(t.r[p].parent, s);
	T_TRUE(t.r[p].flags & TRF_CLIPPED);
	T_EQ_I64(t.steps[0].end, 205);
	/* the sweep covers the window exactly, with the innermost range */
	struct trace_walk w;
	trace_walk_init(&w, &t);
	struct trace_wsweep sw;
	trace_wsweep_init(&sw, &w, 0, -5, 300);
	gf_ns a, b, total = 0;
	uint32_t r;
	int n = 0;
	gf_ns want[][2] = { { -5, 0 }, { 0, 5 }, { 5, 190 }, { 190, 205 }, { 205, 300 } };
	uint32_t wr[] = { TRACE_NONE, c, s, p, TRACE_NONE };
	while (trace_wsweep_next(&sw, &a, &b, &r)) {
		if (n < 5) {
			T_EQ_I64(a, want[n][0]);
			T_EQ_I64(b, want[n][1]);
			T_EQ_I64(r, wr[n]);
		}
		total += b - a;
		n++;
	}
	trace_wsweep_release(&sw);
	T_EQ_I64(n, 5);
	T_EQ_I64(total, 305);
	/* a sweep starting inside nested ranges */
	trace_wsweep_init(&sw, &w, 0, 195, 200);
	T_TRUE(trace_wsweep_next(&sw, &a, &b, &r));
	T_EQ_I64(a, 195);
	T_EQ_I64(b, 200);
	T_EQ_I64(r, p);
	T_TRUE(!trace_wsweep_next(&sw, &a, &b, &r));
	trace_wsweep_release(&sw);
	trace_walk_release(&w);
	trace_release(&t);
}

T_TEST(test_trace__python_parent_ids)
{
	struct trace t;
	tracks_init();
	trace_init(&t, NULL);
	add(&t, py(ev(&t, KC_PYTHON_FUNCTION, "P", 0, 100, 0), 1, KEV_NONE));
	add(&t, py(ev(&t, KC_PYTHON_FUNCTION, "Q", 10, 90, 0), 2, 1));
	/* X is inside Q by time, but Python says its parent is P */
	add(&t, py(ev(&t, KC_PYTHON_FUNCTION, "X", 20, 60, 0), 3, 1));
	add(&t, ev(&t, KC_CPU_OP, "aten::op", 30, 10, 0));
	/* a frame called from inside an op keeps the op as parent */
	add(&t, py(ev(&t, KC_PYTHON_FUNCTION, "Y", 32, 4, 0), 4, 3));
	/* an unknown parent id falls back to time */
	add(&t, py(ev(&t, KC_PYTHON_FUNCTION, "Z", 50, 5, 0), 5, 999));
	T_EQ_I64(finish(&t, NULL), GF_OK);
	T_EQ_STR(pname(&t, find(&t, "Q")), "P");
	T_EQ_STR(pname(&t, find(&t, "X")), "P");
	T_TRUE(t.r[find(&t, "X")].flags & TRF_PYFIX);
	T_EQ_STR(pname(&t, find(&t, "aten::op")), "X");
	T_EQ_STR(pname(&t, find(&t, "Y")), "aten::op");
	T_EQ_STR(pname(&t, find(&t, "Z")), "X");
	T_EQ_I64(t.warn.pyparent_fixed, 1);
	/* the python ids were only build state */
	T_EQ_I64(t.r[find(&t, "X")].corr, KEV_NONE);
	trace_release(&t);
}

T_TEST(test_trace__graph_and_unattributed)
{
	struct trace t;
	tracks_init();
	trace_init(&t, NULL);
	add(&t, corr(ev(&t, KC_CUDA_RUNTIME, "cudaGraphLaunch", 100, 20, 0), 50));
	for (int i = 0; i < 3; i++)
		add(&t, corr(ev(&t, KC_KERNEL, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 130 + 10 * i, 5, 1), 50));
	/* launched before the window: correlation below every runtime one */
	add(&t, corr(ev(&t, KC_KERNEL, "early", 90, 7, 1), 3));
	/* a correlation in range but without a runtime event */
	add(&t, corr(ev(&t, KC_GPU_MEMCPY, "Memcpy DtoH (Device -> Pinned)", 300, 11, 1), 60));
	/* the same correlation on a driver and a runtime call: the runtime one wins */
	add(&t, corr(ev(&t, KC_CUDA_DRIVER, "cuLaunchKernel", 200, 10, 2), 55));
	struct kev rt = corr(ev(&t, KC_CUDA_RUNTIME, "cudaLaunchKernel", 198, 14, 0), 55);
	rt.external_id = 55; /* the old Kineto self-correlation bug */
	add(&t, rt);
	add(&t, corr(ev(&t, KC_GPU_MEMSET, "Memset (Device)", 215, 3, 1), 55));
	add(&t, ev(&t, KC_GPU_USER_ANNOTATION, "ProfilerStep#1", 99, 300, 1));
	T_EQ_I64(finish(&t, NULL), GF_OK);
	uint32_t g = find(&t, "cudaGraphLaunch");
	T_TRUE(t.r[g].flags & TRF_GRAPH);
	T_EQ_I64(t.r[g].nact, 3);
	T_EQ_I64(t.nact, 6);
	T_EQ_I64(t.ngpu_ann, 1);
	int graph = 0, nccl = 0;
	for (uint32_t a = 0; a < t.nact; a++) {
		if (t.act[a].launch == g && (t.act[a].flags & TAF_GRAPH))
			graph++;
		if (t.act[a].flags & TAF_NCCL)
			nccl++;
	}
	T_EQ_I64(graph, 3);
	T_EQ_I64(nccl, 3);
	T_EQ_I64(t.act[0].start, 90);
	T_TRUE(t.act[0].flags & TAF_BEFORE);
	T_EQ_I64(t.act[0].launch, TRACE_NONE);
	T_EQ_I64(t.warn.unattributed, 2);
	T_EQ_I64(t.warn.unattributed_ns, 18);
	T_EQ_I64(t.warn.before_window, 1);
	T_EQ_I64(t.warn.bogus_external, 1);
	uint32_t ms = t.nact - 2; /* memset at 215, memcpy at 300 */
	T_EQ_I64(t.act[ms].kind, TA_MEMSET);
	T_EQ_I64(t.act[ms].launch, find(&t, "cudaLaunchKernel"));
	T_EQ_I64(t.act[t.nact - 1].kind, TA_MEMCPY);
	T_TRUE(t.act[t.nact - 1].flags & TAF_DTOH);
	T_EQ_I64(t.act[t.nact - 1].launch, TRACE_NONE);
	T_TRUE(!(t.act[t.nact - 1].flags & TAF_BEFORE));
	T_EQ_I64(t.nth, 2);
	T_EQ_I64(t.ndev, 1);
	T_EQ_I64(t.dev[0].launch_thread, t.r[g].thread);
	T_EQ_I64(t.dev[0].nact, 6);
	T_EQ_I64(t.dev[0].act_ns, 15 + 7 + 11 + 3);
	trace_release(&t);
}

T_TEST(test_trace__busy_union)
{
	struct trace t;
	tracks_init();
	trace_init(&t, NULL);
	struct kev k = ev(&t, KC_KERNEL, "a", 0, 10, 1);
	add(&t, k);
	k = ev(&t, KC_KERNEL, "b", 5, 15, 1);
	k.stream = 13;
	add(&t, k);
	add(&t, ev(&t, KC_KERNEL, "c", 30, 10, 1));
	add(&t, ev(&t, KC_KERNEL, "d", 40, 0, 1));   /* zero length: not busy */
	add(&t, ev(&t, KC_KERNEL, "e", 40, 2, 1));   /* adjacent: merged */
	k = ev(&t, KC_KERNEL, "other device", 0, 100, 1);
	k.device = 1;
	add(&t, k);
	T_EQ_I64(finish(&t, NULL), GF_OK);
	T_EQ_I64(t.ndev, 2);
	uint32_t d0 = trace_device_index(&t, 0);
	T_EQ_I64(d0, 0);
	T_EQ_I64(trace_device_index(&t, 5), TRACE_NONE);
	size_t n;
	const gf_ns *b = trace_busy(&t, d0, &n);
	T_EQ_I64(n, 2);
	T_EQ_I64(b[0], 0);
	T_EQ_I64(b[1], 20);
	T_EQ_I64(b[2], 30);
	T_EQ_I64(b[3], 42);
	b = trace_busy(&t, 1, &n);
	T_EQ_I64(n, 1);
	T_EQ_I64(b[1], 100);
	T_EQ_I64(trace_act_lower(&t, 5), 2);
	T_EQ_I64(t.dev[0].launch_thread, TRACE_NONE);
	trace_release(&t);
}

/* The model's flags come from the one classifier (base/names.h; its table
 * is tests/unit/test_names.c): a blocking call, a memcpy call, a graph
 * launch, an nn.Module frame, a communication kernel, a copy direction. */
T_TEST(test_trace__name_flags)
{
	static const struct {
		const char *name;
		int kc;
		unsigned rflags, aflags;
	} c[] = {
		{ "cudaStreamSynchronize", KC_CUDA_RUNTIME, TRF_SYNC, 0 },
		{ "cuMemcpyDtoH_v2", KC_CUDA_DRIVER, TRF_SYNC | TRF_MEMCPY, 0 },
		{ "cudaMemcpyAsync", KC_CUDA_RUNTIME, TRF_MEMCPY, 0 },
		{ "cuGraphLaunch", KC_CUDA_DRIVER, TRF_GRAPH, 0 },
		{ "cudaLaunchKernel", KC_CUDA_RUNTIME, 0, 0 },
		{ "nn.Module: Linear_0", KC_PYTHON_FUNCTION, TRF_MODULE, 0 },
		{ "rccl_AllReduce_kernel", KC_KERNEL, 0, TAF_NCCL },
		{ "ncclDevKernel", KC_KERNEL, 0, TAF_NCCL },
		{ "gemm", KC_KERNEL, 0, 0 },
		{ "Memcpy DtoH (Device -> Pinned)", KC_GPU_MEMCPY, 0, TAF_DTOH },
		{ "Memcpy PtoP (Device -> Device)", KC_GPU_MEMCPY, 0, TAF_DTOD },
	};
	const unsigned rmask = TRF_SYNC | TRF_MEMCPY | TRF_GRAPH | TRF_MODULE;
	const unsigned amask = TAF_NCCL | TAF_DTOH | TAF_HTOD | TAF_DTOD;
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct trace t;
		struct sbuf err = SBUF_INIT;
		tracks_init();
		trace_init(&t, NULL);
		bool gpu = c[i].kc == KC_KERNEL || c[i].kc == KC_GPU_MEMCPY;
		add(&t, ev(&t, c[i].kc, c[i].name, 100, 10, gpu ? 1 : 0));
		T_EQ_I64(trace_finish(&t, NULL, &err), GF_OK);
		if (gpu) {
			T_EQ_I64(t.nact, 1);
			if (t.nact && (t.act[0].flags & amask) != c[i].aflags)
				T_FAIL_("%s: act flags %#x, expected %#x", c[i].name, t.act[0].flags & amask, c[i].aflags);
		} else {
			T_EQ_I64(t.nr, 1);
			if (t.nr && (t.r[0].flags & rmask) != c[i].rflags)
				T_FAIL_("%s: range flags %#x, expected %#x", c[i].name, t.r[0].flags & rmask, c[i].rflags);
		}
		T_EQ_I64(trace_finish(&t, NULL, &err), GF_EINTERNAL); /* a second call */
		T_TRUE(strstr(err.buf, "called twice") != NULL);
		trace_release(&t);
		sbuf_release(&err);
	}
}

T_TEST(test_trace__step_marker_and_syncs)
{
	struct trace t;
	tracks_init();
	trace_init(&t, NULL);
	add(&t, ev(&t, KC_USER_ANNOTATION, "decode", 100, 50, 0));
	add(&t, ev(&t, KC_USER_ANNOTATION, "decode", 0, 50, 0));
	add(&t, ev(&t, KC_USER_ANNOTATION, "ProfilerStep#1", 0, 200, 2));
	add(&t, corr(ev(&t, KC_CUDA_RUNTIME, "cudaStreamSynchronize", 10, 30, 0), 9));
	struct kev m = ev(&t, KC_OTHER, "thread_name", 0, 0, 0);
	m.ph = 'M';
	add(&t, m); /* ignored */
	add(&t, ev(&t, KC_CPU_OP, "far", (int64_t)1 << 62, 5, 0));
	add(&t, ev(&t, KC_KERNEL, "long", 0, (int64_t)1 << 62, 1));
	T_EQ_I64(finish(&t, "decode"), GF_OK);
	T_EQ_I64(t.nsteps, 2);
	T_EQ_I64(t.steps[0].number, 0);
	T_EQ_I64(t.steps[1].number, 1);
	T_EQ_I64(t.steps[1].start, 100);
	T_TRUE(!(t.r[find(&t, "ProfilerStep#1")].flags & TRF_STEP));
	T_TRUE(t.r[find(&t, "cudaStreamSynchronize")].flags & TRF_SYNC);
	T_EQ_I64(t.th[0].syncs, 1);
	T_EQ_I64(t.nr, 4);
	T_EQ_I64(t.nact, 0);
	T_EQ_I64(t.warn.out_of_range, 2);
	trace_release(&t);
}


/* Device sync records (cuda_sync) kept with what they waited on, kernel
 * launch configurations counted per (name, configuration) (issue 26). */
T_TEST(test_trace__device_syncs_and_launch_configs)
{
	struct trace t;
	tracks_init();
	trace_init(&t, NULL);
	add(&t, corr(ev(&t, KC_CUDA_RUNTIME, "cudaLaunchKernel", 100, 5, 0), 1));
	for (int i = 0; i < 3; i++) {
		struct kev k = corr(ev(&t, KC_KERNEL, "gemm_kernel", 110 + 10 * i, 4 + i, 1), 1);
		k.grid[0] = i < 2 ? 128 : 64, k.grid[1] = k.grid[2] = 1;
		k.block[0] = 256, k.block[1] = k.block[2] = 1;
		k.regs = 32;
		k.occupancy = 37500;
		add(&t, k);
	}
	struct kev s = corr(ev(&t, KC_CUDA_SYNC, "Event Sync", 150, 33, 1), 9);
	s.wait_stream = 7;
	s.wait_corr = 4;
	s.stream = -1;
	add(&t, s);
	struct kev ss = ev(&t, KC_CUDA_SYNC, "Stream Sync", 190, 5, 1);
	ss.stream = 7;
	add(&t, ss);
	T_EQ_I64(finish(&t, NULL), GF_OK);
	T_EQ_I64(t.nact, 3); /* the sync records are no GPU activity */
	T_EQ_I64(t.nsyncs, 2);
	T_EQ_I64(t.syncs[0].kind, TS_EVENT);
	T_EQ_I64(t.syncs[0].wait_stream, 7);
	T_EQ_I64(t.syncs[0].wait_corr, 4);
	T_EQ_I64(t.syncs[0].stream, -1);
	T_EQ_I64(t.syncs[0].end - t.syncs[0].start, 33);
	T_EQ_I64(t.syncs[1].kind, TS_STREAM);
	T_EQ_I64(t.syncs[1].stream, 7);
	T_EQ_I64(t.nkcfg, 2);
	const struct trace_kcfg *c = trace_kcfg_top(&t, pool_intern_str(t.names, "gemm_kernel"));
	T_TRUE(c != NULL);
	T_EQ_I64(c->count, 2);
	T_EQ_I64(c->time, 4 + 5);
	struct sbuf b = SBUF_INIT;
	trace_kcfg_text(c, &b);
	T_EQ_STR(b.buf, "grid 128x1x1, block 256x1x1, 32 regs, 37.5% occupancy");
	sbuf_release(&b);
	T_TRUE(trace_kcfg_top(&t, pool_intern_str(t.names, "other")) == NULL);
	trace_release(&t);
}

int main(void)
{
	T_RUN(test_trace__nesting_and_link);
	T_RUN(test_trace__clipping);
	T_RUN(test_trace__python_parent_ids);
	T_RUN(test_trace__graph_and_unattributed);
	T_RUN(test_trace__busy_union);
	T_RUN(test_trace__name_flags);
	T_RUN(test_trace__step_marker_and_syncs);
	T_RUN(test_trace__device_syncs_and_launch_configs);
	return t_done();
}
