/* test_ranks.c — the summary reader and the combine of many ranks
 * (src/ranks/): the minimum-wait rule per process group on hand-made
 * summaries whose answers are known, ties, coalesced and mismatched
 * collectives, the fallback by kernel name, the checks (missing, duplicate
 * rank, other runs), nearest-rank percentiles and outliers, the prose
 * formats' separators. */
#include "t.h"

#include "ranks/ranks.h"
#include "ranks/ranks_out.h"
#include "ranks/summary.h"
#include "base/rtable.h"
#include "trace/model/trace.h"

/* A summary of rank `rank` of `world` (-1: null): group g0 "0" with the
 * given rank list text (or NULL: no group at all, the kernels unnamed);
 * collectives: n of them with their seq (-1: null), collective name index
 * (0 "allreduce", 1 "broadcast"), kernel index (2 "ncclA", 3 "ncclB"),
 * durations; one step of wall `wall` ns. */
static void mk(struct sbuf *b, int rank, int world, const char *ranks, size_t n, const int *seq, const int *coll,
	       const int *kern, const long *dur, long wall, const char *run)
{
	char r[32], w[32];
	snprintf(r, sizeof r, rank < 0 ? "null" : "%d", rank);
	snprintf(w, sizeof w, world < 0 ? "null" : "%d", world);
	sbuf_addf(b, "{\"schema\":\"gpuflame.summary/1\",\"generator\":\"t\",\"run\":%s%s%s,"
		     "\"options\":{\"steps\":null,\"skip\":0,\"step_marker\":\"ProfilerStep\",\"device\":null,"
		     "\"unprofiled_step_us\":null,\"expect_us\":null},\"file\":\"r%d\",\"rank\":%s,\"world_size\":%s,"
		     "\"backend\":null,\"groups\":[",
		  run ? "\"" : "", run ? run : "null", run ? "\"" : "", rank, r, w);
	if (ranks)
		sbuf_addf(b, "{\"name\":\"0\",\"desc\":\"default_pg\",\"ranks\":%s,\"size\":null}", ranks);
	sbuf_addf(b, "],\"collectives\":{\"count\":%zu,\"names\":[\"allreduce\",\"broadcast\",\"ncclA\",\"ncclB\"]", n);
	const char *key[] = { "group", "seq", "collective", "kernel", "dtype", "nelems", "step", "enqueue_us", "start_us",
			      "dur_us" };
	for (int c = 0; c < 10; c++) {
		sbuf_addf(b, ",\"%s\":[", key[c]);
		for (size_t i = 0; i < n; i++) {
			if (i)
				sbuf_addch(b, ',');
			switch (c) {
			case 0: sbuf_addstr(b, ranks ? "0" : "-1"); break;
			case 1: sbuf_addf(b, seq[i] < 0 ? "null" : "%d", seq[i]); break;
			case 2: sbuf_addf(b, "%d", coll[i]); break;
			case 3: sbuf_addf(b, "%d", kern[i]); break;
			case 4: sbuf_addstr(b, "-1"); break;
			case 5: sbuf_addstr(b, "null"); break;
			case 6: sbuf_addstr(b, "1"); break;
			case 7: sbuf_addstr(b, "null"); break;
			case 8: sbuf_addf(b, "%zu", 100 * i); break;
			default: sbuf_addf(b, "%ld.000", dur[i]); break;
			}
		}
		sbuf_addch(b, ']');
	}
	sbuf_addf(b, "},\"kernels\":[],\"report\":{\"schema\":\"gpuflame.report/2\",\"file\":\"r%d\",\"rank\":%s,"
		     "\"device\":0,\"whole_trace\":false,\"steps\":[{\"index\":1,\"warmup\":false,\"wall_us\":%ld,"
		     "\"gpu_busy_us\":1,\"idle_us\":0,\"sync_wait_us\":0,\"syncs\":0,\"launches\":1,\"kernels\":1,"
		     "\"gaps\":null}],\"summary\":{\"steady_step_us\":%ld,\"gpu_busy_us\":1,\"idle_us\":0,"
		     "\"sync_wait_us\":0,\"syncs\":0,\"launches\":1,\"kernels\":1,\"verdict\":null,"
		     "\"verdict_cause\":null,\"action\":null},\"gaps\":null,\"comm\":null,\"idle_stacks\":null},"
		     "\"page\":null}",
		  rank, r, wall, wall);
}

/* Combines the n documents docs[0..n). */
static int combine(struct sbuf *docs, size_t n, bool partial, struct ranks *r, struct sbuf *err)
{
	struct ranks_mem m;
	ranks_mem_init(&m, n);
	for (size_t i = 0; i < n; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "s%zu", i);
		ranks_mem_put(&m, i, nm, &docs[i]);
	}
	struct ranks_source src;
	ranks_source_mem(&src, &m);
	struct ranks_opts o = { partial, false };
	int rc = ranks_combine(&src, &o, r, err);
	ranks_mem_free(&m);
	return rc;
}

static void release(struct sbuf *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sbuf_release(&d[i]);
}

/* rank 0: 10 10 10; rank 1: 5 5 12 (one group, seq 1..3): rank 1 is the
 * shortest twice -> arrived last twice (clear straggler); waits: rank 0
 * 5+5+0 = 10, rank 1 0+0+2 = 2. */
T_TEST(test_ranks__min_wait_rule)
{
	struct sbuf d[2] = { SBUF_INIT, SBUF_INIT }, err = SBUF_INIT;
	int seq[] = { 1, 2, 3 }, coll[] = { 0, 0, 0 }, kern[] = { 2, 2, 2 };
	long d0[] = { 10, 10, 10 }, d1[] = { 5, 5, 12 };
	mk(&d[0], 0, 2, "[0,1]", 3, seq, coll, kern, d0, 100, NULL);
	mk(&d[1], 1, 2, "[0,1]", 3, seq, coll, kern, d1, 100, NULL);
	struct ranks r;
	T_EQ_I64(combine(d, 2, false, &r, &err), GF_OK);
	T_EQ_I64(r.ngroups, 1);
	T_EQ_I64(r.groups[0].matched, 3);
	T_EQ_I64(r.groups[0].straggler, 1);
	T_TRUE(r.groups[0].clear);
	T_EQ_I64(r.groups[0].last, 2);
	T_TRUE(r.groups[0].by_seq);
	T_EQ_I64(r.rank[0].fig[RF_WAIT], 10000); /* us in the document: ns here */
	T_EQ_I64(r.rank[1].fig[RF_WAIT], 2000);
	T_EQ_I64(r.rank[0].fig[RF_LAST], 1);
	T_EQ_I64(r.groups[0].waited, 10000);
	ranks_free(&r);
	release(d, 2);
	sbuf_release(&err);
}

/* Equal durations: nobody arrived last, no straggler; the verdict says so. */
T_TEST(test_ranks__ties)
{
	struct sbuf d[2] = { SBUF_INIT, SBUF_INIT }, err = SBUF_INIT;
	int seq[] = { 1, 2 }, coll[] = { 0, 0 }, kern[] = { 2, 2 };
	long dd[] = { 7, 7 };
	mk(&d[0], 0, 2, "[0,1]", 2, seq, coll, kern, dd, 100, NULL);
	mk(&d[1], 1, 2, "[0,1]", 2, seq, coll, kern, dd, 100, NULL);
	struct ranks r;
	T_EQ_I64(combine(d, 2, false, &r, &err), GF_OK);
	T_EQ_I64(r.groups[0].matched, 2);
	T_EQ_I64(r.groups[0].straggler, -1);
	struct sbuf v = SBUF_INIT, a = SBUF_INIT;
	ranks_out_verdict(&r, &v, &a);
	T_TRUE(!strncmp(v.buf, "No straggler: every one of the 2 matched collectives", 52));
	sbuf_release(&v);
	sbuf_release(&a);
	ranks_free(&r);
	release(d, 2);
	sbuf_release(&err);
}

/* Two kernels of one (group, seq) on a rank are one collective, from the
 * first start to the last end; a different collective name on a matched
 * instance is a mismatch; an instance on one rank only is unmatched. */
T_TEST(test_ranks__coalesced_mismatch_unmatched)
{
	struct sbuf d[2] = { SBUF_INIT, SBUF_INIT }, err = SBUF_INIT;
	int s0[] = { 1, 1, 2, 3 }, c0[] = { 0, 0, 0, 0 }, k0[] = { 2, 2, 2, 2 };
	long d0[] = { 10, 10, 10, 10 }; /* seq 1: starts 0 and 100, ends 10 and 110 -> 110 */
	int s1[] = { 1, 2 }, c1[] = { 0, 1 }, k1[] = { 2, 2 };
	long d1[] = { 20, 30 };
	mk(&d[0], 0, 2, "[0,1]", 4, s0, c0, k0, d0, 100, NULL);
	mk(&d[1], 1, 2, "[0,1]", 2, s1, c1, k1, d1, 100, NULL);
	struct ranks r;
	T_EQ_I64(combine(d, 2, false, &r, &err), GF_OK);
	const struct ranks_group *g = &r.groups[0];
	T_EQ_I64(g->instances, 3);
	T_EQ_I64(g->matched, 2);
	T_EQ_I64(g->unmatched, 1);
	T_EQ_I64(g->mismatched, 1);
	T_EQ_I64(g->mismatch_seq, 2);
	/* seq 1: rank 0 110 (coalesced), rank 1 20 -> rank 1 arrived last, rank 0 waited 90;
	 * seq 2: 10 vs 30 -> rank 0 arrived last, rank 1 waited 20 */
	T_EQ_I64(r.rank[0].fig[RF_WAIT], 90000);
	T_EQ_I64(r.rank[1].fig[RF_WAIT], 20000);
	ranks_free(&r);
	release(d, 2);
	sbuf_release(&err);
}

/* No group names: one group, matched by (kernel name, occurrence). */
T_TEST(test_ranks__fallback_by_kernel)
{
	struct sbuf d[2] = { SBUF_INIT, SBUF_INIT }, err = SBUF_INIT;
	int seq[] = { -1, -1, -1 }, coll[] = { -1, -1, -1 }, k0[] = { 2, 3, 2 }, k1[] = { 3, 2, 2 };
	long d0[] = { 5, 9, 5 }, d1[] = { 9, 8, 8 }; /* ncclA#0: 5|8, ncclB#0: 9|9 (tie), ncclA#1: 5|8 */
	mk(&d[0], 0, 2, NULL, 3, seq, coll, k0, d0, 100, NULL);
	mk(&d[1], 1, 2, NULL, 3, seq, coll, k1, d1, 100, NULL);
	struct ranks r;
	T_EQ_I64(combine(d, 2, false, &r, &err), GF_OK);
	T_TRUE(r.fallback);
	T_EQ_I64(r.ngroups, 1);
	T_EQ_I64(r.groups[0].matched, 3);
	T_EQ_I64(r.groups[0].straggler, 0);
	T_EQ_I64(r.groups[0].last, 2);
	T_EQ_I64(r.rank[1].fig[RF_WAIT], 6000);
	ranks_free(&r);
	release(d, 2);
	sbuf_release(&err);
}

/* The checks: a missing rank (unless partial), a rank twice, other runs. */
T_TEST(test_ranks__checks)
{
	struct sbuf d[3] = { SBUF_INIT, SBUF_INIT, SBUF_INIT }, err = SBUF_INIT;
	int seq[] = { 1 }, coll[] = { 0 }, kern[] = { 2 };
	long dd[] = { 5 };
	mk(&d[0], 0, 3, "[0,1,2]", 1, seq, coll, kern, dd, 100, NULL);
	mk(&d[1], 2, 3, "[0,1,2]", 1, seq, coll, kern, dd, 100, NULL);
	struct ranks r;
	T_EQ_I64(combine(d, 2, false, &r, &err), GF_EINPUT);
	T_TRUE(strstr(err.buf, "rank 1 of world size 3 has no summary (2 of 3 given)") != NULL);
	T_EQ_I64(combine(d, 2, true, &r, &err), GF_OK);
	T_TRUE(r.partial);
	ranks_free(&r);
	sbuf_reset(&d[1]);
	mk(&d[1], 0, 3, "[0,1,2]", 1, seq, coll, kern, dd, 100, NULL);
	T_EQ_I64(combine(d, 2, true, &r, &err), GF_EINPUT);
	T_TRUE(strstr(err.buf, "'s1' and 's0' are both rank 0") != NULL);
	sbuf_reset(&d[1]);
	mk(&d[1], 1, 3, "[0,1]", 1, seq, coll, kern, dd, 100, NULL);
	T_EQ_I64(combine(d, 2, true, &r, &err), GF_EINPUT);
	T_TRUE(strstr(err.buf, "process group '0' has ranks [0,1], but [0,1,2]") != NULL);
	sbuf_reset(&d[1]);
	mk(&d[1], 1, 3, "[0,1,2]", 1, seq, coll, kern, dd, 100, "job7");
	T_EQ_I64(combine(d, 2, true, &r, &err), GF_EINPUT);
	T_TRUE(strstr(err.buf, "'s1': run 'job7', but 's0' is run '(none)'") != NULL);
	release(d, 3);
	sbuf_release(&err);
}

/* Nearest-rank percentiles, Tukey outliers farthest first, the median rank;
 * and the prose formats' separators (text wraps, Markdown paragraphs). */
T_TEST(test_ranks__distributions_and_formats)
{
	enum { N = 10 };
	struct sbuf d[N], err = SBUF_INIT;
	long walls[N] = { 100, 101, 102, 103, 104, 105, 106, 107, 300, 5 };
	for (int i = 0; i < N; i++) {
		sbuf_init(&d[i], 0);
		mk(&d[i], i, N, NULL, 0, NULL, NULL, NULL, NULL, walls[i], NULL);
	}
	struct ranks r;
	T_EQ_I64(combine(d, N, false, &r, &err), GF_OK);
	const struct ranks_dist *w = &r.fig[RF_WALL];
	/* sorted: 5 100 101 102 103 104 105 106 107 300 (us; ns below) */
	T_EQ_I64(w->n, N);
	T_EQ_I64(w->min, 5000);
	T_EQ_I64(w->p50, 103000);  /* the 5th of 10 */
	T_EQ_I64(w->p90, 107000);  /* the 9th */
	T_EQ_I64(w->q1, 101000);   /* the 3rd */
	T_EQ_I64(w->q3, 106000);   /* the 8th */
	T_EQ_I64(w->nout, 2);
	T_EQ_I64(r.rank[w->out[0]].rank, 8); /* 300 us: 197 from the median (ms in the text) */
	T_EQ_I64(r.rank[w->out[1]].rank, 9); /* 5: 98 */
	T_EQ_I64(r.rank[r.median].rank, 3); /* its wall is the median, 103 */
	struct sbuf out = SBUF_INIT;
	ranks_out(&r, REP_MD, 0, &out);
	T_TRUE(!strncmp(out.buf, "## gpuflame report: 10 ranks of world size 10 (never merged)\n\n**Verdict:** ", 75));
	T_TRUE(strstr(out.buf, "rank 8 \\(0\\.300\\), rank 9 \\(0\\.005\\)") != NULL);
	sbuf_reset(&out);
	ranks_out(&r, REP_TEXT, 0, &out);
	T_TRUE(strstr(out.buf, "rank 8 (0.300), rank 9 (0.005)") != NULL);
	T_TRUE(!strncmp(out.buf, "gpuflame report: 10 ranks of world size 10 (never merged)\nVerdict: ", 67));
	for (const char *p = out.buf; *p;) { /* prose wrapped at 100 columns (tables are not prose here) */
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (strncmp(p, "  ", 2) && len > 100)
			T_FAIL_("line of %zu columns", len);
		p += len + (nl != NULL);
	}
	sbuf_release(&out);
	ranks_free(&r);
	release(d, N);
	sbuf_release(&err);
}

/* The reader: strict, one line naming the file and the byte. */
T_TEST(test_ranks__reader_errors)
{
	struct sbuf d = SBUF_INIT, err = SBUF_INIT;
	int seq[] = { 1 }, coll[] = { 0 }, kern[] = { 2 };
	long dd[] = { 5 };
	mk(&d, 0, 1, "[0]", 1, seq, coll, kern, dd, 100, NULL);
	struct summary s;
	T_EQ_I64(summary_parse(&s, d.buf, d.len, "x.json", &err), GF_OK);
	T_EQ_I64(s.ncoll, 1);
	T_EQ_I64(s.coll[0].dur, 5000);
	T_EQ_I64(s.steady.wall, 100000);
	summary_free(&s);
	T_EQ_I64(summary_parse(&s, d.buf, d.len / 2, "x.json", &err), GF_EINPUT);
	T_TRUE(!strncmp(err.buf, "'x.json': byte ", 15));
	char *v2 = strstr(d.buf, "summary/1");
	v2[8] = '9';
	T_EQ_I64(summary_parse(&s, d.buf, d.len, "x.json", &err), GF_EINPUT);
	T_EQ_I64(strcmp(err.buf, "'x.json': summary schema 'gpuflame.summary/9'; this gpuflame reads gpuflame.summary/1 "
				 "(summarise the traces again with this version)"),
		 0);
	v2[8] = '1';
	char *cnt = strstr(d.buf, "\"count\":1");
	cnt[8] = '2';
	T_EQ_I64(summary_parse(&s, d.buf, d.len, "x.json", &err), GF_EINPUT);
	T_TRUE(strstr(err.buf, "expected an array as long as \"count\" for \"group\"") != NULL);
	sbuf_release(&d);
	sbuf_release(&err);
}


/* The reader and the model: a collective's args on its kernel or on the op
 * that launched it, every spelling (a rank list as a string with blanks or
 * an array, "Process Group ID" as a number, "seq"), pg_config; a key given
 * twice is an error. */
static const char comm_trace[] =
	"{\"distributedInfo\":{\"rank\":1,\"world_size\":4,\"pg_config\":[{\"pg_name\":\"0\",\"pg_desc\":\"default_pg\","
	"\"pg_size\":4,\"ranks\":[0, 1, 2, 3]},{\"pg_name\":\"1\",\"pg_desc\":\"tp\",\"pg_size\":2,\"ranks\":\"[0, 1]\"}]},"
	"\"traceEvents\":["
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20,"
	"\"args\":{\"Collective name\":\"allreduce\",\"Process Group Name\":\"1\",\"Process Group Ranks\":\"[0, 1]\","
	"\"Seq\":7,\"In msg nelems\":1024,\"Group size\":2,\"dtype\":\"Float\"}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":5,"
	"\"args\":{\"correlation\":5}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllReduce\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":30,"
	"\"args\":{\"correlation\":5,\"device\":0,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_Broadcast\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":3,"
	"\"args\":{\"correlation\":6,\"device\":0,\"stream\":7,\"Collective name\":\"broadcast\",\"Process Group ID\":0,"
	"\"Process Group Ranks\":[0,1,2,3],\"seq\":3}}]}";

T_TEST(test_ranks__reader_comm_args)
{
	struct trace t;
	struct sbuf err = SBUF_INIT;
	trace_init(&t, NULL);
	T_EQ_I64(trace_load_mem(&t, comm_trace, sizeof comm_trace - 1, "c.json", NULL, &err), GF_OK);
	T_EQ_I64(t.meta.npgs, 2);
	T_EQ_STR(pool_str(t.names, t.meta.pgs[0].ranks), "[0,1,2,3]");
	T_EQ_STR(pool_str(t.names, t.meta.pgs[1].ranks), "[0,1]");
	T_EQ_I64(t.meta.pgs[1].size, 2);
	T_EQ_I64(t.ncoll, 2);
	const struct trace_coll *a = &t.coll[0], *b = &t.coll[1];
	T_EQ_STR(pool_str(t.names, t.act[a->act].name), "ncclDevKernel_AllReduce");
	T_TRUE(!a->own); /* from record_param_comms, through its launch */
	T_EQ_STR(pool_str(t.names, a->pg), "1");
	T_EQ_STR(pool_str(t.names, a->pg_ranks), "[0,1]");
	T_EQ_STR(pool_str(t.names, a->coll), "allreduce");
	T_EQ_STR(pool_str(t.names, a->dtype), "Float");
	T_EQ_I64(a->seq, 7);
	T_EQ_I64(a->nelems, 1024);
	T_EQ_I64(a->group_size, 2);
	T_TRUE(b->own); /* its own args: unlaunched, still found */
	T_EQ_STR(pool_str(t.names, b->pg), "0");
	T_EQ_STR(pool_str(t.names, b->pg_ranks), "[0,1,2,3]");
	T_EQ_I64(b->seq, 3);
	T_TRUE(trace_coll_of(&t, a->act) == a);
	T_TRUE(trace_coll_of(&t, t.nact) == NULL);
	trace_release(&t);
	static const char dup[] = "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
				  "\"args\":{\"Seq\":1,\"seq\":2}}]";
	trace_init(&t, NULL);
	T_EQ_I64(trace_load_mem(&t, dup, sizeof dup - 1, "d.json", NULL, &err), GF_EINPUT);
	T_TRUE(strstr(err.buf, "one \"Seq\" or \"seq\" key in \"args\"") != NULL);
	trace_release(&t);
	sbuf_release(&err);
}

int main(void)
{
	T_RUN(test_ranks__min_wait_rule);
	T_RUN(test_ranks__ties);
	T_RUN(test_ranks__coalesced_mismatch_unmatched);
	T_RUN(test_ranks__fallback_by_kernel);
	T_RUN(test_ranks__checks);
	T_RUN(test_ranks__distributions_and_formats);
	T_RUN(test_ranks__reader_errors);
	T_RUN(test_ranks__reader_comm_args);
	return t_done();
}
