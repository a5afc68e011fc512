/* test_diff.c — unit tests of diff (alignment, normalisation, noise test,
 * name rules, like-with-like), norm (exact rescaling) and merge (streaming
 * k-way merge, header rules, the in-memory fallback, merge(A,B) == A + B). */
#include "t.h"

#include "stacks/ops/diff.h"
#include "stacks/ops/merge.h"
#include "stacks/ops/norm.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"

#include "merge_paths.h"

#include <math.h>
#include <unistd.h>

static void load(struct ftree *t, const char *text)
{
	ftree_init(t, NULL, 0);
	struct sbuf err = SBUF_INIT;
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	if (folded_read_mem(t, text, strlen(text), "mem", NULL, &st, &err))
		fprintf(stderr, "load: %s\n", err.buf);
	sbuf_release(&err);
}

/* Writes t sorted (merge_write_sorted) into a malloc'ed string. */
static char *dump(const struct ftree *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	merge_write_sorted(fp, t, false);
	fclose(fp);
	return buf;
}

static char *norm_str(const char *in, int64_t steps, unsigned dec, enum norm_round r)
{
	struct ftree t;
	load(&t, in);
	struct sbuf err = SBUF_INIT;
	norm_add_decimals(&t, dec, &err);
	norm_scale_col(&t, 0, 1, steps, r, &err);
	char *s = dump(&t);
	ftree_release(&t);
	sbuf_release(&err);
	return s;
}

T_TEST(test_diff__norm_largest_remainder_keeps_total)
{
	char *s = norm_str("a 1\nb 1\nc 1\n", 3, 0, NORM_ROUND_LARGEST);
	/* 1/3 each: floors are 0, the total 1 goes to the first largest remainder */
	T_EQ_STR(s, "a 1\n");
	free(s);
	s = norm_str("a 1\nb 1\nc 1\n", 3, 3, NORM_ROUND_LARGEST);
	T_EQ_STR(s, "a 0.334\nb 0.333\nc 0.333\n");
	free(s);
	s = norm_str("a 1\nb 1\nc 1\n", 3, 3, NORM_ROUND_EVEN);
	T_EQ_STR(s, "a 0.333\nb 0.333\nc 0.333\n");
	free(s);
	s = norm_str("x;y 12\nx 3\n", 5, 3, NORM_ROUND_LARGEST);
	T_EQ_STR(s, "x 0.6\nx;y 2.4\n");
	free(s);
	s = norm_str("a 7\nb 6\n", 2, 0, NORM_ROUND_FLOOR);
	T_EQ_STR(s, "a 3\nb 3\n");
	free(s);
}

T_TEST(test_diff__norm_totals_exact_many_lines)
{
	/* 100 lines of weight 1..100 over 7 steps: the total is round(5050/7) */
	struct sbuf in = SBUF_INIT;
	for (int i = 1; i <= 100; i++)
		sbuf_addf(&in, "f%d;g %d\n", i, i);
	struct ftree t;
	load(&t, in.buf);
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(norm_add_decimals(&t, 3, &err), 0);
	T_EQ_I64(t.scale, 3);
	T_EQ_I64(norm_scale_col(&t, 0, 1, 7, NORM_ROUND_LARGEST, &err), 0);
	T_EQ_I64(t.total[0], 721429); /* 5050000 / 7 = 721428.57 -> 721429 */
	int64_t sum = 0;
	for (uint32_t i = 1; i < t.n; i++) {
		sum += ftree_self(&t, i, 0);
		/* every line within one unit of its exact value */
		int64_t s = ftree_self(&t, i, 0);
		if (s) {
			int64_t w;
			const char *nm = ftree_name(&t, t.parent[i]);
			w = atoll(nm + 1) * 1000;
			T_TRUE(llabs(s * 7 - w) < 7);
		}
	}
	T_EQ_I64(sum, 721429);
	ftree_release(&t);
	sbuf_release(&in);
	sbuf_release(&err);
}

static char *nn(const char *s)
{
	struct sbuf b = SBUF_INIT;
	diff_name_normalise(s, strlen(s), &b);
	return sbuf_detach(&b, NULL);
}

T_TEST(test_diff__name_rules)
{
	static const char *const cases[][2] = {
		{ "thread (0x7F3A12BC)", "thread (0x...)" },
		{ "0x234f2abc", "0x..." },
		{ "call 0xdeadBEEF+0x10", "call 0x...+0x..." },
		{ "ProfilerStep#12", "ProfilerStep#..." },
		{ "ProfilerStep#", "ProfilerStep#" },
		{ "process 1234:\"python serve.py\"", "process ...:\"python serve.py\"" },
		{ "thread 4567", "thread ..." },
		{ "worker pid=77 tid:88", "worker pid=... tid:..." },
		{ "rapid=12", "rapid=12" },
		{ "0x", "0x" },
		{ "0xg", "0xg" },
		{ "aten::mm", "aten::mm" },
		{ "my thread 12", "my thread 12" },
		{ "thread (25286): python3", "thread (...): python3" },
		{ "thread (7, pid 100): a;b", "thread (..., pid ...): a;b" },
		{ "thread (): x", "thread (): x" },
	};
	for (size_t i = 0; i < GF_ARRAY_LEN(cases); i++) {
		char *s = nn(cases[i][0]);
		T_EQ_STR(s, cases[i][1]);
		free(s);
	}
}

T_TEST(test_diff__meta_check)
{
	struct ftree_meta a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	folded_parse_meta("# gpuflame: weight=gpu; unit=us; steps=5; rank=0; label.batch=4;", 64, &a);
	folded_parse_meta("# gpuflame: weight=gpu; unit=us; steps=3; rank=0; label.batch=4;", 64, &b);
	struct sbuf d = SBUF_INIT;
	T_EQ_I64(diff_check_meta(&a, &b, &d), 0); /* steps may differ */
	ftree_meta_set(&b, "weight", "cpu");
	ftree_meta_set(&b, "label.seq", "2048");
	ftree_meta_set(&b, "label.batch", "8");
	T_EQ_I64(diff_check_meta(&a, &b, &d), 3);
	T_EQ_STR(d.buf, "weight: 'gpu' vs 'cpu'; label.batch: '4' vs '8'; label.seq: (absent) vs '2048'");
	sbuf_release(&d);
	ftree_meta_clear(&a);
	ftree_meta_clear(&b);
}

T_TEST(test_diff__align_union_and_per_step)
{
	struct ftree b, a;
	load(&b, "# gpuflame: weight=wall; unit=us; steps=5;\nmain;sync 50\nmain;work 100\nmain;old 5\n");
	load(&a, "# gpuflame: weight=wall; unit=us; steps=4;\nmain;work 80\nmain;new 4\n");
	struct diff_opts o;
	diff_opts_init(&o);
	struct diff_result r;
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(diff_run(&r, &b, &a, &o, &err), 0);
	T_TRUE(!r.sampled);
	T_EQ_I64(r.scale, DIFF_SCALE_STEPS);
	char *s = dump(&r.t);
	T_EQ_STR(s, "# gpuflame: weight=wall; unit=us; steps=1; steps.before=5; steps.after=4; normalised=per-step;\n"
		    "main;new 0 1\nmain;old 1 0\nmain;sync 10 0\nmain;work 20 20\n");
	free(s);
	T_EQ_I64(r.only_before, 2);
	T_EQ_I64(r.only_after, 1);
	uint32_t sync = ftree_find(&r.t, ftree_find(&r.t, 0, pool_find(r.t.names, "main", 4)),
				   pool_find(r.t.names, "sync", 4));
	T_TRUE(sync != FT_NONE);
	T_EQ_I64(diff_direction(&r, sync, false), -1);
	struct diff_row rows[3];
	size_t k = diff_top(&r, false, 3, rows);
	T_EQ_I64(k, 3);
	T_EQ_I64(rows[0].delta, -10000); /* main: 32 -> 21 per step is -11; sync -10 */
	diff_result_release(&r);
	ftree_release(&b);
	ftree_release(&a);
	sbuf_release(&err);
}

T_TEST(test_diff__top_order)
{
	struct ftree b, a;
	load(&b, "m;x 10\nm;y 1\n");
	load(&a, "m;x 12\nm;y 9\n");
	struct diff_opts o;
	diff_opts_init(&o);
	o.sampled = 0;
	struct diff_result r;
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(diff_run(&r, &b, &a, &o, &err), 0);
	struct diff_row rows[4];
	size_t k = diff_top(&r, true, 4, rows);
	T_EQ_I64(k, 2);
	T_EQ_STR(ftree_name(&r.t, rows[0].node), "y");
	T_EQ_I64(rows[0].delta, 8);
	T_EQ_I64(rows[1].delta, 2);
	k = diff_top(&r, false, 4, rows);
	T_EQ_I64(k, 3);
	T_EQ_STR(ftree_name(&r.t, rows[0].node), "m");
	T_EQ_I64(rows[0].delta, 10);
	diff_result_release(&r);
	ftree_release(&b);
	ftree_release(&a);
	sbuf_release(&err);
}

T_TEST(test_diff__scale_steps_needs_counts)
{
	struct ftree b, a;
	load(&b, "m 10\n");
	load(&a, "m 12\n");
	struct diff_opts o;
	diff_opts_init(&o);
	o.scale = DIFF_SCALE_STEPS;
	struct diff_result r;
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(diff_run(&r, &b, &a, &o, &err), GF_EUSAGE);
	T_TRUE(strstr(err.buf, "--steps") != NULL);
	o.steps[0] = 2;
	o.steps[1] = 3;
	T_EQ_I64(diff_run(&r, &b, &a, &o, &err), 0);
	char *s = dump(&r.t);
	T_EQ_STR(s, "# gpuflame: steps=1; steps.before=2; steps.after=3; normalised=per-step;\nm 5 4\n");
	free(s);
	diff_result_release(&r);
	ftree_release(&b);
	ftree_release(&a);
	sbuf_release(&err);
}

T_TEST(test_diff__ztest_values)
{
	/* 30% vs 35% of 3000 samples: z = 4.13, p = 3.6e-5 */
	double p = diff_ztest(900, 3000, 1050, 3000);
	T_TRUE(p > 3e-5 && p < 4.5e-5);
	/* 30% vs 31% : p ~ 0.40 */
	p = diff_ztest(900, 3000, 930, 3000);
	T_TRUE(p > 0.3 && p < 0.5);
	T_TRUE(diff_ztest(0, 0, 5, 10) == 1.0);
	T_TRUE(diff_ztest(10, 10, 20, 20) == 1.0);
}

T_TEST(test_diff__sampled_noise_classes)
{
	struct ftree b, a;
	/* big: 30% -> 35% (significant); mid: 20% -> 21% (noise); tiny: 0.5% -> 0.8% (small) */
	load(&b, "m;big 900\nm;mid 600\nm;tiny 15\nm;rest 1485\n");
	load(&a, "m;big 1050\nm;mid 630\nm;tiny 24\nm;rest 1296\n");
	struct diff_opts o;
	diff_opts_init(&o);
	struct diff_result r;
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(diff_run(&r, &b, &a, &o, &err), 0);
	T_TRUE(r.sampled);
	uint32_t m = ftree_find(&r.t, 0, pool_find(r.t.names, "m", 1));
	uint32_t big = ftree_find(&r.t, m, pool_find(r.t.names, "big", 3));
	uint32_t mid = ftree_find(&r.t, m, pool_find(r.t.names, "mid", 3));
	uint32_t tiny = ftree_find(&r.t, m, pool_find(r.t.names, "tiny", 4));
	uint32_t rest = ftree_find(&r.t, m, pool_find(r.t.names, "rest", 4));
	T_EQ_I64(r.cls_total[big], DIFF_GREW);
	T_EQ_I64(r.cls_total[mid], DIFF_NOISE);
	T_EQ_I64(r.cls_total[tiny], DIFF_SMALL);
	T_EQ_I64(r.cls_total[rest], DIFF_SHRANK);
	T_EQ_I64(diff_direction(&r, mid, false), 0);
	diff_result_release(&r);
	/* the same with --no-sampled: colour by sign only */
	o.sampled = 0;
	T_EQ_I64(diff_run(&r, &b, &a, &o, &err), 0);
	mid = ftree_find(&r.t, ftree_find(&r.t, 0, pool_find(r.t.names, "m", 1)), pool_find(r.t.names, "mid", 3));
	T_EQ_I64(r.cls_total[mid], DIFF_GREW);
	diff_result_release(&r);
	ftree_release(&b);
	ftree_release(&a);
	sbuf_release(&err);
}

/* ---- merge ---- */

static char *tmpfile_with(const char *text)
{
	char *path = strdup("/tmp/gf-test-diff-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return path;
	if (write(fd, text, strlen(text)) < 0)
		perror("write");
	close(fd);
	return path;
}

static char *merge_str(const char *const *texts, size_t n, const struct merge_opts *o, int *rc,
		       struct merge_stats *st, struct sbuf *err)
{
	char *paths[8];
	for (size_t i = 0; i < n; i++)
		paths[i] = tmpfile_with(texts[i]);
	FILE *out = tmpfile();
	*rc = merge_paths((const char *const *)paths, n, out, o, st, err);
	fflush(out);
	long len = ftell(out);
	rewind(out);
	char *buf = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
	if (len > 0 && fread(buf, 1, (size_t)len, out) != (size_t)len)
		buf[0] = 0;
	fclose(out);
	for (size_t i = 0; i < n; i++) {
		unlink(paths[i]);
		free(paths[i]);
	}
	return buf;
}

T_TEST(test_diff__merge_streaming_sorted)
{
	const char *in[] = {
		"# gpuflame: weight=gpu; unit=us; steps=5; rank=0; source=a.json;\na 1\na;b 2.5\nc 3\n",
		"# gpuflame: weight=gpu; unit=us; steps=3; rank=0; source=b.json;\na;b 0.25\nb 4\nc 1\nc 1\n",
	};
	struct merge_stats st;
	struct sbuf err = SBUF_INIT;
	int rc;
	char *s = merge_str(in, 2, NULL, &rc, &st, &err);
	T_EQ_I64(rc, 0);
	T_TRUE(!st.fell_back);
	T_EQ_STR(s, "# gpuflame: weight=gpu; unit=us; steps=8; rank=0; source=a.json,b.json; sources=2;\n"
		    "a 1\na;b 2.75\nb 4\nc 5\n");
	T_EQ_I64(st.out_stacks, 4);
	free(s);
	sbuf_release(&err);
}

T_TEST(test_diff__merge_refuses_ranks)
{
	const char *in[] = {
		"# gpuflame: weight=gpu; unit=us; rank=0;\na 1\n",
		"# gpuflame: weight=gpu; unit=us; rank=1;\na 1\n",
	};
	struct merge_stats st;
	struct sbuf err = SBUF_INIT;
	int rc;
	char *s = merge_str(in, 2, NULL, &rc, &st, &err);
	T_EQ_I64(rc, GF_EUSAGE);
	T_TRUE(strstr(err.buf, "rank '1' differs from '0'") != NULL);
	T_TRUE(strstr(err.buf, "--allow-ranks") != NULL);
	free(s);
	struct merge_opts o;
	memset(&o, 0, sizeof o);
	o.allow_ranks = true;
	s = merge_str(in, 2, &o, &rc, &st, &err);
	T_EQ_I64(rc, 0);
	T_EQ_STR(s, "# gpuflame: weight=gpu; unit=us; rank=0,1; sources=2;\na 2\n");
	free(s);
	/* a header-less file next to one with a weight: refused */
	const char *in2[] = { "# gpuflame: weight=gpu;\na 1\n", "a 1\n" };
	s = merge_str(in2, 2, NULL, &rc, &st, &err);
	T_EQ_I64(rc, GF_EUSAGE);
	T_TRUE(strstr(err.buf, "weight (absent) differs from 'gpu'") != NULL);
	free(s);
	sbuf_release(&err);
}

T_TEST(test_diff__merge_unsorted_falls_back)
{
	const char *in[] = { "b 1\na 2\n", "a 1\nc 1\n" };
	struct merge_stats st;
	struct sbuf err = SBUF_INIT;
	int rc;
	char *s = merge_str(in, 2, NULL, &rc, &st, &err);
	T_EQ_I64(rc, 0);
	T_TRUE(st.fell_back);
	T_TRUE(strstr(st.unsorted, "line 2") != NULL);
	T_EQ_STR(s, "a 3\nb 1\nc 1\n"); /* plain inputs: no header */
	free(s);
	struct merge_opts o;
	memset(&o, 0, sizeof o);
	o.no_fallback = true;
	s = merge_str(in, 2, &o, &rc, &st, &err);
	T_EQ_I64(rc, GF_EINPUT);
	T_TRUE(strstr(err.buf, "LC_ALL=C sort") != NULL);
	free(s);
	sbuf_release(&err);
}

/* Property: merge(A, B) == A + B exactly, for random sorted files with
 * decimal counts; and the streaming and in-memory paths agree. */
T_TEST(test_diff__merge_property_sum)
{
	unsigned seed = 12345;
	for (int round = 0; round < 20; round++) {
		struct sbuf f[3] = { SBUF_INIT, SBUF_INIT, SBUF_INIT };
		struct ftree ref;
		ftree_init(&ref, NULL, 0);
		for (int k = 0; k < 3; k++) {
			/* stacks s<i>;t<j> in sorted order, random subset */
			for (int i = 0; i < 12; i++)
				for (int j = 0; j < 3; j++) {
					seed = seed * 1103515245u + 12345u;
					if ((seed >> 16) % 3 == 0)
						continue;
					unsigned w = (seed >> 8) % 100000;
					sbuf_addf(&f[k], "s%02d;t%d %u.%02u\n", i, j, w / 100, w % 100);
				}
		}
		struct sbuf all = SBUF_INIT;
		for (int k = 0; k < 3; k++)
			sbuf_add(&all, f[k].buf, f[k].len);
		struct sbuf err = SBUF_INIT;
		struct folded_stats fst;
		memset(&fst, 0, sizeof fst);
		folded_read_mem(&ref, all.buf, all.len, "all", NULL, &fst, &err);
		const char *in[3] = { f[0].buf, f[1].buf, f[2].buf };
		struct merge_stats st;
		int rc;
		char *s = merge_str(in, 3, NULL, &rc, &st, &err);
		T_EQ_I64(rc, 0);
		T_TRUE(!st.fell_back);
		struct ftree got;
		load(&got, s);
		ftree_set_scale(&got, ref.scale, &err);
		ftree_set_scale(&ref, got.scale, &err);
		T_EQ_I64(got.total[0], ref.total[0]);
		char *d1 = dump(&ref), *d2 = dump(&got);
		/* the merged text equals the tree of the concatenation */
		T_EQ_STR(s, d1);
		T_TRUE(!strcmp(d1, d2));
		free(d1);
		free(d2);
		free(s);
		ftree_release(&got);
		ftree_release(&ref);
		for (int k = 0; k < 3; k++)
			sbuf_release(&f[k]);
		sbuf_release(&all);
		sbuf_release(&err);
		if (t_case_failed)
			break;
	}
}

int main(void)
{
	T_RUN(test_diff__norm_largest_remainder_keeps_total);
	T_RUN(test_diff__norm_totals_exact_many_lines);
	T_RUN(test_diff__name_rules);
	T_RUN(test_diff__meta_check);
	T_RUN(test_diff__align_union_and_per_step);
	T_RUN(test_diff__top_order);
	T_RUN(test_diff__scale_steps_needs_counts);
	T_RUN(test_diff__ztest_values);
	T_RUN(test_diff__sampled_noise_classes);
	T_RUN(test_diff__merge_streaming_sorted);
	T_RUN(test_diff__merge_refuses_ranks);
	T_RUN(test_diff__merge_unsorted_falls_back);
	T_RUN(test_diff__merge_property_sum);
	return t_done();
}
