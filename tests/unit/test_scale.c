/*
 * test_scale.c — work that must stay linear on hostile shapes (issue 16,
 * "Hold under attack"): ancestor queries and sweeps (model/trace_walk.h)
 * agree with the plain O(depth) ones and count O(log depth) hops on deep
 * chains; report and syncs on a trace nested 20,000 deep count linear work;
 * regex family rules see a bounded prefix of each kernel name.
 */
#include "t.h"
#include "jtrace.h"

#include "trace/analysis/report.h"
#include "base/sbuf.h"
#include "trace/analysis/fold.h"
#include "trace/analysis/kfamily.h"
#include "trace/model/trace.h"
#include "trace/model/trace_walk.h"
#include "sweep_ref.h"

#include <string.h>



static void jev(const char *cat, const char *name, long long ts, long long dur, const char *args)
{
	sbuf_addf(&J, "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":%lld,\"args\":{%s}}",
		  J.len > 20 ? ",\n" : "", cat, name, ts, dur, args ? args : "");
}

static void jkernel(long long ts, long long dur, long long corr)
{
	sbuf_addf(&J, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%lld,\"dur\":%lld,"
		      "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%lld}}", ts, dur, corr);
}

/* The nested shape of tests/gen/gen_nested.py: n python frames, frame i in
 * [100 i + 50, 100 (2n - i) + 50) us, one launch per window, a sync every
 * other window, under one ProfilerStep. */
static int nested(struct trace *t, int n)
{
	char args[96];
	jbegin();
	jev("user_annotation", "ProfilerStep#1", 0, 200LL * n + 200, NULL);
	for (int i = 0; i < n; i++) {
		snprintf(args, sizeof args, "\"Python id\":%d,\"Python parent id\":%d", i + 1, i);
		jev("python_function", i ? "torch/nn/modules/module.py(1): _call_impl" : "train.py(10): main",
		    100LL * i + 50, 200LL * (n - i), args);
	}
	long long corr = 1;
	for (int w = 0; w < 2 * n - 1; w++) {
		long long s = 100LL * w + 50;
		snprintf(args, sizeof args, "\"correlation\":%lld", corr);
		jev("cuda_runtime", "cudaLaunchKernel", s + 10, 2, args);
		jkernel(s + 20, 10, corr++);
		if (w % 2 == 0) {
			snprintf(args, sizeof args, "\"correlation\":%lld", corr++);
			jev("cuda_runtime", "cudaStreamSynchronize", s + 40, 5, args);
		}
	}
	return jload(t);
}

/* A small irregular trace: nesting, ties, zero-length ranges, clipped
 * overlaps, python frames re-parented by Python parent id, two threads. */
static int irregular(struct trace *t)
{
	unsigned x = 12345;
	char args[96], name[32];
	jbegin();
	for (int th = 1; th <= 2; th++) {
		for (int i = 0; i < 400; i++) {
			x = x * 1103515245u + 12345u;
			long long ts = (x >> 8) % 5000;
			x = x * 1103515245u + 12345u;
			long long dur = (x >> 8) % 7 == 0 ? 0 : (x >> 8) % (i % 5 == 0 ? 3000 : 200);
			x = x * 1103515245u + 12345u;
			snprintf(name, sizeof name, "f%u.py(%d): g", (x >> 8) % 5, i);
			snprintf(args, sizeof args, "\"Python id\":%d,\"Python parent id\":%u", i + 1, (x >> 12) % (i + 1));
			sbuf_addf(&J, "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%lld,"
				      "\"dur\":%lld,\"args\":{%s}}", J.len > 20 ? ",\n" : "",
				  i % 3 ? "python_function" : "cpu_op", name, th, ts, dur, args);
		}
	}
	return jload(t);
}

/* The plain sweep and the walk's give the same segments. */
static void same_segments(struct trace_sweep *s, struct trace_wsweep *ws)
{
	gf_ns a, b, a2, b2;
	uint32_t r, r2;
	bool more;
	do {
		more = trace_sweep_next(s, &a, &b, &r);
		bool more2 = trace_wsweep_next(ws, &a2, &b2, &r2);
		T_TRUE(more == more2);
		if (more && more2) {
			T_EQ_I64(a2, a);
			T_EQ_I64(b2, b);
			T_EQ_I64(r2, r);
		}
	} while (more);
}

T_TEST(test_scale__walk_matches_plain_queries)
{
	struct trace t;
	T_TRUE(irregular(&t) == GF_OK);
	struct trace_walk w;
	trace_walk_init(&w, &t);
	T_TRUE(t.warn.pyparent_fixed > 0 && t.warn.clipped > 0 && t.warn.zero_len > 0);
	for (uint32_t th = 0; th < t.nth; th++)
		for (gf_ns ts = -10; ts < 5300000; ts += 997)
			T_EQ_I64(trace_walk_innermost(&w, th, ts), trace_innermost(&t, th, ts));
	/* every window of a grid: the same segments */
	for (uint32_t th = 0; th < t.nth; th++)
		for (gf_ns lo = -1000; lo < 5300000; lo += 51013)
			for (gf_ns len = 1; len < 4000000; len *= 7) {
				struct trace_sweep s;
				struct trace_wsweep ws;
				trace_sweep_init(&s, &t, th, lo, lo + len);
				trace_wsweep_init(&ws, &w, th, lo, lo + len);
				same_segments(&s, &ws);
				trace_sweep_release(&s);
				trace_wsweep_release(&ws);
			}
	trace_walk_release(&w);
	trace_release(&t);
}

/* The same windows through trace_wsweep_restart, one sweep state and one
 * hint per thread carried across them: in increasing order (the gap
 * model's use), then in a scrambled order (a hint past lo must not be
 * trusted), then with hints that are not this thread's ranges at all. */
T_TEST(test_scale__restart_matches_plain_sweep)
{
	struct trace t;
	T_TRUE(irregular(&t) == GF_OK);
	struct trace_walk w;
	trace_walk_init(&w, &t);
	for (int order = 0; order < 3; order++) {
		struct trace_wsweep ws;
		memset(&ws, 0, sizeof ws);
		uint32_t hint[2] = { 0, 0 };
		unsigned x = 777;
		int windows = 0;
		for (gf_ns k = 0; k < 400; k++) {
			gf_ns lo = -1000 + k * 13001;
			if (order == 1) {
				x = x * 1103515245u + 12345u;
				lo = -1000 + (gf_ns)((x >> 8) % 5300000);
			}
			gf_ns len = 1 + (k * 7919) % 400000;
			for (uint32_t th = 0; th < t.nth && th < 2; th++) {
				struct trace_sweep s;
				trace_sweep_init(&s, &t, th, lo, lo + len);
				if (order == 2)
					hint[th] = th ? 0 : UINT32_MAX - 1; /* thread 0's first range; out of range */
				trace_wsweep_restart(&ws, &w, th, lo, lo + len, &hint[th]);
				T_EQ_I64(hint[th], trace_range_upper(&t, th, lo));
				same_segments(&s, &ws);
				trace_sweep_release(&s);
				windows++;
			}
		}
		trace_wsweep_release(&ws);
		T_EQ_I64(windows, 800);
	}
	trace_walk_release(&w);
	trace_release(&t);
}

T_TEST(test_scale__walk_log_hops_on_deep_chain)
{
	/* 20,000 nested frames, innermost queries at every end boundary: the
	 * plain walk makes n^2/4 = 10^8 hops, the jumps O(log n) per query */
	const int n = 20000;
	struct trace t;
	T_TRUE(nested(&t, n) == GF_OK);
	struct trace_walk w;
	trace_walk_init(&w, &t);
	trace_walk_steps = 0;
	uint64_t q = 0;
	for (int i = 0; i < n; i++, q++) {
		gf_ns ts = (100LL * (2 * n - i) + 50) * 1000 + 5; /* just after frame i ends */
		uint32_t a = trace_walk_innermost(&w, 0, ts);
		if (i < 50 || i % 1000 == 0)
			T_EQ_I64(a, trace_innermost(&t, 0, ts));
	}
	T_TRUE(trace_walk_steps < 80 * q);
	trace_walk_release(&w);
	trace_release(&t);
}

T_TEST(test_scale__report_linear_on_deep_nesting)
{
	/* report_build (gaps, syncs, comm, top calls) on 20,000 nested frames
	 * with 40,000 gaps and 20,000 syncs under them: the parent hops made by
	 * sweeps and queries stay a small multiple of the events */
	const int n = 20000;
	struct trace t;
	T_TRUE(nested(&t, n) == GF_OK);
	struct actx c;
	struct sbuf err = SBUF_INIT;
	T_TRUE(actx_init(&c, &t, -1, &err) == GF_OK);
	struct report_opts o;
	report_opts_init(&o);
	struct report r;
	trace_walk_steps = 0;
	T_TRUE(report_build(&r, &c, &o, &err) == GF_OK);
	T_TRUE(trace_walk_steps < 64ULL * (t.nr + t.nact));
	/* the site is the user's frame, found without a walk */
	T_EQ_I64(r.sy.nsites, 1);
	if (r.sy.nsites) {
		T_EQ_STR(r.sy.sites[0].site_name, "train.py(10): main");
		T_EQ_I64(r.sy.sites[0].count, n);
	}
	T_TRUE(r.gp.steady.c[GAP_HOST] > 0);
	report_release(&r);
	actx_release(&c);
	sbuf_release(&err);
	trace_release(&t);
}

T_TEST(test_scale__straddlers_match_brute_force)
{
	/* random activities on two devices and streams, some very long */
	unsigned x = 777;
	jbegin();
	jev("user_annotation", "ProfilerStep#1", 0, 100000, NULL);
	for (int i = 0; i < 3000; i++) {
		x = x * 1103515245u + 12345u;
		long long ts = (x >> 8) % 100000;
		x = x * 1103515245u + 12345u;
		long long dur = i % 97 == 0 ? (x >> 8) % 80000 : (x >> 8) % 50;
		sbuf_addf(&J, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"k\",\"pid\":0,\"tid\":%d,\"ts\":%lld,"
			      "\"dur\":%lld,\"args\":{\"device\":%d,\"stream\":%d}}",
			  i % 5 ? "kernel" : "gpu_memcpy", 7 + i % 3, ts, dur, i % 4 == 0, 7 + i % 3);
	}
	struct trace t;
	T_TRUE(jload(&t) == GF_OK);
	struct actx c;
	struct sbuf err = SBUF_INIT;
	T_TRUE(actx_init(&c, &t, -1, &err) == GF_OK);
	uint32_t *v = NULL;
	size_t cap = 0, total = 0;
	for (gf_ns lo = -5; lo < 101000000; lo += 99991) {
		size_t k = actx_straddlers(&c, lo, &v, &cap), m = 0;
		total += k;
		for (uint32_t i = 0; i < t.nact; i++) {
			const struct trace_act *a = &t.act[i];
			if (!actx_on_dev(&c, a) || !(a->start < lo && lo < a->end))
				continue;
			T_TRUE(m < k && v[m] == i); /* same set, by index */
			m++;
		}
		T_EQ_I64(m, k);
	}
	T_TRUE(total > 1000);
	free(v);
	actx_release(&c);
	sbuf_release(&err);
	trace_release(&t);
}

static struct sbuf fam_out;

static const char *family(struct kfamily *k, const char *name)
{
	kfamily_of(k, name, strlen(name), &fam_out);
	return fam_out.buf;
}

T_TEST(test_scale__regex_sees_a_bounded_prefix)
{
	struct kfamily *k = kfamily_new();
	struct sbuf err = SBUF_INIT;
	const char *rules = "x$\tends_x\n^a+b\tab\n\xc3$\tcut_char\n";
	T_TRUE(kfamily_parse(k, rules, strlen(rules), "f.txt", &err) == GF_OK);
	static char name[3 * KFAMILY_MATCH_MAX];
	const int LONG = 2 * KFAMILY_MATCH_MAX;
	/* short: the whole name */
	memset(name, 'a', 1000);
	strcpy(name + 1000, "x");
	T_EQ_STR(family(k, name), "ends_x");
	T_EQ_I64(kfamily_truncated(k), 0);
	/* long: the first KFAMILY_MATCH_MAX bytes */
	memset(name, 'a', LONG);
	strcpy(name + LONG, "x");
	T_TRUE(strcmp(family(k, name), "ends_x") != 0);
	T_EQ_I64(kfamily_truncated(k), 1);
	memset(name, 'a', LONG);
	name[100] = 'b';
	T_EQ_STR(family(k, name), "ab");
	T_EQ_I64(kfamily_truncated(k), 2);
	/* the cut never leaves half a UTF-8 character: "é" (c3 a9) at 1023 */
	memset(name, 'c', LONG);
	name[KFAMILY_MATCH_MAX - 1] = (char)0xc3;
	name[KFAMILY_MATCH_MAX] = (char)0xa9;
	T_TRUE(strcmp(family(k, name), "cut_char") != 0);
	/* exactly KFAMILY_MATCH_MAX bytes: not cut */
	memset(name, 'a', KFAMILY_MATCH_MAX - 1);
	strcpy(name + KFAMILY_MATCH_MAX - 1, "x");
	T_EQ_STR(family(k, name), "ends_x");
	T_EQ_I64(kfamily_truncated(k), 3);
	kfamily_free(k);
	sbuf_release(&err);
	sbuf_release(&fam_out);
}

int main(void)
{
	T_RUN(test_scale__walk_matches_plain_queries);
	T_RUN(test_scale__restart_matches_plain_sweep);
	T_RUN_SLOW(test_scale__walk_log_hops_on_deep_chain);
	T_RUN_SLOW(test_scale__report_linear_on_deep_nesting);
	T_RUN(test_scale__straddlers_match_brute_force);
	T_RUN(test_scale__regex_sees_a_bounded_prefix);
	return t_done();
}
