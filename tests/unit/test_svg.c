/* test_svg.c — unit tests of the SVG renderer, its palettes, the tree's
 * child index (wide parents) and the top table. */
#include "t.h"
#include "tree_util.h"

#include "stacks/ops/top.h"
#include "stacks/ftrie.h"
#include "stacks/folded_out.h"
#include "stacks/folded.h"
#include "base/escape.h"
#include "stacks/render/palette.h"
#include "stacks/render/svg.h"

static void load(struct ftree *t, const char *in, unsigned flags)
{
	ftree_init(t, NULL, flags);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT;
	int rc = folded_read_mem(t, in, strlen(in), "mem", NULL, &st, &err);
	if (rc)
		fprintf(stderr, "load: %s\n", err.buf);
	ftree_sort(t);
	sbuf_release(&err);
}

/* Renders `in` with options o (NULL: defaults); returns the malloc'ed SVG. */
static char *render(const char *in, const struct svg_opts *o, struct svg_stats *st, int *rc)
{
	struct ftree t;
	load(&t, in, 0);
	struct svg_opts def;
	svg_opts_init(&def);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	*rc = svg_render_buf(&t, o ? o : &def, &out, st, &err);
	ftree_release(&t);
	sbuf_release(&err);
	return sbuf_detach(&out, NULL);
}

static bool has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static bool valid_utf8_no_ctrl(const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		long cp;
		int k = esc_utf8_next((const unsigned char *)s + i, n - i, &cp);
		if (cp < 0)
			return false;
		if (cp < 0x20 && cp != '\n')
			return false;
		if (cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
			return false;
		i += (size_t)k;
	}
	return true;
}

T_TEST(test_svg__geometry)
{
	struct svg_stats st;
	int rc;
	char *s = render("a;b 3\na 1\nc 4\n", NULL, &st, &rc);
	T_EQ_I64(rc, 0);
	T_EQ_I64(st.frames, 4);
	T_EQ_I64(st.depthmax, 2);
	/* height = 3 levels * 16 + 36 + 34 */
	T_EQ_I64(st.height, 118);
	T_TRUE(has(s, "width=\"1200\" height=\"118\""));
	/* total 8 over 1180 px: 147.5 px per sample; a's self (1) at its left */
	T_TRUE(has(s, "<title>all (8 samples, 100%)</title><rect x=\"10.0\" y=\"69\" width=\"1180.0\" height=\"15.0\""));
	T_TRUE(has(s, "<title>a (4 samples, 50.00%)</title><rect x=\"10.0\" y=\"53\" width=\"590.0\""));
	T_TRUE(has(s, "<title>b (3 samples, 37.50%)</title><rect x=\"157.5\" y=\"37\" width=\"442.5\""));
	T_TRUE(has(s, "<title>c (4 samples, 50.00%)</title><rect x=\"600.0\" y=\"53\" width=\"590.0\""));
	/* label of a: 590 / (12 * 0.59) = 83 chars, fits whole */
	T_TRUE(has(s, ">a</text>"));
	free(s);
}

T_TEST(test_svg__icicle_and_subtitle_do_not_overlap)
{
	struct svg_opts o;
	svg_opts_init(&o);
	o.inverted = true;
	o.subtitle = "sub";
	struct svg_stats st;
	int rc;
	char *s = render("a;b 1\n", &o, &st, &rc);
	T_EQ_I64(rc, 0);
	/* frames start below ypad1 (36) + subtitle (24) = 60 */
	T_TRUE(has(s, "<title>all (1 samples, 100%)</title><rect x=\"10.0\" y=\"60\""));
	T_TRUE(has(s, ">Icicle Graph</text>"));
	free(s);
}

T_TEST(test_svg__minwidth_aggregate)
{
	/* 1000 children of weight 1 under p (0.107 px each) and one wide one */
	struct sbuf in = SBUF_INIT;
	for (int i = 0; i < 1000; i++)
		sbuf_addf(&in, "p;f%04d 1\n", i);
	sbuf_addstr(&in, "p;big 10000\n");
	struct svg_opts o;
	svg_opts_init(&o);
	o.minwidth = 1;
	struct svg_stats st;
	int rc;
	char *s = render(in.buf, &o, &st, &rc);
	T_EQ_I64(rc, 0);
	T_EQ_I64(st.pruned, 1000);
	T_EQ_I64(st.aggregates, 1);
	T_EQ_I64(st.frames, 4); /* all, p, big, aggregate */
	T_TRUE(has(s, "<title>[1000 frames &lt; minwidth] (1,000 samples, 9.09%)</title>"));
	T_TRUE(!has(s, "f0001"));
	free(s);
	/* the same in percent: 0.5% of 11000 = 55 > 1000 * 1? no: each 1 < 55,
	 * the aggregate 1000 >= 55 is drawn */
	o.minwidth = 0.5;
	o.minwidth_pct = true;
	s = render(in.buf, &o, &st, &rc);
	T_EQ_I64(st.aggregates, 1);
	free(s);
	/* aggregate itself too narrow: 10% of 11000 = 1100 > 1000 */
	o.minwidth = 10;
	s = render(in.buf, &o, &st, &rc);
	T_EQ_I64(st.aggregates, 0);
	T_EQ_I64(st.frames, 3);
	free(s);
	/* minwidth 0 draws everything */
	o.minwidth = 0;
	o.minwidth_pct = false;
	s = render(in.buf, &o, &st, &rc);
	T_EQ_I64(st.frames, 1003);
	T_EQ_I64(st.aggregates, 0);
	free(s);
	sbuf_release(&in);
}

T_TEST(test_svg__escaping)
{
	struct svg_opts o;
	svg_opts_init(&o);
	o.title = "T <&> \"q\" \x1b";
	o.subtitle = "s\xff<";
	o.notes = "n -- <x> & -";
	o.countname = "b<y>tes";
	o.nametype = "F\"</script>]]>:";
	struct svg_stats st;
	int rc;
	char *s = render("m\x1b[31m;<a&b>\"'\xff\xfe 5\nm\x1b[31m;ok 5\n", &o, &st, &rc);
	T_EQ_I64(rc, 0);
	T_TRUE(valid_utf8_no_ctrl(s));
	T_TRUE(!strchr(s, 0x1b));
	T_TRUE(has(s, "m\\x1B[31m"));
	T_TRUE(has(s, "&lt;a&amp;b&gt;&quot;&#39;\xEF\xBF\xBD\xEF\xBF\xBD (5 b&lt;y&gt;tes, 50.00%)"));
	T_TRUE(has(s, ">T &lt;&amp;&gt; &quot;q&quot; \\x1B</text>"));
	T_TRUE(has(s, "<!-- NOTES: n - - &lt;x&gt; &amp; -  -->"));
	T_TRUE(!has(s, "]]>:"));
	/* only the CDATA end of the script itself */
	T_EQ_I64(count(s, "]]>"), 1);
	free(s);
}

/* --fonttype reaches the stylesheet: a value that could end the declaration,
 * the rule or the <style> element is refused, nothing is written */
T_TEST(test_svg__fonttype_cannot_inject_css)
{
	static const char *const bad[] = {
		"Verdana; } #frames { display:none } x {", "x</style><script>alert(1)</script>",
		"a{}", "x'", "\"x", "x:y", "a,,b", "", "x\ny", "url(x)", "x\\", "x\xff", "a\xe2\x80\xae" "b",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct svg_opts o;
		svg_opts_init(&o);
		o.fonttype = bad[i];
		struct ftree t;
		load(&t, "a;b 1\n", 0);
		struct sbuf out = SBUF_INIT, err = SBUF_INIT;
		int rc = svg_render_buf(&t, &o, &out, NULL, &err);
		if (rc != GF_EUSAGE || out.len)
			T_FAIL_("fonttype %zu '%s' gave rc %d and %zu bytes", i, bad[i], rc, out.len);
		ftree_release(&t);
		sbuf_release(&out);
		sbuf_release(&err);
	}
	static const char *const good[] = {
		"Verdana", "'DejaVu Sans Mono', monospace", "\"Helvetica Neue\", Arial, sans-serif",
		"Noto Sans CJK JP", "\xe3\x83\xa1\xe3\x82\xa4\xe3\x83\xaa\xe3\x82\xaa", "font-1.5_x",
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		T_TRUE(svg_fonttype_ok(good[i]));
		struct svg_opts o;
		svg_opts_init(&o);
		o.fonttype = good[i];
		int rc;
		char *s = render("a;b 1\n", &o, NULL, &rc);
		T_EQ_I64(rc, 0);
		char want[300];
		snprintf(want, sizeof want, "text { font-family:%s; font-size:", good[i]);
		T_TRUE(has(s, want));
		free(s);
	}
}

/* the consistent palette's colours go into fill="..." attributes: only plain
 * colour syntax is stored, from a palette.map file or from a caller */
T_TEST(test_svg__palmap_plain_colours_only)
{
	struct palmap *m = palmap_new();
	palmap_set(m, "a", 1, "rgb(1,2,3)\" onload=\"alert(1)");
	T_TRUE(palmap_get(m, "a", 1) == NULL);
	palmap_set(m, "a", 1, "red;<x>");
	T_TRUE(palmap_get(m, "a", 1) == NULL);
	palmap_set(m, "a", 1, "rgb(1,2,3)");
	T_EQ_STR(palmap_get(m, "a", 1), "rgb(1,2,3)");
	const char *file = "b->rgb(4,5,6)\"/><script>\nc->#0a0b0c\nd->&amp;\n";
	T_EQ_I64(palmap_parse(m, file, strlen(file)), 1);
	T_TRUE(palmap_get(m, "b", 1) == NULL && palmap_get(m, "d", 1) == NULL);
	T_EQ_STR(palmap_get(m, "c", 1), "#0a0b0c");
	struct svg_opts o;
	svg_opts_init(&o);
	o.cp = m;
	int rc;
	char *s = render("a 1\nb 1\nc 1\n", &o, NULL, &rc);
	T_EQ_I64(rc, 0);
	T_TRUE(has(s, "fill=\"rgb(1,2,3)\"") && has(s, "fill=\"#0a0b0c\""));
	T_TRUE(!has(s, "onload=\"alert") && !has(s, "<script>\n") && !has(s, "&amp;\""));
	free(s);
	palmap_free(m);
}

T_TEST(test_svg__deterministic)
{
	const char *in = "a;b;c 3\na;d 2\nx;y 7\n";
	struct svg_opts o;
	svg_opts_init(&o);
	int rc;
	char *a = render(in, &o, NULL, &rc), *b = render(in, &o, NULL, &rc);
	T_EQ_STR(a, b);
	free(a);
	free(b);
	o.random = true;
	a = render(in, &o, NULL, &rc);
	b = render(in, &o, NULL, &rc);
	T_EQ_STR(a, b);
	o.seed = 12345;
	char *c = render(in, &o, NULL, &rc);
	T_TRUE(strcmp(a, c) != 0);
	free(a);
	free(b);
	free(c);
}

T_TEST(test_svg__diff_colors)
{
	/* renderers.md 1.6, observed with flamegraph.pl */
	const char *in = "main;foo 1 2\nmain;foo;bar 0 4\nmain;baz 5 1\n";
	int rc;
	char *s = render(in, NULL, NULL, &rc);
	T_EQ_I64(rc, 0);
	T_TRUE(has(s, "<title>bar (4 samples, 57.14%; +57.14%)</title>"));
	T_TRUE(has(s, "<title>foo (6 samples, 85.71%; +14.29%)</title>"));
	T_TRUE(has(s, "<title>baz (1 samples, 14.29%; -57.14%)</title>"));
	T_TRUE(has(s, "<title>main (7 samples, 100.00%; 0.00%)</title>"));
	T_TRUE(has(s, "fill=\"rgb(255,0,0)\""));
	T_TRUE(has(s, "fill=\"rgb(255,157,157)\""));
	T_TRUE(has(s, "fill=\"rgb(0,0,255)\""));
	T_TRUE(has(s, "fill=\"rgb(255,255,255)\""));
	free(s);
	struct svg_opts o;
	svg_opts_init(&o);
	o.negate = true;
	s = render(in, &o, NULL, &rc);
	T_TRUE(has(s, "<title>bar (4 samples, 57.14%; -57.14%)</title><rect x=\"") &&
	       has(s, "fill=\"rgb(157,157,255)\""));
	free(s);
}

T_TEST(test_svg__exact_weights_and_factor)
{
	struct svg_opts o;
	svg_opts_init(&o);
	int rc;
	char *s = render("a;b 1.5\na;c 2.75\nd 1234567.25\n", &o, NULL, &rc);
	T_TRUE(has(s, "<title>all (1,234,571.5 samples, 100%)</title>"));
	T_TRUE(has(s, "<title>d (1,234,567.25 samples, 100.00%)</title>"));
	free(s);
	s = render("a;b 1.5\na;c 2.75\n", &o, NULL, &rc);
	T_TRUE(has(s, "<title>b (1.5 samples, 35.29%)</title>"));
	T_TRUE(has(s, "<title>a (4.25 samples, 100.00%)</title>"));
	free(s);
	o.factor_num = 25;
	o.factor_scale = 1;
	o.countname = "ns";
	s = render("a 3\nb 1\n", &o, NULL, &rc);
	T_TRUE(has(s, "<title>a (7.5 ns, 75.00%)</title>"));
	free(s);
	/* --total: frames shrink, percentages are of the pretended total */
	svg_opts_init(&o);
	o.total = 8;
	s = render("a 3\nb 1\n", &o, NULL, &rc);
	T_TRUE(has(s, "<title>all (8 samples, 100%)</title><rect x=\"10.0\" y=\"53\" width=\"1180.0\""));
	T_TRUE(has(s, "<title>a (3 samples, 37.50%)</title><rect x=\"10.0\" y=\"37\" width=\"442.5\""));
	free(s);
}

T_TEST(test_svg__palettes_match_flamegraph_pl)
{
	char c[24];
	/* default colours: perl's srand(sum of code points); rand() */
	/* the colour uses the raw name, annotation included (the title strips it) */
	double v = palette_random_namehash("__do_softirq_[k]", 16);
	palette_rgb(PAL_HOT, "__do_softirq_[k]", 16, v, v, v, c);
	T_EQ_STR(c, "rgb(253,221,52)");
	/* --hash */
	const char *n = "__srcu_read_lock_[k]";
	palette_rgb(PAL_HOT, n, strlen(n), palette_namehash(n, strlen(n), false),
		    palette_namehash(n, strlen(n), true), palette_namehash(n, strlen(n), true), c);
	T_EQ_STR(c, "rgb(236,132,34)");
	palette_rgb(PAL_MEM, n, strlen(n), palette_namehash(n, strlen(n), false),
		    palette_namehash(n, strlen(n), true), palette_namehash(n, strlen(n), true), c);
	T_EQ_STR(c, "rgb(0,221,120)");
	char a[8], b[8];
	T_EQ_I64(palette_bg(PAL_MEM, NULL, a, b), 0);
	T_EQ_STR(a, "#eef2ee");
	T_EQ_I64(palette_bg(PAL_HOT, "#12abEF", a, b), 0);
	T_EQ_STR(b, "#12abEF");
	T_EQ_I64(palette_bg(PAL_HOT, "#12abE", a, b), -1);
	T_EQ_I64(palette_bg(PAL_HOT, "pink", a, b), -1);
	T_EQ_I64(palette_find("gpu"), PAL_GPU);
	T_EQ_I64(palette_find("chartreuse"), -1);
}

T_TEST(test_svg__gpu_classes)
{
	static const struct { const char *name; int cls; } cases[] = {
		{"train.py(42): step", GPU_PYTHON},
		{"forward (model/llama.py:310)", GPU_PYTHON},
		{"nn.Module: LlamaAttention_0", GPU_MODULE},
		{"aten::mm", GPU_ATEN},
		{"aten::item", GPU_SYNC},
		{"aten::_local_scalar_dense", GPU_SYNC},
		{"aten::is_nonzero", GPU_SYNC},
		{"cudaStreamSynchronize", GPU_SYNC},
		{"cudaDeviceSynchronize", GPU_SYNC},
		{"cudaEventSynchronize", GPU_SYNC},
		{"cuStreamSynchronize", GPU_SYNC},
		{"cuCtxSynchronize", GPU_SYNC},
		{"hipDeviceSynchronize", GPU_SYNC},
		{"cudaMemcpy", GPU_SYNC},
		{"cudaMemcpy (sync)", GPU_SYNC},
		{"synchronize (torch/cuda/__init__.py:801)", GPU_SYNC},
		{"cudaLaunchKernel", GPU_RUNTIME},
		{"cudaMemcpyAsync", GPU_RUNTIME},
		{"cuLaunchKernel", GPU_RUNTIME},
		{"hipLaunchKernel", GPU_RUNTIME},
		{"sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32", GPU_K_GEMM},
		{"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_tn", GPU_K_GEMM},
		{"flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>", GPU_K_ATTN},
		{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL", GPU_K_COMM},
		{"triton_poi_fused_add_mul_0", GPU_K_TRITON},
		{"Memcpy HtoD (Pageable -> Device)", GPU_K_COPY},
		{"Memset (Device)", GPU_K_COPY},
		{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>", GPU_K_OTHER},
		{"void at::native::reduce_kernel<512, 1>", GPU_K_OTHER},
		{"[unattributed]", GPU_MARKER},
		{"[idle]", GPU_MARKER},
		{"[untraced]", GPU_MARKER},
		{"main", GPU_OTHER},
		{"__libc_start_main", GPU_OTHER},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int got = palette_gpu_class(cases[i].name, strlen(cases[i].name));
		if (got != cases[i].cls)
			T_FAIL_("'%s' is class %d, expected %d", cases[i].name, got, cases[i].cls);
	}
	/* sync stands out: saturated red, no other class is */
	char c[24];
	palette_gpu_rgb(GPU_SYNC, 0.5, c);
	T_TRUE(!strncmp(c, "rgb(2", 5) && strstr(c, ",0,"));
	/* the svg carries the legend */
	struct svg_opts o;
	svg_opts_init(&o);
	o.colors = "gpu";
	int rc;
	char *s = render("step;aten::item;cudaStreamSynchronize 5\nstep;aten::mm 5\n", &o, NULL, &rc);
	T_TRUE(has(s, "<g id=\"legend\">"));
	T_TRUE(has(s, ">SYNC</text>"));
	free(s);
}

static int hook_color(void *ctx, const struct ftree *t, uint32_t node, char rgb[24])
{
	(void)ctx;
	if (node && !strcmp(ftree_name(t, node), "b")) {
		strcpy(rgb, "#010203");
		return 1;
	}
	return 0;
}

static void hook_tip(void *ctx, const struct ftree *t, uint32_t node, struct sbuf *out)
{
	sbuf_addf(out, "%s <custom> (%s)\nsecond line", ftree_name(t, node), (const char *)ctx);
}

T_TEST(test_svg__hooks)
{
	static const char *const legend[] = {"red: slower <after>", "blue: faster", NULL};
	struct svg_opts o;
	svg_opts_init(&o);
	o.color = hook_color;
	o.tooltip = hook_tip;
	o.ctx = "ctx";
	o.legend = legend;
	struct svg_stats st;
	int rc;
	char *s = render("a;b 1\na 1\n", &o, &st, &rc);
	T_EQ_I64(rc, 0);
	T_TRUE(has(s, "fill=\"#010203\""));
	T_TRUE(has(s, "<title>b &lt;custom&gt; (ctx)&#10;second line</title>"));
	T_TRUE(has(s, "data-n=\"b\""));
	T_TRUE(has(s, "<title>all (2 samples, 100%)</title>"));
	T_TRUE(has(s, ">red: slower &lt;after&gt;</text>"));
	/* two legend lines: 2 * 18 px more than 3 * 16 + 70 */
	T_EQ_I64(st.height, 118 + 36);
	free(s);
}

T_TEST(test_svg__empty_is_an_error)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct svg_opts o;
	svg_opts_init(&o);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	T_EQ_I64(svg_render_buf(&t, &o, &out, NULL, &err), GF_EINPUT);
	T_EQ_I64(out.len, 0);
	T_TRUE(err.len > 0);
	o.bgcolors = "pink";
	ftree_release(&t);
	load(&t, "a 1\n", 0);
	T_EQ_I64(svg_render_buf(&t, &o, &out, NULL, &err), GF_EUSAGE);
	ftree_release(&t);
	sbuf_release(&out);
	sbuf_release(&err);
}

T_TEST(test_svg__flamechart_keeps_order)
{
	struct ftree t;
	load(&t, "z 1\na 1\nz 1\n", FT_FLAMECHART);
	struct svg_opts o;
	svg_opts_init(&o);
	struct sbuf out = SBUF_INIT, err = SBUF_INIT;
	T_EQ_I64(svg_render_buf(&t, &o, &out, NULL, &err), 0);
	T_EQ_I64(count(out.buf, "<title>z (1 samples"), 2);
	T_TRUE(has(out.buf, ">Flame Chart</text>"));
	const char *z = strstr(out.buf, "<title>z ("), *a = strstr(out.buf, "<title>a (");
	T_TRUE(z && a && z < a);
	ftree_release(&t);
	sbuf_release(&out);
	sbuf_release(&err);
}

T_TEST(test_svg__tree_wide_parent)
{
	/* more children than FT_SCAN_KIDS: lookups go through the hash table */
	struct ftree t;
	ftree_init(&t, NULL, 0);
	uint32_t ids[300];
	for (int i = 0; i < 300; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "n%d", i);
		ids[i] = pool_intern_str(t.names, nm);
	}
	struct sbuf err = SBUF_INIT;
	int64_t w[1] = {1};
	for (int rep = 0; rep < 3; rep++)
		for (int i = 0; i < 300; i++) {
			uint32_t st[2] = {ids[i], ids[(i * 7) % 300]};
			T_TRUE(ftree_add(&t, st, 2, w, &err) != FT_NONE);
		}
	T_EQ_I64(t.n, 1 + 300 + 300);
	T_EQ_I64(t.total[0], 900);
	for (int i = 0; i < 300; i++) {
		uint32_t c = ftree_find(&t, 0, ids[i]);
		T_TRUE(c != FT_NONE);
		if (c != FT_NONE)
			T_EQ_I64(t.total[c], 3);
	}
	ftree_sort(&t);
	T_EQ_I64(ftree_find(&t, 0, ids[299]) != FT_NONE, 1);
	ftree_release(&t);
	sbuf_release(&err);
}

T_TEST(test_svg__top_table)
{
	struct ftree t;
	load(&t, "main;f;f;f 5\nmain;mm 30\nmain;mm;gemm 70\nmain;f;g;f 2\n", 0);
	struct top_row *rows;
	size_t n;
	top_compute(&t, &rows, &n);
	top_sort(rows, n, &t, TOP_SORT_TOTAL);
	T_EQ_I64(n, 5);
	T_EQ_STR(pool_str(t.names, rows[0].name), "main");
	T_EQ_I64(rows[0].total, 107);
	T_EQ_I64(rows[0].stacks, 4);
	T_EQ_STR(pool_str(t.names, rows[1].name), "mm");
	T_EQ_I64(rows[1].total, 100);
	T_EQ_I64(rows[1].self, 30);
	T_EQ_I64(rows[1].stacks, 2);
	/* f: recursive, counted once per stack: 5 + 2 */
	size_t fi = 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(pool_str(t.names, rows[i].name), "f"))
			fi = i;
	T_EQ_I64(rows[fi].total, 7);
	T_EQ_I64(rows[fi].self, 7);
	T_EQ_I64(rows[fi].stacks, 2);
	T_EQ_I64(rows[fi].nodes, 4);
	T_EQ_I64(top_stacks(&t), 4);
	top_sort(rows, n, &t, TOP_SORT_NAME);
	T_EQ_STR(pool_str(t.names, rows[0].name), "f");
	free(rows);
	ftree_release(&t);
}

/* The tail-compressed trie builds the same tree as the folded reader
 * (keep_min 0), and the same drawable part for any keep_min. */
T_TEST(test_svg__pruned_trie_same_tree)
{
	static const char *const inputs[] = {
		"a;b;c;d 1\na;b;x 2\na;b;c;d 3\na;b 4\na;b;c 5\na;;b 1\na; 2\n;x 1\na;;; 3\n",
		"x;y;z 1\nx;y;z;w 2\nx;y 3\nx;y;z 4\nq 1.25\nx;y;z;w;v 0.5\nbad\n# c\n",
		"r;r;r;r 1\nr;r 1\nr;r;r;r;r 1\nr;r;r;s 2\nr;r;r;r 1\n",
		"m;a;b;c 5\nm;a;b;d 5\nm;a;e 5\nm;f 5\nm;a;b;c;g 5\nm;a;b;c 5\n",
	};
	for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
		for (int rev = 0; rev < 2; rev++) {
			struct folded_opts fo = {.strict = false, .reverse = rev != 0};
			struct ftree a, b;
			struct folded_stats sa, sb;
			memset(&sa, 0, sizeof sa);
			memset(&sb, 0, sizeof sb);
			struct sbuf err = SBUF_INIT;
			ftree_init(&a, NULL, 0);
			T_EQ_I64(folded_read_mem(&a, inputs[k], strlen(inputs[k]), "m", &fo, &sa, &err), 0);
			ftree_init(&b, NULL, 0);
			struct ftrie *tr = ftrie_new(&b);
			FILE *fp = fmemopen((void *)inputs[k], strlen(inputs[k]), "r");
			T_EQ_I64(ftrie_read(tr, fp, "m", &fo, &sb, &err), 0);
			fclose(fp);
			T_EQ_I64(ftrie_total(tr), a.total[0]);
			T_EQ_I64(ftrie_scale(tr), a.scale);
			ftrie_build(tr, 0);
			ftrie_free(tr);
			T_EQ_I64(sb.stacks, sa.stacks);
			T_EQ_I64(sb.invalid, sa.invalid);
			T_EQ_I64(sb.comments, sa.comments);
			char *fa = folded_of(&a), *fb = folded_of(&b);
			T_EQ_STR(fb, fa);
			T_EQ_I64(b.n, a.n);
			free(fa);
			free(fb);
			ftree_release(&a);
			ftree_release(&b);
			sbuf_release(&err);
		}
	}
	/* two counts: not handled, the caller falls back */
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct ftrie *tr = ftrie_new(&t);
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT;
	const char *d = "# x\na;b 1 2\n";
	FILE *fp = fmemopen((void *)d, strlen(d), "r");
	T_EQ_I64(ftrie_read(tr, fp, "m", NULL, &st, &err), FTRIE_UNSUPPORTED);
	fclose(fp);
	ftrie_free(tr);
	ftree_release(&t);
	sbuf_release(&err);
}

int main(void)
{
	T_RUN(test_svg__geometry);
	T_RUN(test_svg__icicle_and_subtitle_do_not_overlap);
	T_RUN(test_svg__minwidth_aggregate);
	T_RUN(test_svg__escaping);
	T_RUN(test_svg__fonttype_cannot_inject_css);
	T_RUN(test_svg__palmap_plain_colours_only);
	T_RUN(test_svg__deterministic);
	T_RUN(test_svg__diff_colors);
	T_RUN(test_svg__exact_weights_and_factor);
	T_RUN(test_svg__palettes_match_flamegraph_pl);
	T_RUN(test_svg__gpu_classes);
	T_RUN(test_svg__hooks);
	T_RUN(test_svg__empty_is_an_error);
	T_RUN(test_svg__flamechart_keeps_order);
	T_RUN(test_svg__tree_wide_parent);
	T_RUN(test_svg__top_table);
	T_RUN(test_svg__pruned_trie_same_tree);
	return t_done();
}
