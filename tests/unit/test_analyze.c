/*
 * test_analyze.c — unit tests of the report/syncs analyses (analyze/actx,
 * steps, gaps, syncs, comm, pysync) and their writers' helpers (rtable,
 * jsonw), on tiny hand-written Kineto traces read through the real reader
 * and trace model, with answers computed by hand in the comments.
 */
#include "t.h"

#include "trace/analysis/comm.h"
#include "trace/analysis/gaps.h"
#include "stacks/ops/pysync.h"
#include "trace/analysis/report.h"
#include "trace/analysis/steps.h"
#include "trace/analysis/syncs.h"
#include "trace/model/trace.h"
#include "trace/write/prose.h"
#include "trace/write/report_out.h"
#include "stacks/folded.h"
#include "base/jsonw.h"
#include "base/rtable.h"

/* Loads a JSON trace text into t. @return 0 on success. */
static int load(struct trace *t, const char *json)
{
	struct sbuf err = SBUF_INIT;
	trace_init(t, NULL);
	int rc = trace_load_mem(t, json, strlen(json), "t.json", NULL, &err);
	if (rc)
		printf("# load: %s\n", err.buf);
	sbuf_release(&err);
	return rc;
}

#define STEP(n, ts, dur) \
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" #n "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur "}"
#define PY(name, ts, dur) \
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur "}"
#define OP(name, ts, dur) \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur "}"
#define RT(name, ts, dur, corr) \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}}"
#define K(name, ts, dur, stream, corr) \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":" #stream ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"device\":0,\"stream\":" #stream ",\"correlation\":" #corr "}}"
#define MC(name, ts, dur, corr) \
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{\"device\":0,\"stream\":7,\"correlation\":" #corr "}}"

/*
 * One step [0, 200) us on thread 1:
 *   k1 [10,30) stream 7, k2 [20,50) stream 8 (overlap), launched at 1 and 3
 *   app.py(3): f [60,120) > aten::item [61,119) > aten::_local_scalar_dense [62,118)
 *     > cudaMemcpyAsync [63,65) -> memcpy DtoH [66,68)
 *     > cudaStreamSynchronize [70,90)
 *   host Python slow.py(9): work [120,170) (nothing open in [170,175))
 *   k3 [180,190) launched by cudaLaunchKernel [175,178)
 * busy = [10,50) + [66,68) + [180,190) = 40 + 2 + 10 = 52; idle = 148
 * kernel = 20 + 30 + 10 = 60; memcpy = 2
 * idle intervals (the gap model's one rule, gaps.h):
 * [0,10): [0,1) only the step marker, nothing traced anywhere, before the
 *   first activity: edge 1; [1,2) inside k1's launch call: launch 1; [2,10)
 *   issued with nothing before it on the device: edge 8;
 * [50,66): the memcpy's call returns at 65: the thread until then: step
 *   only [50,60) untraced 10; the frames [60,63): host 3; the copy call
 *   [63,65): launch 2; then issued, started 1 us later: queued 1;
 * [68,180): k3 issued at 178: _local_scalar_dense [68,70) + [90,118) host
 *   30, inside the sync call [70,90): sync 20 (called after the GPU went
 *   idle: it drained nothing, no bubble), aten::item [118,119) and a Python
 *   frame [119,120) host 2, slow.py [120,170) host 50; only the step marker
 *   [170,175): untraced 5; the launch call [175,178): launch 3; queued 2;
 * [190,200): nothing traced after the last activity: edge 10.
 * edge 19, sync 20, host 85, untraced 15, queued 3, launch 6.
 */
static const char *trace1 =
	"{\"traceEvents\":["
	STEP(1, 0, 200) ","
	RT("cudaLaunchKernel", 1, 1, 11) ","
	RT("cudaLaunchKernel", 3, 1, 12) ","
	K("k1", 10, 20, 7, 11) ","
	K("k2", 20, 30, 8, 12) ","
	PY("app.py(3): f", 60, 60) ","
	PY("<built-in method item of Tensor object at 0x7f>", 60, 60) ","
	OP("aten::item", 61, 58) ","
	OP("aten::_local_scalar_dense", 62, 56) ","
	RT("cudaMemcpyAsync", 63, 2, 13) ","
	MC("Memcpy DtoH (Device -> Pinned)", 66, 2, 13) ","
	RT("cudaStreamSynchronize", 70, 20, 14) ","
	PY("slow.py(9): work", 120, 50) ","
	RT("cudaLaunchKernel", 175, 3, 15) ","
	K("k3", 180, 10, 7, 15)
	"]}";

T_TEST(test_analyze__step_row)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, trace1) == 0);
	struct actx c;
	T_EQ_I64(actx_init(&c, &t, -1, &err), 0);
	T_EQ_I64(c.device, 0);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	T_EQ_I64(steps_analyze(&c, &o, &st, &err), 0);
	T_EQ_I64(st.n, 1);
	const struct step_row *r = &st.rows[0];
	T_EQ_I64(r->number, 1);
	T_EQ_I64(r->wall, 200000);
	T_EQ_I64(r->busy, 52000);
	T_EQ_I64(r->idle, 148000);
	T_EQ_I64(r->kernel, 60000);
	T_EQ_I64(r->memcpy, 2000);
	T_EQ_I64(r->kernels, 3);
	T_EQ_I64(r->launches, 4);
	T_EQ_I64(r->syncs, 1);
	T_EQ_I64(r->sync_wait, 20000);
	T_EQ_I64(r->median_kernel, 20000);
	steps_release(&st);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

T_TEST(test_analyze__syncs_site)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, trace1) == 0);
	struct actx c;
	actx_init(&c, &t, -1, &err);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	steps_analyze(&c, &o, &st, &err);
	struct syncs_result sy;
	struct gaps_result gp;
	gaps_analyze(&c, &st, &gp);
	syncs_analyze(&c, &st, &gp, &sy);
	T_EQ_I64(sy.nsites, 1);
	if (sy.nsites == 1) {
		const struct sync_site *s = &sy.sites[0];
		T_EQ_STR(s->site_name, "app.py(3): f");
		T_EQ_STR(s->op_name, "aten::item");
		T_EQ_STR(s->op_chain, "aten::item > aten::_local_scalar_dense");
		T_EQ_STR(s->api, "cudaStreamSynchronize");
		T_TRUE(s->copy && !strcmp(s->copy, "cudaMemcpyAsync"));
		T_EQ_I64(s->count, 1);
		T_EQ_I64(s->wait, 20000);
		/* called at 70, after the GPU went idle at 68: it drained nothing,
		 * so no bubble is charged to it (the gap is the host's) */
		T_EQ_I64(s->bubble, 0);
		T_EQ_I64(s->fix, SF_ITEM);
		T_TRUE(!s->host_work_after);
	}
	struct sbuf b = SBUF_INIT;
	prose_per_step(&b, 5, 4);
	T_EQ_STR(b.buf, "1.25");
	sbuf_reset(&b);
	prose_per_step(&b, 1, 3);
	T_EQ_STR(b.buf, "0.33");
	sbuf_release(&b);
	syncs_release(&sy);
	gaps_release(&gp);
	steps_release(&st);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

/* report_build computes only the parts asked (syncs prints sites only, so
 * it must not pay for gaps, comm, top calls, idle stacks or the verdict);
 * the verdict brings what it reads; the result carries what writers print
 * (names as strings, the trace's meta) so they never reach into the trace. */
T_TEST(test_analyze__report_parts)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, trace1) == 0);
	struct actx c;
	T_TRUE(actx_init(&c, &t, -1, &err) == GF_OK);
	struct report_opts o;
	report_opts_init(&o);
	T_EQ_I64(o.parts, RP_ALL);
	struct report r;
	o.parts = RP_SYNCS;
	T_TRUE(report_build(&r, &c, &o, &err) == GF_OK);
	T_EQ_I64(r.parts, RP_SYNCS);
	T_EQ_I64(r.st.n, 1);
	T_EQ_I64(r.sy.nsites, 1);
	/* the sync bubbles are the gap model's: computed, but not a part */
	T_TRUE(r.gp.n == r.st.n);
	T_TRUE(r.cm.rows == NULL && r.cm.n == 0);
	T_EQ_I64(r.ntop, 0);
	T_TRUE(r.idle == NULL && r.nidle == 0);
	T_TRUE(!(r.parts & RP_VERDICT) && r.verdict.kind == 0 && r.verdict.key == NULL);
	T_EQ_I64(r.meta.device, 0);
	/* the writers leave out (prose) or null (JSON) what was not computed */
	struct report_in in = { &r, "t.json", 0 };
	struct sbuf out = SBUF_INIT;
	report_out(&in, REP_TEXT, &out);
	T_TRUE(strstr(out.buf, "Hidden syncs") != NULL);
	T_TRUE(strstr(out.buf, "Verdict") == NULL && strstr(out.buf, "Where the GPU idle") == NULL);
	T_TRUE(strstr(out.buf, "Launches") == NULL);
	sbuf_reset(&out);
	report_out(&in, REP_JSON, &out);
	T_TRUE(strstr(out.buf, "\"gaps\": null,\n  \"idle_stacks\": null,\n  \"launch\": null,") != NULL);
	T_TRUE(strstr(out.buf, "\"verdict\": null") != NULL);
	sbuf_release(&out);
	report_release(&r);
	o.parts = RP_VERDICT;
	T_TRUE(report_build(&r, &c, &o, &err) == GF_OK);
	T_EQ_I64(r.parts, RP_VERDICT | RP_GAPS | RP_SYNCS | RP_COMM);
	T_TRUE((r.parts & RP_VERDICT) && r.gp.n == 1 && r.cm.n == 1 && r.sy.nsites == 1);
	T_EQ_I64(r.ntop, 0);
	T_EQ_I64(r.nidle, 0);
	report_release(&r);
	o.parts = RP_ALL;
	T_TRUE(report_build(&r, &c, &o, &err) == GF_OK);
	/* top calls: 3 cudaLaunchKernel launches lead */
	T_TRUE(r.ntop > 0);
	if (r.ntop) {
		T_EQ_STR(r.top[0].name, "cudaLaunchKernel");
		T_EQ_I64(r.top[0].count, 3);
	}
	/* idle stacks: every idle ns of the step (148 us) is charged once;
	 * the 20 us inside the sync are charged to the sync call */
	int64_t sum = 0, in_sync = 0;
	for (size_t i = 0; i < r.nidle; i++) {
		sum += r.idle[i].ns;
		const char *l = r.idle[i].label;
		size_t n = strlen(l), m = strlen("cudaStreamSynchronize");
		if (n >= m && !strcmp(l + n - m, "cudaStreamSynchronize"))
			in_sync += r.idle[i].ns;
	}
	T_TRUE(r.nidle > 0 && r.nidle <= REPORT_IDLE_TOP);
	T_EQ_I64(r.idle_steps, 1);
	if (r.nidle < REPORT_IDLE_TOP)
		T_EQ_I64(sum, 148000);
	T_EQ_I64(in_sync, 20000);
	T_TRUE(r.idle_err == NULL);
	report_release(&r);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

T_TEST(test_analyze__gaps_causes)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, trace1) == 0);
	struct actx c;
	actx_init(&c, &t, -1, &err);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	steps_analyze(&c, &o, &st, &err);
	struct gaps_result g;
	gaps_analyze(&c, &st, &g);
	const struct gap_row *x = &g.rows[0];
	T_EQ_I64(x->c[GAP_EDGE], 19000);
	T_EQ_I64(x->c[GAP_SYNC], 20000);
	T_EQ_I64(x->c[GAP_LAUNCH], 6000);
	T_EQ_I64(x->c[GAP_HOST], 85000);
	T_EQ_I64(x->c[GAP_UNTRACED], 15000);
	T_EQ_I64(x->c[GAP_QUEUED], 3000);
	T_EQ_I64(x->c[GAP_EDGE] + x->c[GAP_SYNC] + x->c[GAP_HOST] + x->c[GAP_UNTRACED] + x->c[GAP_QUEUED] + x->c[GAP_LAUNCH], 148000);
	T_EQ_I64(x->hta_host + x->hta_kernel + x->hta_other, 148000);
	T_EQ_I64(g.nkeys[GAP_SYNC], 1);
	if (g.nkeys[GAP_SYNC])
		T_EQ_STR(g.keys[GAP_SYNC][0].label, "app.py(3): f");
	T_EQ_I64(g.ncalls, 0);
	T_TRUE(g.nkeys[GAP_HOST] >= 2);
	if (g.nkeys[GAP_HOST] >= 2) {
		T_EQ_STR(g.keys[GAP_HOST][0].label, "slow.py(9): work");
		T_EQ_I64(g.keys[GAP_HOST][0].ns, 50000);
		T_EQ_STR(g.keys[GAP_HOST][1].label, "app.py(3): f > aten::_local_scalar_dense");
		T_EQ_I64(g.keys[GAP_HOST][1].ns, 31000);
	}
	/* the classes: every host piece is Python (frames and their ops) */
	T_EQ_I64(g.by_class[GAP_HOST][HW_PYTHON], 85000);
	T_EQ_I64(g.by_class[GAP_SYNC][HW_SYNC], 20000);
	T_EQ_I64(g.by_class[GAP_LAUNCH][HW_LAUNCH], 6000);
	/* 50 of 85 us: 0.5882 */
	T_EQ_I64(gaps_share(50000, g.steady_sum.c[GAP_HOST]), 5882);
	gaps_release(&g);
	steps_release(&st);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

/* Two kernels 10 us apart, both issued long before: the 10 us gap is queued
 * ("back-to-back on stream 7"), not launch; [0,1) edge, [1,2) inside the
 * first launch call, [2,10) issued with nothing before it: edge; [60,100)
 * edge. */
static const char *trace2 =
	"{\"traceEvents\":["
	STEP(7, 0, 100) ","
	RT("cudaLaunchKernel", 1, 1, 21) ","
	RT("cudaLaunchKernel", 2, 1, 22) ","
	K("a", 10, 20, 7, 21) ","
	K("b", 40, 20, 7, 22)
	"]}";

T_TEST(test_analyze__launch_gap)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, trace2) == 0);
	struct actx c;
	actx_init(&c, &t, -1, &err);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	steps_analyze(&c, &o, &st, &err);
	struct gaps_result g;
	gaps_analyze(&c, &st, &g);
	T_EQ_I64(g.rows[0].c[GAP_LAUNCH], 1000);
	T_EQ_I64(g.rows[0].c[GAP_QUEUED], 10000);
	T_EQ_I64(g.rows[0].hta_kernel, 10000);
	T_EQ_I64(g.rows[0].c[GAP_EDGE], 49000);
	T_EQ_I64(g.nkeys[GAP_QUEUED], 1);
	if (g.nkeys[GAP_QUEUED])
		T_EQ_STR(g.keys[GAP_QUEUED][0].label, "back-to-back on stream 7");
	gaps_release(&g);
	steps_release(&st);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

/*
 * The gap model's rule on one step [0, 300) us, thread 1:
 *   k1 [10,80) launched at [1,2); app.py(5): g [15,95) > cudaStreamSynchronize
 *   [20,90): called while k1 ran, returned after it ended -> a drain;
 *   slow.py(9): work [95,125); k2 [140,150) launched at [130,133);
 *   cudaStreamWaitEvent [160,162), then k3 launched at [165,168) starts at 250;
 *   k4 [290,295) has no launch call (correlation 99 above every call's).
 * [0,10): edge 1, launch 1, edge 8 (issued, nothing before it);
 * [80,140): k2 issued at 133: inside the sync until 90: sync 10; app.py(5)
 *   [90,95) host 5, slow.py [95,125) host 30 (both after the drain); step
 *   only [125,130) untraced 5; the launch call [130,133): launch 3; queued
 *   [133,140) 7, "launch latency (stream 7)"; the sync's bubble: min(133 -
 *   80, its wait while the device was busy 60) = 53, 43 of it after it
 *   returned;
 * [150,250): k3 issued at 168: untraced [150,160) + [162,165), the wait call
 *   [160,162) host 2, the launch call [165,168) launch 3, then queued
 *   [168,250) 82 "cudaStreamWaitEvent (stream 7)";
 * [260,290): k4 has no launch: no thread is named: edge 30; [295,300) edge 5.
 * edge 44, sync 10, host 37, untraced 18, queued 89, launch 7.
 * Launch-to-start: 9, 10, 85 us -> median 10.
 */
static const char *trace3 =
	"{\"traceEvents\":["
	STEP(1, 0, 300) ","
	RT("cudaLaunchKernel", 1, 1, 21) ","
	PY("app.py(5): g", 15, 80) ","
	RT("cudaStreamSynchronize", 20, 70, 31) ","
	PY("slow.py(9): work", 95, 30) ","
	RT("cudaLaunchKernel", 130, 3, 22) ","
	RT("cudaStreamWaitEvent", 160, 2, 32) ","
	RT("cudaLaunchKernel", 165, 3, 23) ","
	K("k1", 10, 70, 7, 21) ","
	K("k2", 140, 10, 7, 22) ","
	K("k3", 250, 10, 7, 23) ","
	K("k4", 290, 5, 7, 99)
	"]}";

T_TEST(test_analyze__gap_model)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, trace3) == 0);
	struct actx c;
	actx_init(&c, &t, -1, &err);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	steps_analyze(&c, &o, &st, &err);
	struct gaps_result g;
	gaps_analyze(&c, &st, &g);
	const struct gap_row *x = &g.rows[0];
	T_EQ_I64(x->c[GAP_EDGE], 44000);
	T_EQ_I64(x->c[GAP_SYNC], 10000);
	T_EQ_I64(x->c[GAP_LAUNCH], 7000);
	T_EQ_I64(x->c[GAP_HOST], 37000);
	T_EQ_I64(x->c[GAP_UNTRACED], 18000);
	T_EQ_I64(x->c[GAP_QUEUED], 89000);
	T_EQ_I64(x->c[GAP_EDGE] + x->c[GAP_SYNC] + x->c[GAP_HOST] + x->c[GAP_UNTRACED] + x->c[GAP_QUEUED] + x->c[GAP_LAUNCH], st.rows[0].idle);
	T_EQ_I64(g.nkeys[GAP_SYNC], 1);
	if (g.nkeys[GAP_SYNC])
		T_EQ_STR(g.keys[GAP_SYNC][0].label, "app.py(5): g");
	T_EQ_I64(g.nkeys[GAP_QUEUED], 2);
	if (g.nkeys[GAP_QUEUED] == 2) {
		T_EQ_STR(g.keys[GAP_QUEUED][0].label, "cudaStreamWaitEvent (stream 7)");
		T_EQ_I64(g.keys[GAP_QUEUED][0].ns, 82000);
		T_EQ_STR(g.keys[GAP_QUEUED][1].label, "launch latency (stream 7)");
		T_EQ_I64(g.keys[GAP_QUEUED][1].ns, 7000);
		T_EQ_I64(gaps_share(g.keys[GAP_QUEUED][0].ns, g.steady_sum.c[GAP_QUEUED]), 9213); /* 82/89 */
	}
	T_EQ_I64(g.nkeys[GAP_HOST], 3);
	if (g.nkeys[GAP_HOST] == 3) {
		T_EQ_STR(g.keys[GAP_HOST][0].label, "slow.py(9): work");
		T_EQ_I64(g.keys[GAP_HOST][0].ns, 30000);
		T_EQ_STR(g.keys[GAP_HOST][2].label, "[no Python frame] > cudaStreamWaitEvent");
	}
	/* the host time after the drain, by the draining call's site */
	T_EQ_I64(g.ndrained, 1);
	if (g.ndrained) {
		T_EQ_STR(g.drained[0].label, "app.py(5): g");
		T_EQ_I64(g.drained[0].ns, 35000);
	}
	T_EQ_I64(g.ld.median_latency, 10000);
	T_EQ_I64(g.ld.latency_launches, 3);
	/* syncs: the bubble is what the call exposed, at most its wait while busy */
	struct syncs_result sy;
	syncs_analyze(&c, &st, &g, &sy);
	T_EQ_I64(sy.nsites, 1);
	if (sy.nsites) {
		T_EQ_I64(sy.sites[0].bubble, 53000);
		T_EQ_I64(sy.sites[0].after, 43000);
		T_EQ_I64(sy.sites[0].bubble_steady, 53000);
		T_TRUE(sy.sites[0].host_work_after);
	}
	syncs_release(&sy);
	gaps_release(&g);
	steps_release(&st);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

/* The verdict names the largest cause, its top key with its share, and
 * Next names the same key (trace3: queued 89 of 205 us). */
T_TEST(test_analyze__verdict_cause)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, trace3) == 0);
	struct actx c;
	actx_init(&c, &t, -1, &err);
	struct report_opts o;
	report_opts_init(&o);
	struct report r;
	T_TRUE(report_build(&r, &c, &o, &err) == GF_OK);
	/* the finding, as data */
	const struct report_verdict *v = &r.verdict;
	T_EQ_I64(v->kind, VERDICT_CAUSE);
	T_EQ_I64(v->cause, GAP_QUEUED);
	T_EQ_I64(v->advice, ADV_QUEUED);
	T_EQ_I64(v->hclass, HW_NONE);
	T_EQ_I64(v->ns, 89000);
	T_TRUE(v->key != NULL && v->key == &r.gp.keys[GAP_QUEUED][0]);
	T_EQ_I64(v->key_total, 89000);
	T_EQ_STR(report_verdict_key(v), "queued");
	/* the other causes >= 1% of the step (3 us), largest first: edge 44,
	 * host 37, untraced 18, sync 10, launch 7 */
	T_EQ_I64(v->nothers, 5);
	if (v->nothers == 5) {
		T_EQ_I64(v->others[0], GAP_EDGE);
		T_EQ_I64(v->others[1], GAP_HOST);
		T_EQ_I64(v->others[2], GAP_UNTRACED);
		T_EQ_I64(v->others[3], GAP_SYNC);
		T_EQ_I64(v->others[4], GAP_LAUNCH);
	}
	/* and its words (trace/write/prose.h) */
	struct sbuf w = SBUF_INIT;
	prose_verdict(&w, &r);
	T_TRUE(strstr(w.buf, "89.0 us queued") != NULL);
	T_TRUE(strstr(w.buf, "92.13% of it behind cudaStreamWaitEvent (stream 7)") != NULL);
	sbuf_reset(&w);
	prose_next(&w, &r);
	T_TRUE(strstr(w.buf, "behind cudaStreamWaitEvent (stream 7)") != NULL);
	sbuf_release(&w);
	struct report_in in = { &r, "t.json", 0 };
	struct sbuf out = SBUF_INIT;
	report_out(&in, REP_JSON, &out);
	T_TRUE(strstr(out.buf, "\"verdict_cause\": \"queued\"") != NULL);
	T_TRUE(strstr(out.buf, "\"wait\": \"cudaStreamWaitEvent (stream 7)\",\n        \"idle_us\": 82,\n"
			       "        \"idle_per_step_us\": 82,\n        \"share\": 0.9213") != NULL);
	sbuf_release(&out);
	report_release(&r);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

/*
 * Pageable copies, step [0, 200): k [10,100) then a pageable HtoD copy
 * [100,105) (one busy pair [10,105)): its call [20,110) began while the
 * device was busy and returned after the pair ended -> blocking; a second
 * pageable HtoD call [120,125) (copy [130,135)) began with the device idle
 * -> an ordinary async copy; a pageable DtoH call [140,142) (copy
 * [150,152)) always blocks.
 */
static const char *trace4 =
	"{\"traceEvents\":["
	STEP(1, 0, 200) ","
	RT("cudaLaunchKernel", 1, 1, 41) ","
	RT("cudaMemcpyAsync", 20, 90, 42) ","
	RT("cudaMemcpyAsync", 120, 5, 43) ","
	RT("cudaMemcpyAsync", 140, 2, 44) ","
	K("k", 10, 90, 7, 41) ","
	MC("Memcpy HtoD (Pageable -> Device)", 100, 5, 42) ","
	MC("Memcpy HtoD (Pageable -> Device)", 130, 5, 43) ","
	MC("Memcpy DtoH (Device -> Pageable)", 150, 2, 44)
	"]}";

T_TEST(test_analyze__pageable_h2d)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, trace4) == 0);
	struct actx c;
	actx_init(&c, &t, -1, &err);
	uint32_t call[3] = { TRACE_NONE, TRACE_NONE, TRACE_NONE };
	for (uint32_t i = 0; i < t.nr; i++)
		if (t.r[i].kind == TR_RUNTIME && t.r[i].corr >= 42 && t.r[i].corr <= 44)
			call[t.r[i].corr - 42] = i;
	T_TRUE(call[0] != TRACE_NONE && call[1] != TRACE_NONE && call[2] != TRACE_NONE);
	if (call[0] != TRACE_NONE && call[1] != TRACE_NONE && call[2] != TRACE_NONE) {
		T_EQ_I64(actx_blocking(&c, call[0]), ACTX_B_PAGEABLE | ACTX_B_H2D);
		T_EQ_I64(actx_blocking(&c, call[1]), 0);
		T_EQ_I64(actx_blocking(&c, call[2]), ACTX_B_PAGEABLE);
	}
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	steps_analyze(&c, &o, &st, &err);
	T_EQ_I64(st.rows[0].syncs, 2);
	T_EQ_I64(st.rows[0].sync_wait, 92000);
	steps_release(&st);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

/*
 * A queued wait's label is the wait call after the thread's previous launch:
 * cudaStreamWaitEvent [1,2) precedes a's launch [3,4), not b's [5,6); b
 * [100,110) was issued at 6, before the GPU went idle at 20: [20,100) is
 * queued, "stream 7: no wait in the trace" (it started 94 us after its call
 * returned). Edge: [0,1), [2,3), [4,10) (issued, nothing before it) and
 * [110,200); the wait call [1,2) is host, the launch call [3,4) launch.
 */
static const char *trace5 =
	"{\"traceEvents\":["
	STEP(1, 0, 200) ","
	RT("cudaStreamWaitEvent", 1, 1, 50) ","
	RT("cudaLaunchKernel", 3, 1, 51) ","
	RT("cudaLaunchKernel", 5, 1, 52) ","
	K("a", 10, 10, 7, 51) ","
	K("b", 100, 10, 7, 52)
	"]}";

T_TEST(test_analyze__queued_label)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, trace5) == 0);
	struct actx c;
	actx_init(&c, &t, -1, &err);
	T_EQ_I64(c.nblocking, 0);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	steps_analyze(&c, &o, &st, &err);
	struct gaps_result g;
	gaps_analyze(&c, &st, &g);
	T_EQ_I64(g.rows[0].c[GAP_QUEUED], 80000);
	T_EQ_I64(g.rows[0].c[GAP_EDGE], 98000);
	T_EQ_I64(g.rows[0].c[GAP_HOST], 1000);
	T_EQ_I64(g.rows[0].c[GAP_LAUNCH], 1000);
	T_EQ_I64(g.nkeys[GAP_QUEUED], 1);
	if (g.nkeys[GAP_QUEUED])
		T_EQ_STR(g.keys[GAP_QUEUED][0].label, "stream 7: no wait in the trace");
	gaps_release(&g);
	steps_release(&st);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

T_TEST(test_analyze__steps_select_warmup)
{
	/* walls 500, 100, 110, 100, 90: step 1 is warm-up (> 1.5 x median 100) */
	static const char *tr =
		"{\"traceEvents\":["
		STEP(1, 0, 500) "," STEP(2, 500, 100) "," STEP(3, 600, 110) ","
		STEP(4, 710, 100) "," STEP(5, 810, 90)
		"]}";
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, tr) == 0);
	struct actx c;
	actx_init(&c, &t, -1, &err);
	T_EQ_I64(c.dev, TRACE_NONE);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	T_EQ_I64(steps_analyze(&c, &o, &st, &err), 0);
	T_EQ_I64(st.n, 5);
	T_EQ_I64(st.nwarm, 1);
	T_TRUE(st.rows[0].warmup && !st.rows[1].warmup);
	/* median of 100, 110, 100, 90 = (100 + 100) / 2 */
	T_EQ_I64(st.steady.wall, 100000);
	steps_release(&st);
	o.first = 2;
	o.last = 4;
	o.skip = 1;
	T_EQ_I64(steps_analyze(&c, &o, &st, &err), 0);
	T_EQ_I64(st.n, 2);
	T_EQ_I64(st.rows[0].number, 3);
	T_EQ_I64(st.dropped, 3);
	steps_release(&st);
	o.first = 9;
	o.last = 9;
	T_EQ_I64(steps_analyze(&c, &o, &st, &err), GF_EUSAGE);
	T_TRUE(strstr(err.buf, "no step left") != NULL);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

T_TEST(test_analyze__median)
{
	gf_ns a[] = { 3, 1, 2 };
	T_EQ_I64(actx_median(a, 3), 2);
	gf_ns b[] = { 1, 2 }; /* 1.5 -> 2 (half to even) */
	T_EQ_I64(actx_median(b, 2), 2);
	gf_ns c[] = { 2, 3 }; /* 2.5 -> 2 */
	T_EQ_I64(actx_median(c, 2), 2);
	gf_ns d[] = { 4, 10, 6, 8 }; /* 7 */
	T_EQ_I64(actx_median(d, 4), 7);
	T_EQ_I64(actx_median(NULL, 0), 0);
	T_EQ_I64(gaps_mean(7, 2), 4);  /* 3.5 -> 4 */
	T_EQ_I64(gaps_mean(5, 2), 2);  /* 2.5 -> 2 */
	T_EQ_I64(gaps_mean(5, 0), 0);
}

static int cmp_i64(const void *a, const void *b)
{
	gf_ns x = *(const gf_ns *)a, y = *(const gf_ns *)b;
	return (x > y) - (x < y);
}

static int cmp_kv_t(const void *a, const void *b)
{
	const struct actx_kv *x = a, *y = b;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

/* actx_sort_ns and actx_sort_kv (radix) against qsort; kv stable; the
 * sweep of actx_cover_next against actx_cover_at. */
T_TEST(test_analyze__sort)
{
	uint64_t x = 88172645463325252ull;
	static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 200, 5000 };
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
		for (int mode = 0; mode < 7; mode++) {
			size_t n = sizes[si];
			gf_ns *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
			struct actx_kv *k = malloc((n + 1) * sizeof *k), *kk = malloc((n + 1) * sizeof *kk);
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				gf_ns v = mode == 0 ? (gf_ns)x                        /* any, negative too */
					: mode == 1 ? (gf_ns)(x % 7) - 3              /* few distinct */
					: mode == 2 ? (gf_ns)i * 1000                 /* in order */
					: mode == 3 ? (gf_ns)(n - i) + 1700000000000  /* reversed */
					: mode == 4 ? (i & 1 ? INT64_MIN : INT64_MAX)
					: mode == 5 ? (gf_ns)(i % (n / 3 + 1)) / 2     /* 3-4 sorted runs, ties */
					: (gf_ns)(i < n / 2 ? i : i - n / 2) * 3 - (gf_ns)(i >= n / 2); /* 2 runs */
				a[i] = b[i] = v;
				k[i].k = kk[i].k = v;
				k[i].v = kk[i].v = i;
			}
			actx_sort_ns(a, n);
			if (n)
				qsort(b, n, sizeof *b, cmp_i64);
			T_TRUE(!n || memcmp(a, b, n * sizeof *a) == 0);
			actx_sort_kv(k, n);
			if (n)
				qsort(kk, n, sizeof *kk, cmp_kv_t);
			T_TRUE(!n || memcmp(k, kk, n * sizeof *k) == 0);
			free(a);
			free(b);
			free(k);
			free(kk);
		}
	}
	/* cover sweep: windows [0,10) [5,20) [5,6) [30,40); times up and down */
	struct steps_result st;
	memset(&st, 0, sizeof st);
	struct step_row rows[4];
	memset(rows, 0, sizeof rows);
	gf_ns w[4][2] = { { 0, 10 }, { 5, 20 }, { 5, 6 }, { 30, 40 } };
	for (int i = 0; i < 4; i++) {
		rows[i].start = w[i][0];
		rows[i].end = w[i][1];
	}
	st.rows = rows;
	st.n = 4;
	st.nsteady = 4;
	struct actx_cover cv;
	actx_cover_init(&cv, &st);
	struct actx_cover_sweep sw = { 0 };
	gf_ns ts[] = { -1, 0, 4, 5, 5, 6, 9, 10, 19, 20, 3, 30, 39, 40, 50, 5, 5, 7 };
	for (size_t i = 0; i < sizeof ts / sizeof *ts; i++)
		T_EQ_I64(actx_cover_next(&cv, &sw, ts[i]), actx_cover_at(&cv, ts[i]));
	T_EQ_I64(actx_cover_at(&cv, 5), 3);
	actx_cover_release(&cv);
}

T_TEST(test_analyze__comm_overlap)
{
	/* nccl [0,40) and compute [20,60) in one step [0,100): comm 40, overlap 20 */
	static const char *tr =
		"{\"traceEvents\":["
		STEP(1, 0, 100) ","
		RT("cudaLaunchKernel", 0, 1, 31) "," RT("cudaLaunchKernel", 1, 1, 32) ","
		K("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 0, 40, 13, 31) ","
		K("gemm", 20, 40, 7, 32)
		"]}";
	struct trace t;
	struct sbuf err = SBUF_INIT;
	T_TRUE(load(&t, tr) == 0);
	struct actx c;
	actx_init(&c, &t, -1, &err);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	steps_analyze(&c, &o, &st, &err);
	struct comm_result cm;
	comm_analyze(&c, &st, &cm);
	T_EQ_I64(cm.kernels, 1);
	T_EQ_I64(cm.rows[0].comm, 40000);
	T_EQ_I64(cm.rows[0].overlap, 20000);
	T_EQ_I64(cm.rows[0].exposed, 20000);
	T_EQ_I64(cm.hta_comm, 40000);
	T_EQ_I64(cm.hta_overlap, 20000);
	struct coll *cl;
	size_t n;
	comm_collectives(&c, &st, &cl, &n);
	T_EQ_I64(n, 1);
	free(cl);
	comm_release(&cm);
	steps_release(&st);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&err);
}

T_TEST(test_analyze__pysync_frames)
{
	struct sbuf b = SBUF_INIT;
	T_TRUE(pysync_python_frame("step (engine.py:240)", 20, &b));
	T_EQ_STR(b.buf, "engine.py(240): step");
	sbuf_reset(&b);
	T_TRUE(pysync_python_frame("<module> (x.py)", 15, &b));
	T_EQ_STR(b.buf, "x.py: <module>");
	sbuf_reset(&b);
	T_TRUE(!pysync_python_frame("cudaStreamSynchronize (libcudart.so.12)", 39, &b));
	T_TRUE(!pysync_python_frame("thread (0x7f01)", 15, &b));
	T_EQ_I64(pysync_sync_symbol("cudaStreamSynchronize (libcudart.so.12)", 39), 21);
	T_EQ_I64(pysync_sync_symbol("cuMemcpyDtoH_v2", 15), 15);
	T_EQ_I64(pysync_sync_symbol("hipLaunchKernel (libamdhip64.so)", 32), 0);
	T_EQ_I64(pysync_sync_symbol("cudaLaunchKernel", 16), 0);
	/* the one classifier's blocking calls (names_api), which the old
	 * prefix list missed */
	T_EQ_I64(pysync_sync_symbol("hipMemcpyWithStream (libamdhip64.so)", 36), 19);
	T_EQ_I64(pysync_sync_symbol("cuMemcpyHtoD_v2 (libcuda.so.1)", 30), 15);
	T_EQ_I64(pysync_sync_symbol("cudaThreadSynchronize", 21), 21);
	T_EQ_I64(pysync_sync_symbol("cudaStreamWaitEvent", 19), 0);
	/* inside torch / a source frame: base/names.h (tests/unit/test_names.c) */
	sbuf_release(&b);
}

T_TEST(test_analyze__pysync_tree)
{
	static const char *txt =
		"main (a.py:1);step (e.py:2);x (torch/cuda/__init__.py:9);cudaDeviceSynchronize (libcudart.so) 30\n"
		"main (a.py:1);step (e.py:2);cudaMemcpy (libcudart.so) 10\n"
		"main (a.py:1);work (a.py:5) 60\n";
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct sbuf err = SBUF_INIT;
	struct folded_opts fo = { 0 };
	struct folded_stats fs;
	memset(&fs, 0, sizeof fs);
	T_EQ_I64(folded_read_mem(&t, txt, strlen(txt), "x", &fo, &fs, &err), 0);
	struct pysync_result r;
	T_EQ_I64(pysync_analyze(&t, &r, &err), 0);
	T_EQ_I64(r.total, 100);
	T_EQ_I64(r.sync, 40);
	T_EQ_I64(r.nsites, 1);
	if (r.nsites == 1) {
		T_EQ_STR(r.sites[0].site, "e.py(2): step");
		T_EQ_STR(r.sites[0].symbols, "cudaDeviceSynchronize, cudaMemcpy");
		T_EQ_I64(r.sites[0].samples, 40);
		T_TRUE(!r.sites[0].noise);
	}
	/* Wilson for 40/100: [0.3094, 0.4980] */
	T_TRUE(r.sync_ci_lo > 0.3093 && r.sync_ci_lo < 0.3095);
	T_TRUE(r.sync_ci_hi > 0.4979 && r.sync_ci_hi < 0.4981);
	pysync_release(&r);
	ftree_release(&t);
	sbuf_release(&err);
}

T_TEST(test_analyze__wilson)
{
	double lo, hi;
	pysync_wilson(0, 10, &lo, &hi);
	T_TRUE(lo == 0 && hi > 0.2775 && hi < 0.2776);
	pysync_wilson(10, 10, &lo, &hi);
	T_TRUE(hi == 1 && lo > 0.7224 && lo < 0.7225);
	pysync_wilson(1, 0, &lo, &hi);
	T_TRUE(lo == 0 && hi == 1);
}

T_TEST(test_analyze__writers)
{
	struct sbuf b = SBUF_INIT;
	struct jsonw j;
	jsonw_init(&j, &b);
	jsonw_obj(&j);
	jsonw_key(&j, "wall_us");
	jsonw_ns_us(&j, 1234567);
	jsonw_key(&j, "x");
	jsonw_arr(&j);
	jsonw_end(&j, ']');
	jsonw_key(&j, "s");
	jsonw_str(&j, "a\"b");
	jsonw_end(&j, '}');
	T_EQ_STR(b.buf, "{\n  \"wall_us\": 1234.567,\n  \"x\": [],\n  \"s\": \"a\\\"b\"\n}\n");
	sbuf_reset(&b);
	prose_dur(&b, 38012345);
	T_EQ_STR(b.buf, "38.0 ms");
	sbuf_reset(&b);
	prose_dur(&b, 7349);
	T_EQ_STR(b.buf, "7.3 us");
	sbuf_reset(&b);
	prose_pct(&b, 112, 380);
	T_EQ_STR(b.buf, "29%");
	/* wrapping: a 150-character line becomes two, the second indented */
	struct sbuf in = SBUF_INIT;
	sbuf_addstr(&in, "  ");
	for (int i = 0; i < 37; i++)
		sbuf_addstr(&in, "word ");
	sbuf_addstr(&in, "end\nshort\n");
	sbuf_reset(&b);
	rtable_wrap(in.buf, in.len, 100, &b);
	const char *nl = strchr(b.buf, '\n');
	T_TRUE(nl && nl - b.buf <= 100);
	T_TRUE(nl && !strncmp(nl + 1, "    word", 8));
	T_TRUE(strstr(b.buf, "end\nshort\n") != NULL);
	/* a table */
	struct rtable t;
	rtable_init(&t, 2);
	rtable_head(&t, 0, "n", RT_RIGHT);
	rtable_head(&t, 1, "name", RT_LEFT);
	rtable_cell(&t, "12");
	rtable_cell(&t, "a|b\x01");
	sbuf_reset(&b);
	rtable_text(&t, &b, 2);
	T_EQ_STR(b.buf, "   n  name\n  --  -------\n  12  a|b\\x01\n");
	sbuf_reset(&b);
	rtable_md(&t, &b);
	T_TRUE(strstr(b.buf, "| 12 | a\\|b") != NULL);
	rtable_release(&t);
	sbuf_release(&in);
	sbuf_release(&b);
}

#define STARTS(b, lit) (!strncmp((b), (lit), sizeof(lit) - 1))

/* The prose formats share one writer (report_fmt.h): the separators each
 * format implements, checked on the Markdown/text leads and bold labels
 * (the paragraph with a line break inside: tests/unit/test_ranks.c). */
T_TEST(test_analyze__writers_formats)
{
	struct trace t;
	struct sbuf err = SBUF_INIT, out = SBUF_INIT;
	T_TRUE(load(&t, trace1) == 0);
	struct actx c;
	T_TRUE(actx_init(&c, &t, -1, &err) == GF_OK);
	struct report_opts o;
	report_opts_init(&o);
	struct report r;
	T_TRUE(report_build(&r, &c, &o, &err) == GF_OK);
	struct report_in in[2] = { { &r, "a", 0 }, { &r, "b|c", 0 } };
	report_out(&in[1], REP_TEXT, &out);
	T_TRUE(STARTS(out.buf, "gpuflame report: b|c\n"));
	T_TRUE(strstr(out.buf, "\nVerdict: GPU busy") != NULL);
	sbuf_reset(&out);
	report_out(&in[1], REP_MD, &out);
	T_TRUE(STARTS(out.buf, "## gpuflame report: b\\|c\n\n"));
	T_TRUE(strstr(out.buf, "\n**Verdict:** GPU busy") != NULL);
	T_TRUE(strstr(out.buf, "\n\n**Next:** ") != NULL);
	sbuf_reset(&out);
	report_out_syncs(in, REP_MD, &out);
	T_TRUE(STARTS(out.buf, "## gpuflame syncs: a\n\n1 blocking calls in 1 step: host wait 0.020 ms"));
	T_TRUE(strstr(out.buf, "\nFixes:\n\n1. app\\.py\\(3\\)\\: f (aten\\:\\:item &gt; ") != NULL);
	sbuf_reset(&out);
	report_out_syncs(in, REP_TEXT, &out);
	T_TRUE(STARTS(out.buf, "gpuflame syncs: a\n1 blocking calls in 1 step: host wait 0.020 ms"));
	T_TRUE(strstr(out.buf, "\n  Fixes:\n  1. app.py(3): f (") != NULL);
	report_release(&r);
	actx_release(&c);
	trace_release(&t);
	sbuf_release(&out);
	sbuf_release(&err);
}

int main(void)
{
	T_RUN(test_analyze__step_row);
	T_RUN(test_analyze__syncs_site);
	T_RUN(test_analyze__report_parts);
	T_RUN(test_analyze__gaps_causes);
	T_RUN(test_analyze__launch_gap);
	T_RUN(test_analyze__gap_model);
	T_RUN(test_analyze__verdict_cause);
	T_RUN(test_analyze__pageable_h2d);
	T_RUN(test_analyze__queued_label);
	T_RUN(test_analyze__steps_select_warmup);
	T_RUN(test_analyze__median);
	T_RUN(test_analyze__sort);
	T_RUN(test_analyze__comm_overlap);
	T_RUN(test_analyze__pysync_frames);
	T_RUN(test_analyze__pysync_tree);
	T_RUN(test_analyze__wilson);
	T_RUN(test_analyze__writers);
	T_RUN(test_analyze__writers_formats);
	return t_done();
}
