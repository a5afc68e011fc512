/* test_diff_out.c — unit tests of the differential writers
 * (stacks/render/diff_out.h): the fill and outline of every frame against
 * the formula of docs/diff.md computed here from the input stacks by other
 * code (string prefix sums and integer arithmetic, not the call tree), the
 * rendered SVG (fills, outlines, tooltips, legend, --negate widths), the
 * --top tables and the 3-column text. */
#include "t.h"

#include "stacks/ops/diff.h"
#include "stacks/folded.h"
#include "stacks/render/diff_out.h"

#include <math.h>

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

/* Exact durations (no noise test), no normalisation. */
static int run(struct diff_result *r, const char *b, const char *a)
{
	struct ftree tb, ta;
	load(&tb, b);
	load(&ta, a);
	struct diff_opts o;
	diff_opts_init(&o);
	o.sampled = 0;
	o.scale = DIFF_SCALE_NONE;
	struct sbuf err = SBUF_INIT;
	int rc = diff_run(r, &tb, &ta, &o, &err);
	ftree_release(&tb);
	ftree_release(&ta);
	sbuf_release(&err);
	return rc;
}

/* ---- the independent model: stacks as strings ---- */

#define NSTK 48
struct stk {
	char path[64];
	long long w[2]; /* before, after */
};

static unsigned long long lcg_state;
static unsigned lcg(unsigned n)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((lcg_state >> 33) % n);
}

/* Random stacks over frames a..e, depth 1..4; each weight 0..99 (0 = absent). */
static size_t gen(struct stk *s, unsigned long long seed)
{
	lcg_state = seed;
	for (size_t i = 0; i < NSTK; i++) {
		unsigned depth = 1 + lcg(4);
		char *p = s[i].path;
		for (unsigned d = 0; d < depth; d++) {
			if (d)
				*p++ = ';';
			*p++ = (char)('a' + lcg(5));
		}
		*p = 0;
		for (int k = 0; k < 2; k++)
			s[i].w[k] = lcg(3) ? (long long)lcg(100) : 0;
	}
	return NSTK;
}

static void text_of(const struct stk *s, size_t n, int k, struct sbuf *out)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].w[k])
			sbuf_addf(out, "%s %lld\n", s[i].path, s[i].w[k]);
}

/* Sums of the stacks equal to p (self) or under p (total), column k. */
static long long sum_under(const struct stk *s, size_t n, const char *p, int k, bool self)
{
	size_t l = strlen(p);
	long long x = 0;
	for (size_t i = 0; i < n; i++) {
		bool eq = !strcmp(s[i].path, p);
		bool under = !strncmp(s[i].path, p, l) && s[i].path[l] == ';';
		if (eq || (!self && under) || (!self && !l))
			x += s[i].w[k];
	}
	return x;
}

/* Every proper prefix path of the stacks, the root ("") first. */
static size_t prefixes(const struct stk *s, size_t n, char (*out)[64], size_t cap)
{
	size_t m = 0;
	out[m++][0] = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 1; ; j++) {
			if (s[i].path[j] && s[i].path[j] != ';')
				continue;
			char p[64];
			memcpy(p, s[i].path, j);
			p[j] = 0;
			size_t q;
			for (q = 0; q < m && strcmp(out[q], p); q++)
				;
			if (q == m && m < cap)
				strcpy(out[m++], p);
			if (!s[i].path[j])
				break;
		}
	}
	return m;
}

static long long labs_ll(long long x)
{
	return x < 0 ? -x : x;
}

/* The documented fill: v = floor(210 * (max - |d|) / max), |d| capped at
 * max, red when d > 0. */
static void want_fill(long long d, long long max, char out[24])
{
	if (!d) {
		snprintf(out, 24, "rgb(250,250,250)");
		return;
	}
	long long ad = labs_ll(d) < max ? labs_ll(d) : max; /* the root's change may exceed max */
	long long v = 210 * (max - ad) / max;
	if (d > 0)
		snprintf(out, 24, "rgb(255,%lld,%lld)", v, v);
	else
		snprintf(out, 24, "rgb(%lld,%lld,255)", v, v);
}

static uint32_t node_of(const struct ftree *t, const char *p)
{
	struct sbuf b = SBUF_INIT;
	uint32_t hit = UINT32_MAX;
	for (uint32_t i = 0; i < t->n && hit == UINT32_MAX; i++) {
		sbuf_reset(&b);
		if (i)
			ftree_path(t, i, &b);
		if (!strcmp(b.buf, p))
			hit = i;
	}
	sbuf_release(&b);
	return hit;
}

/* Fill and outline of every frame, for 20 random profile pairs, both views. */
T_TEST(test_diff_out__fill_and_outline_follow_the_formula)
{
	static struct stk s[NSTK];
	static char pre[512][64];
	for (unsigned long long seed = 1; seed <= 20; seed++) {
		size_t n = gen(s, seed);
		struct sbuf tb = SBUF_INIT, ta = SBUF_INIT;
		text_of(s, n, 0, &tb);
		text_of(s, n, 1, &ta);
		struct diff_result r;
		T_EQ_I64(run(&r, tb.buf, ta.buf), GF_OK);
		size_t m = prefixes(s, n, pre, 512);
		long long maxd = 0, maxsd = 0;
		for (size_t i = 1; i < m; i++) {
			long long d = sum_under(s, n, pre[i], 1, false) - sum_under(s, n, pre[i], 0, false);
			long long sd = sum_under(s, n, pre[i], 1, true) - sum_under(s, n, pre[i], 0, true);
			if (labs_ll(d) > maxd)
				maxd = labs_ll(d);
			if (labs_ll(sd) > maxsd)
				maxsd = labs_ll(sd);
		}
		int64_t gd, gsd;
		diff_out_maxima(&r, &gd, &gsd);
		T_EQ_I64(gd, maxd);
		T_EQ_I64(gsd, maxsd);
		for (size_t i = 0; i < m; i++) {
			uint32_t node = node_of(&r.t, pre[i]);
			long long b = sum_under(s, n, pre[i], 0, false), a = sum_under(s, n, pre[i], 1, false);
			if (!a && !b)
				continue; /* a prefix of stacks absent on both sides */
			T_TRUE(node != UINT32_MAX);
			if (node == UINT32_MAX)
				break;
			char want[24], got[24];
			want_fill(a - b, maxd ? maxd : 1, want);
			diff_out_fill(&r, false, gd, node, got);
			T_EQ_STR(got, want);
			long long sd = sum_under(s, n, pre[i], 1, true) - sum_under(s, n, pre[i], 0, true);
			double w = 0;
			int has = diff_out_stroke(&r, false, gsd, node, got, &w);
			T_EQ_I64(has, node && sd);
			if (has) {
				T_EQ_STR(got, sd > 0 ? "rgb(160,0,0)" : "rgb(0,0,160)");
				T_TRUE(fabs(w - (0.5 + 2.0 * (double)labs_ll(sd) / (double)maxsd)) < 1e-9);
			}
		}
		diff_result_release(&r);
		sbuf_release(&tb);
		sbuf_release(&ta);
	}
}

/* One pair worked by hand from the formula (max |total change| = 15, b's;
 * max |self change| = 15): a 40 -> 52 is 210 * 3 / 15 = 42, c 30 -> 20 is
 * 70, d 5 -> 0 is 140, e 0 -> 4 is 154, the root 45 -> 56 is 56. */
static const char *HB = "a;b 10\na;c 30\nd 5\n", *HA = "a;b 25\na;c 20\na 7\ne 4\n";

static bool has_frame(const char *svg, const char *name, const char *tail)
{
	char key[160];
	snprintf(key, sizeof key, "<title>%s (", name);
	const char *p = strstr(svg, key);
	const char *e = p ? strstr(p, "</g>") : NULL;
	const char *q = p ? strstr(p, tail) : NULL;
	return q && q < e;
}

T_TEST(test_diff_out__svg_by_hand)
{
	struct diff_result r;
	T_EQ_I64(run(&r, HB, HA), GF_OK);
	struct diff_out_svg_opts o;
	diff_out_svg_opts_init(&o);
	struct sbuf svg = SBUF_INIT, err = SBUF_INIT;
	T_EQ_I64(diff_out_svg_buf(&r, &o, &svg, &err), GF_OK);
	const char *x = svg.buf;
	T_TRUE(strstr(x, "<title>all (56 samples, 100%)</title><rect x=\"10.0\" y=\"141\" width=\"1180.0\" "
		   "height=\"15.0\" fill=\"rgb(255,56,56)\" rx") != NULL);
	T_TRUE(has_frame(x, "a", "total 40 -&gt; 52, +12 (+30.0%); self 0 -&gt; 7, +7 (new))</title>"));
	T_TRUE(has_frame(x, "a", "fill=\"rgb(255,42,42)\" stroke=\"rgb(160,0,0)\" stroke-width=\"1.4\""));
	T_TRUE(has_frame(x, "b", "fill=\"rgb(255,0,0)\" stroke=\"rgb(160,0,0)\" stroke-width=\"2.5\""));
	T_TRUE(has_frame(x, "c", "fill=\"rgb(70,70,255)\" stroke=\"rgb(0,0,160)\" stroke-width=\"1.8\""));
	T_TRUE(has_frame(x, "e", "fill=\"rgb(255,154,154)\" stroke=\"rgb(160,0,0)\" stroke-width=\"1.0\""));
	T_TRUE(strstr(x, "<title>d (") == NULL); /* only in BEFORE: no width */
	T_TRUE(strstr(x, "deeper = larger (max +15); white = unchanged.") != NULL);
	T_TRUE(strstr(x, "Total: 45 -&gt; 56, +11 (+24.4%). Frames only in BEFORE (not drawn, see --negate): 1.") != NULL);
	T_TRUE(strstr(x, ">Differential flame graph<") != NULL);
	/* --negate: BEFORE's widths, the same after - before colours */
	o.negate = true;
	sbuf_reset(&svg);
	T_EQ_I64(diff_out_svg_buf(&r, &o, &svg, &err), GF_OK);
	x = svg.buf;
	T_TRUE(strstr(x, "<title>all (45 samples, 100%)</title>") != NULL);
	T_TRUE(has_frame(x, "d", "fill=\"rgb(140,140,255)\" stroke=\"rgb(0,0,160)\" stroke-width=\"1.2\""));
	T_TRUE(has_frame(x, "b", "total 10 -&gt; 25, +15 (+150.0%)"));
	T_TRUE(strstr(x, "<title>e (") == NULL);
	T_TRUE(strstr(x, "Widths: BEFORE. ") != NULL);
	T_TRUE(strstr(x, "Frames only in AFTER (not drawn, see the default view): 1.") != NULL);
	T_TRUE(strstr(x, ">Differential flame graph (before&#39;s shape)<") != NULL);
	/* the tree is left as it was: AFTER in column 1 */
	T_EQ_I64(r.t.total[0], 45);
	T_EQ_I64(r.t.total2[0], 56);
	sbuf_release(&svg);
	sbuf_release(&err);
	diff_result_release(&r);
}

static char *mem_out(struct diff_result *r, int which, bool negate)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	if (which)
		diff_out_text(fp, r, negate, false);
	else
		diff_out_top(fp, r, 2);
	fclose(fp);
	return buf;
}

/* --top prints the exact per-step values, not sums of the rounded lines:
 * q = 2/3 per step is 0.667 (the lines give 0.333 + 0.333 = 0.666), p = 1
 * stays the integer 1, the delta and delta% are exact. */
T_TEST(test_diff_out__top_exact)
{
	struct ftree tb, ta;
	load(&tb, "# gpuflame: weight=gpu; unit=us; steps=3;\np;a 1\np;b 1\nq;c 1\nq;d 1\n");
	load(&ta, "# gpuflame: weight=gpu; unit=us; steps=2;\np;a 1\np;b 1\nq;c 5\nq;d 1\n");
	struct diff_opts o;
	diff_opts_init(&o);
	struct diff_result r;
	struct sbuf err = SBUF_INIT;
	T_EQ_I64(diff_run(&r, &tb, &ta, &o, &err), GF_OK);
	char *top = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&top, &len);
	diff_out_top(fp, &r, 10);
	fclose(fp);
	T_TRUE(strstr(top, "         0.667              3         +2.333   +350.0%  grew   q\n") != NULL);
	T_TRUE(strstr(top, "         0.667              1         +0.333    +50.0%  grew   p\n") != NULL);
	T_TRUE(strstr(top, "0.666") == NULL && strstr(top, "0.334") == NULL);
	free(top);
	diff_result_release(&r);
	ftree_release(&tb);
	ftree_release(&ta);
	sbuf_release(&err);
}

T_TEST(test_diff_out__top_and_text)
{
	struct diff_result r;
	T_EQ_I64(run(&r, HB, HA), GF_OK);
	char *top = mem_out(&r, 0, false);
	T_EQ_STR(top,
		 "Biggest changes by total weight:\n"
		 "        before          after          delta    delta%  class  stack\n"
		 "            10             25            +15   +150.0%  grew   a;b\n"
		 "            40             52            +12    +30.0%  grew   a\n"
		 "\n"
		 "Biggest changes by self weight:\n"
		 "        before          after          delta    delta%  class  stack\n"
		 "            10             25            +15   +150.0%  grew   a;b\n"
		 "            30             20            -10    -33.3%  shrank a;c\n"
		 "\n"
		 "1 frames only in BEFORE, 1 only in AFTER\n"
		 "\n"
		 "Exact weights without per-step values: changes are classed by their sign (fold with --per-step, "
		 "or diff the traces, to tell them from step-to-step noise).\n");
	free(top);
	char *t = mem_out(&r, 1, false), *n = mem_out(&r, 1, true);
	T_EQ_STR(t, "a 0 7\na;b 10 25\na;c 30 20\nd 5 0\ne 0 4\n"); /* plain inputs: no header */
	T_EQ_STR(n, "a 7 0\na;b 25 10\na;c 20 30\nd 0 5\ne 4 0\n");
	free(t);
	free(n);
	diff_result_release(&r);
}

/* Sampled counts that differ by noise only: grey fill, no outline, and the
 * tooltip and legend say so. */
T_TEST(test_diff_out__noise_is_grey)
{
	struct ftree tb, ta;
	load(&tb, "m;a 500\nm;b 500\n");
	load(&ta, "m;a 510\nm;b 490\n");
	struct diff_opts o;
	diff_opts_init(&o);
	struct diff_result r;
	struct sbuf err = SBUF_INIT, svg = SBUF_INIT;
	T_EQ_I64(diff_run(&r, &tb, &ta, &o, &err), GF_OK);
	T_TRUE(r.sampled);
	uint32_t a = node_of(&r.t, "m;a");
	T_TRUE(a != UINT32_MAX);
	if (a == UINT32_MAX)
		return;
	T_EQ_I64(r.cls_total[a], DIFF_NOISE);
	char rgb[24];
	double w = 0;
	int64_t md, msd;
	diff_out_maxima(&r, &md, &msd);
	diff_out_fill(&r, false, md, a, rgb);
	T_EQ_STR(rgb, "rgb(220,220,220)");
	T_EQ_I64(diff_out_stroke(&r, false, msd, a, rgb, &w), 0);
	struct diff_out_svg_opts so;
	diff_out_svg_opts_init(&so);
	T_EQ_I64(diff_out_svg_buf(&r, &so, &svg, &err), GF_OK);
	T_TRUE(has_frame(svg.buf, "a", "; within sampling noise, p="));
	T_TRUE(strstr(svg.buf, "Sampled counts: grey = change within noise (two-proportion test, alpha 0.01: ") != NULL);
	sbuf_release(&svg);
	sbuf_release(&err);
	diff_result_release(&r);
	ftree_release(&tb);
	ftree_release(&ta);
}

int main(void)
{
	T_RUN(test_diff_out__fill_and_outline_follow_the_formula);
	T_RUN(test_diff_out__svg_by_hand);
	T_RUN(test_diff_out__top_and_text);
	T_RUN(test_diff_out__top_exact);
	T_RUN(test_diff_out__noise_is_grey);
	return t_done();
}
