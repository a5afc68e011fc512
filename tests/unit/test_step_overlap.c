/*
 * test_step_overlap.c — the step table, gaps and comm when step markers nest
 * or overlap (issue 16: linear cost for any input). The fast paths (prefix
 * sums, interval measures, a wavelet matrix for the median kernel) must give
 * what the plain per-window definitions give: rows against steps_row, gap and
 * comm rows against the same analysis of that step alone, the idle stacks
 * and sync sites against the sum of the steps alone; and each NCCL kernel is
 * one collective however many steps hold it.
 */
#include "t.h"
#include "jtrace.h"

#include "trace/analysis/comm.h"
#include "trace/analysis/gaps.h"
#include "trace/analysis/steps.h"
#include "base/sbuf.h"
#include "trace/model/trace.h"

#include <stdlib.h>
#include <string.h>

static unsigned rnd_x = 4242;

static unsigned rnd(unsigned n)
{
	rnd_x = rnd_x * 1103515245u + 12345u;
	return (rnd_x >> 8) % n;
}

static void ev(const char *cat, const char *name, int pid, int tid, long long ts, long long dur, const char *args)
{
	sbuf_addf(&J, "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%lld,\"args\":{%s}}",
		  J.len > 20 ? ",\n" : "", cat, name, pid, tid, ts, dur, args ? args : "");
}

/* Random work under nsteps steps: nested (step i inside step i-1) when
 * nested, else overlapping at random. Kernels (some NCCL, some on another
 * stream, some zero-length, a few very long), memcpys (some pageable) and
 * memsets with their launch calls, syncs, python frames and ops. */
static int random_trace(struct trace *t, int nsteps, bool nested, unsigned seed)
{
	char args[128];
	rnd_x = seed;
	jbegin();
	const long long span = 200000;
	for (int i = 0; i < nsteps; i++) {
		long long a, d;
		if (nested) {
			a = 10LL * i;
			d = span - 20LL * i;
		} else {
			a = rnd(span - 1000);
			d = 1 + rnd(i % 7 == 0 ? 3 : span / 2);
		}
		char nm[32];
		snprintf(nm, sizeof nm, "ProfilerStep#%d", i);
		ev("user_annotation", nm, 1, 1, a, d, NULL);
	}
	long long corr = 1, ts = 5;
	for (int k = 0; k < 600; k++) {
		ts += rnd(4) == 0 ? 40 + rnd(200) : 1 + rnd(25);
		snprintf(args, sizeof args, "\"Python id\":%d,\"Python parent id\":0", k + 1);
		if (k % 4 == 0)
			ev("python_function", k % 8 ? "train.py(10): main" : "model.py(3): fwd", 1, 1, ts, 30, args);
		if (k % 3 == 0)
			ev("cpu_op", k % 6 ? "aten::mm" : "aten::add", 1, 1 + (k % 9 == 0), ts + 1, 20, NULL);
		unsigned what = rnd(10);
		snprintf(args, sizeof args, "\"correlation\":%lld", corr);
		long long kts = ts + 2 + rnd(30), kd = rnd(9) == 0 ? 0 : 1 + rnd(k % 50 == 0 ? 5000 : 40);
		if (what < 6) {
			ev("cuda_runtime", k % 11 ? "cudaLaunchKernel" : "cudaGraphLaunch", 1, 1, ts + 2, 2 + rnd(5), args);
			snprintf(args, sizeof args, "\"device\":0,\"stream\":%d,\"correlation\":%lld", 7 + (k % 5 == 0), corr);
			ev("kernel", what == 0 ? "ncclDevKernel_AllReduce" : (k % 2 ? "k_a" : "k_b"), 0, 7, kts, kd, args);
		} else if (what < 8) {
			ev("cuda_runtime", "cudaMemcpyAsync", 1, 1, ts + 2, 3, args);
			snprintf(args, sizeof args, "\"device\":0,\"stream\":7,\"correlation\":%lld", corr);
			ev("gpu_memcpy", what == 6 ? "Memcpy DtoH (Device -> Pageable)" : "Memcpy HtoD (Pinned -> Device)",
			   0, 7, kts, kd, args);
		} else if (what == 8) {
			ev("cuda_runtime", "cudaMemsetAsync", 1, 1, ts + 2, 3, args);
			snprintf(args, sizeof args, "\"device\":0,\"stream\":7,\"correlation\":%lld", corr);
			ev("gpu_memset", "Memset (Device)", 0, 7, kts, kd, args);
		} else {
			ev("cuda_runtime", "cudaStreamSynchronize", 1, 1, ts + 3, 5 + rnd(100), args);
		}
		corr++;
	}
	return jload(t);
}

static void eq_row(const struct step_row *a, const struct step_row *b)
{
	T_EQ_I64(a->start, b->start);
	T_EQ_I64(a->end, b->end);
	T_EQ_I64(a->wall, b->wall);
	T_EQ_I64(a->busy, b->busy);
	T_EQ_I64(a->kernel, b->kernel);
	T_EQ_I64(a->memcpy, b->memcpy);
	T_EQ_I64(a->memset, b->memset);
	T_EQ_I64(a->idle, b->idle);
	T_EQ_I64(a->sync_wait, b->sync_wait);
	T_EQ_I64(a->syncs, b->syncs);
	T_EQ_I64(a->launches, b->launches);
	T_EQ_I64(a->graph_launches, b->graph_launches);
	T_EQ_I64(a->kernels, b->kernels);
	T_EQ_I64(a->median_kernel, b->median_kernel);
}

static void eq_gap(const struct gap_row *a, const struct gap_row *b)
{
	T_EQ_I64(a->c[GAP_SYNC], b->c[GAP_SYNC]);
	T_EQ_I64(a->c[GAP_LAUNCH], b->c[GAP_LAUNCH]);
	T_EQ_I64(a->c[GAP_HOST], b->c[GAP_HOST]);
	T_EQ_I64(a->c[GAP_UNTRACED], b->c[GAP_UNTRACED]);
	T_EQ_I64(a->c[GAP_QUEUED], b->c[GAP_QUEUED]);
	T_EQ_I64(a->c[GAP_EDGE], b->c[GAP_EDGE]);
	T_EQ_I64(a->hta_host, b->hta_host);
	T_EQ_I64(a->hta_kernel, b->hta_kernel);
	T_EQ_I64(a->hta_other, b->hta_other);
}

/* ns of the key labelled s in k[0..n), 0 when absent. */
static gf_ns key_ns(const struct gap_key *k, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(k[i].label, s))
			return k[i].ns;
	return 0;
}

struct ksum {
	char *label[256];
	gf_ns ns[256];
	size_t n;
};

static void ksum_add(struct ksum *s, const struct gap_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < s->n && strcmp(s->label[j], k[i].label))
			j++;
		if (j == s->n && s->n < 256) {
			s->label[s->n] = strdup(k[i].label);
			s->ns[s->n++] = 0;
		}
		if (j < s->n)
			s->ns[j] += k[i].ns;
	}
}

static void ksum_check(struct ksum *s, const struct gap_key *k, size_t n)
{
	T_EQ_I64(s->n, n);
	for (size_t j = 0; j < s->n; j++) {
		T_EQ_I64(key_ns(k, n, s->label[j]), s->ns[j]);
		free(s->label[j]);
	}
}

static void check_shape(int nsteps, bool nested, unsigned seed, unsigned share)
{
	struct trace t;
	T_TRUE(random_trace(&t, nsteps, nested, seed) == GF_OK);
	struct actx c;
	struct sbuf err = SBUF_INIT;
	T_TRUE(actx_init(&c, &t, -1, &err) == GF_OK);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	T_TRUE(steps_analyze(&c, &o, &st, &err) == GF_OK);
	T_EQ_I64(st.n, nsteps);
	/* without medians, then filled (report's second core): the same table */
	struct steps_result s0;
	T_TRUE(steps_analyze_part(&c, &o, STEPS_SUMS, &s0, &err) == GF_OK);
	T_EQ_I64(s0.n, st.n);
	T_EQ_I64(s0.steady.median_kernel, 0);
	for (size_t i = 0; i < s0.n; i++)
		T_EQ_I64(s0.rows[i].median_kernel, 0);
	steps_medians(&c, &s0);
	for (size_t i = 0; i < s0.n; i++)
		eq_row(&s0.rows[i], &st.rows[i]);
	eq_row(&s0.steady, &st.steady);
	steps_release(&s0);
	/* the windows alone (syncs): the same windows, walls and warm-up */
	T_TRUE(steps_analyze_part(&c, &o, 0, &s0, &err) == GF_OK);
	T_EQ_I64(s0.n, st.n);
	T_EQ_I64(s0.nwarm, st.nwarm);
	for (size_t i = 0; i < s0.n; i++) {
		T_EQ_I64(s0.rows[i].start, st.rows[i].start);
		T_EQ_I64(s0.rows[i].end, st.rows[i].end);
		T_EQ_I64(s0.rows[i].wall, st.rows[i].wall);
		T_EQ_I64(s0.rows[i].warmup, st.rows[i].warmup);
		T_EQ_I64(s0.rows[i].kernels + s0.rows[i].busy + s0.rows[i].median_kernel, 0);
	}
	T_EQ_I64(s0.steady.wall, st.steady.wall);
	steps_release(&s0);
	struct gaps_result gp;
	gaps_analyze(&c, &st, &gp);
	struct comm_result cm;
	comm_analyze(&c, &st, &cm);
	T_TRUE(cm.kernels > 0);
	struct ksum hs = { 0 }, ss = { 0 };
	uint64_t kernels = 0;
	for (size_t i = 0; i < st.n; i++) {
		/* the row by the plain definition (a visit of the window) */
		struct step_row plain;
		memset(&plain, 0, sizeof plain);
		steps_row(&c, st.rows[i].start, st.rows[i].end, &plain);
		eq_row(&st.rows[i], &plain);
		kernels += plain.kernels;
		/* gaps and comm of this step alone */
		struct steps_result one = st;
		struct step_row r1 = st.rows[i];
		r1.warmup = false;
		one.rows = &r1;
		one.n = 1;
		one.nwarm = 0;
		one.nsteady = 1;
		struct gaps_result g1;
		gaps_analyze(&c, &one, &g1);
		eq_gap(&gp.rows[i], &g1.rows[0]);
		if (!st.rows[i].warmup || !st.nsteady) {
			ksum_add(&hs, g1.keys[GAP_HOST], g1.nkeys[GAP_HOST]);
			ksum_add(&ss, g1.keys[GAP_SYNC], g1.nkeys[GAP_SYNC]);
		}
		gaps_release(&g1);
		struct comm_result c1;
		comm_analyze(&c, &one, &c1);
		T_EQ_I64(cm.rows[i].comm, c1.rows[0].comm);
		T_EQ_I64(cm.rows[i].overlap, c1.rows[0].overlap);
		T_EQ_I64(cm.rows[i].exposed, c1.rows[0].exposed);
		comm_release(&c1);
	}
	/* the windows really share their events: on average each kernel lies
	 * in more than share steps */
	uint64_t nk = 0;
	for (uint32_t i = 0; i < t.nact; i++)
		nk += actx_on_dev(&c, &t.act[i]) && t.act[i].kind == TA_KERNEL;
	T_TRUE(nk > 100 && kernels > share * nk);
	/* stacks and sync sites: their time in every steady step, summed */
	T_TRUE(hs.n > 0 && ss.n > 0);
	ksum_check(&hs, gp.keys[GAP_HOST], gp.nkeys[GAP_HOST]);
	ksum_check(&ss, gp.keys[GAP_SYNC], gp.nkeys[GAP_SYNC]);
	comm_release(&cm);
	gaps_release(&gp);
	steps_release(&st);
	actx_release(&c);
	sbuf_release(&err);
	trace_release(&t);
}

T_TEST(test_step_overlap__nested_steps_match_plain_definitions)
{
	check_shape(60, true, 11, 10);
}

T_TEST(test_step_overlap__overlapping_steps_match_plain_definitions)
{
	check_shape(80, false, 12, 3);
	check_shape(25, false, 13, 1);
}

T_TEST(test_step_overlap__kth_and_intervals_match_brute_force)
{
	rnd_x = 99;
	enum { N = 700 };
	gf_ns v[N], tmp[N];
	for (int i = 0; i < N; i++)
		v[i] = (gf_ns)rnd(i % 3 ? 50 : 100000) - (i % 13 == 0 ? 20 : 0);
	struct actx_kth w;
	actx_kth_init(&w, v, N);
	for (int q = 0; q < 3000; q++) {
		size_t l = rnd(N + 1), r = rnd(N + 1);
		if (l > r) {
			size_t x = l;
			l = r;
			r = x;
		}
		memcpy(tmp, v + l, (r - l) * sizeof *tmp);
		T_EQ_I64(actx_kth_median(&w, l, r), actx_median(tmp, r - l));
		if (r > l) {
			size_t k = rnd((unsigned)(r - l));
			T_EQ_I64(actx_kth_at(&w, l, r, k), tmp[k]); /* tmp is sorted now */
		}
	}
	actx_kth_release(&w);
	/* empty and single-valued lists */
	actx_kth_init(&w, v, 0);
	T_EQ_I64(actx_kth_median(&w, 0, 0), 0);
	actx_kth_release(&w);
	gf_ns same[5] = { 7, 7, 7, 7, 7 };
	actx_kth_init(&w, same, 5);
	T_EQ_I64(actx_kth_median(&w, 1, 5), 7);
	actx_kth_release(&w);

	/* actx_pairs and actx_span against a visit of every interval */
	struct actx_pairs p;
	struct actx_span s;
	memset(&p, 0, sizeof p);
	memset(&s, 0, sizeof s);
	gf_ns pa[400], pb[400], sa[400], sb[400];
	gf_ns at = -5000;
	for (int i = 0; i < 400; i++) {
		at += rnd(50);
		pa[i] = at;
		at += rnd(60);
		pb[i] = at;
		actx_pairs_add(&p, pa[i], pb[i]);
		sa[i] = (gf_ns)rnd(30000) - 6000;
		sb[i] = sa[i] + (gf_ns)rnd(i % 5 ? 100 : 20000) - 3;
		actx_span_add(&s, sa[i], sb[i]);
	}
	actx_pairs_seal(&p);
	actx_span_seal(&s);
	for (int q = 0; q < 2000; q++) {
		gf_ns lo = (gf_ns)rnd(40000) - 8000, hi = lo + (gf_ns)rnd(q % 4 ? 300 : 30000) - 5;
		gf_ns e1 = 0, e2 = 0;
		for (int i = 0; i < 400; i++) {
			e1 += actx_overlap(pa[i], pb[i], lo, hi);
			e2 += actx_overlap(sa[i], sb[i], lo, hi);
		}
		if (hi <= lo)
			e1 = e2 = 0;
		T_EQ_I64(actx_pairs_in(&p, lo, hi), e1);
		T_EQ_I64(actx_span_in(&s, lo, hi), e2);
	}
	/* epoch-scale times: sums wrap modulo 2^64 but the results are exact */
	struct actx_span big;
	memset(&big, 0, sizeof big);
	for (int i = 0; i < 300; i++)
		actx_span_add(&big, INT64_MAX / 2 + i, INT64_MAX / 2 + 1000 + i);
	actx_span_seal(&big);
	T_EQ_I64(actx_span_in(&big, INT64_MAX / 2 + 500, INT64_MAX / 2 + 501), 300);
	actx_span_release(&big);
	actx_pairs_release(&p);
	actx_span_release(&s);
}

T_TEST(test_step_overlap__collectives_once_per_kernel)
{
	/* 30 nested steps all holding the same 10 NCCL kernels: 10 collectives
	 * (the straggler matches instances; a copy per step made 300) */
	char args[96];
	sbuf_init(&J, 1 << 12);
	sbuf_addstr(&J, "{\"traceEvents\":[\n");
	for (int i = 0; i < 30; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "ProfilerStep#%d", i);
		ev("user_annotation", nm, 1, 1, i, 1000 - 2 * i, NULL);
	}
	for (int k = 0; k < 10; k++) {
		snprintf(args, sizeof args, "\"correlation\":%d", k + 1);
		ev("cuda_runtime", "cudaLaunchKernel", 1, 1, 100 + 10 * k, 2, args);
		snprintf(args, sizeof args, "\"device\":0,\"stream\":7,\"correlation\":%d", k + 1);
		ev("kernel", "ncclDevKernel_AllReduce", 0, 7, 103 + 10 * k, 5, args);
	}
	struct trace t;
	T_TRUE(jload(&t) == GF_OK);
	struct actx c;
	struct sbuf err = SBUF_INIT;
	T_TRUE(actx_init(&c, &t, -1, &err) == GF_OK);
	struct trace_sel o;
	trace_sel_init(&o);
	struct steps_result st;
	T_TRUE(steps_analyze(&c, &o, &st, &err) == GF_OK);
	T_EQ_I64(st.n, 30);
	struct coll *cl = NULL;
	size_t n = 0;
	comm_collectives(&c, &st, &cl, &n);
	T_EQ_I64(n, 10);
	for (size_t i = 0; i < n; i++)
		T_EQ_I64(cl[i].start, (103 + 10 * (gf_ns)i) * 1000);
	free(cl);
	steps_release(&st);
	actx_release(&c);
	sbuf_release(&err);
	trace_release(&t);
}

int main(void)
{
	T_RUN(test_step_overlap__nested_steps_match_plain_definitions);
	T_RUN(test_step_overlap__overlapping_steps_match_plain_definitions);
	T_RUN_SLOW(test_step_overlap__kth_and_intervals_match_brute_force);
	T_RUN(test_step_overlap__collectives_once_per_kernel);
	return t_done();
}
