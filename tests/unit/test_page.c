/* test_page.c — the HTML page's pieces: SHA-256 (the CSP hashes), the JSON
 * made safe for a <script> element, the pruned tree JSON (flamejson). */
#include "t.h"

#include "base/escape.h"
#include "base/sha256.h"
#include "stacks/ftree.h"
#include "stacks/render/flamejson.h"
#include "stacks/render/page_assets.h"
#include "stacks/render/page_html.h"

/* FIPS 180-4 examples ("", "abc", the 448-bit message) and block-boundary
 * lengths, digests by Python's hashlib, in base64. */
T_TEST(test_page__sha256)
{
	static const struct { const char *s; size_t n; char c; const char *b64; } v[] = {
		{ "", 0, 0, "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" },
		{ "abc", 3, 0, "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, 0,
		  "JI1qYdIGOLjlwCaTDD5gOaM85Flk/yFn9uzt1BnbBsE=" },
		{ NULL, 1000, 'a', "Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM=" },
		{ NULL, 55, 'x', "1eKFaDzU78AtAhpcYgFGlJWJAQBdb3HongmJ+sd+QHI=" },
		{ NULL, 56, 'y', "SHflZOXjbjZ8fI1ZZwd0vs0zUGELbfTDmcn6m2baWBM=" },
		{ NULL, 64, 'z', "cpllYwScyE2qLD8x/Vw9EHcOadbru42lttdtswPbrkM=" },
	};
	char buf[1000], out[SHA256_B64_LEN + 1];
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		const char *s = v[i].s;
		if (!s) {
			memset(buf, v[i].c, v[i].n);
			s = buf;
		}
		sha256_b64(s, v[i].n, out);
		T_EQ_STR(out, v[i].b64);
	}
}

T_TEST(test_page__script_json)
{
	struct sbuf b = SBUF_INIT;
	const char in[] = "{\"a\":\"</script><!--&>\",\"b\":\"\xe2\x80\xa8|\xe2\x80\xa9|\xff|\xc3\xa9\"}";
	esc_script_json(&b, in, sizeof in - 1);
	T_EQ_STR(b.buf, "{\"a\":\"\\u003c/script\\u003e\\u003c!--\\u0026\\u003e\",\"b\":\"\\u2028|\\u2029|\\ufffd|\xc3\xa9\"}");
	T_TRUE(!strchr(b.buf, '<'));
	sbuf_release(&b);
}

/* The page: CSP names the hashes of exactly the inline script and style. */
T_TEST(test_page__csp_hashes)
{
	struct sbuf json = SBUF_INIT, out = SBUF_INIT;
	sbuf_addstr(&json, "{\"title\":\"</script><script>alert(1)</script>\"}");
	page_html_write(&out, "t<b>", &json);
	char js[SHA256_B64_LEN + 1], css[SHA256_B64_LEN + 1], want[200];
	sha256_b64(page_assets_js, strlen(page_assets_js), js);
	sha256_b64(page_assets_css, strlen(page_assets_css), css);
	snprintf(want, sizeof want, "script-src 'sha256-%s'; style-src 'sha256-%s';", js, css);
	T_TRUE(strstr(out.buf, want) != NULL);
	T_TRUE(strstr(out.buf, "<title>t&lt;b&gt;</title>") != NULL);
	T_TRUE(strstr(out.buf, "alert(1)") && !strstr(out.buf, "<script>alert"));
	/* exactly two script elements and one style */
	size_t ns = 0;
	for (const char *p = out.buf; (p = strstr(p, "<script")); p++)
		ns++;
	T_EQ_I64(ns, 2);
	sbuf_release(&json);
	sbuf_release(&out);
}

static void add(struct ftree *t, const char *a, const char *b, const char *c, int64_t w)
{
	uint32_t f[3];
	size_t n = 0;
	for (const char *s = a; s && n < 3; s = n == 1 ? b : c)
		f[n++] = pool_intern_str(t->names, s);
	struct sbuf err = SBUF_INIT;
	ftree_add(t, f, n, &w, &err);
	sbuf_release(&err);
}

/* keep_min = ceil(total / 11800); light children of a kept frame become one
 * "[N frames < minwidth]" frame with their weight; pruned share counted. */
T_TEST(test_page__flamejson_prune)
{
	T_EQ_I64(flamejson_keep_min(0), 1);
	T_EQ_I64(flamejson_keep_min(11800), 1);
	T_EQ_I64(flamejson_keep_min(11801), 2);
	struct ftree t;
	ftree_init(&t, NULL, 0);
	add(&t, "main", "big", NULL, 100000);
	add(&t, "main", "tiny1", "deep", 3);
	add(&t, "main", "tiny2", NULL, 4);
	add(&t, "other", NULL, NULL, 5);
	ftree_sort(&t);
	struct flamejson_opts o = { 0 };
	o.keep_min = flamejson_keep_min(t.total[0]); /* 100012 / 11800 -> 9 */
	T_EQ_I64(o.keep_min, 9);
	struct sbuf out = SBUF_INIT;
	struct flamejson_stats st;
	flamejson_write(&t, &o, &out, &st);
	/* root, main, big, [2 frames] under main, [1 frame] for other at the root */
	T_EQ_STR(out.buf, "{\"total\":100012,\"keep_min\":9,\"pruned\":12,\"pruned_frames\":4,\"frames\":5,\"collapsed\":0,"
		 "\"max_depth\":512,\"scale\":0,"
		 "\"names\":[\"\",\"main\",\"big\",\"[2 frames < minwidth]\",\"[1 frame < minwidth]\"],"
		 "\"p\":[-1,0,1,1,0],\"n\":[0,1,2,3,4],\"v\":[100012,100007,100000,7,5]}");
	T_EQ_I64(st.pruned, 12);
	T_EQ_I64(st.frames, 5);
	sbuf_release(&out);
	ftree_release(&t);
}

/* A chain of N single-callee frames (each with self weight 1) under main. */
static void chain(struct ftree *t, uint32_t n, const char *leaf_sib)
{
	uint32_t *f = gf_xmalloc((n + 2) * sizeof *f);
	char name[32];
	f[0] = pool_intern_str(t->names, "main");
	struct sbuf err = SBUF_INIT;
	for (uint32_t i = 1; i <= n; i++) {
		snprintf(name, sizeof name, "f%u", i);
		f[i] = pool_intern_str(t->names, name);
		int64_t w = 1;
		ftree_add(t, f, i + 1, &w, &err);
	}
	if (leaf_sib) {
		f[1] = pool_intern_str(t->names, leaf_sib);
		int64_t w = 1;
		ftree_add(t, f, 2, &w, &err);
	}
	sbuf_release(&err);
	free(f);
}

/* The written tree's parents, totals and names, checked: every total is at
 * least its children's, the depth is bounded, and self weights sum to the root. */
static int64_t tree_check(const char *json, int *maxd, uint64_t *frames)
{
	const char *p = strstr(json, "\"p\":[") + 5, *v = strstr(json, "\"v\":[") + 5;
	size_t n = 0;
	for (const char *q = p; *q != ']'; q++)
		n += *q == ',';
	n++;
	int64_t *par = gf_xcalloc(n, sizeof *par), *val = gf_xcalloc(n, sizeof *val), *kid = gf_xcalloc(n, sizeof *kid);
	int *d = gf_xcalloc(n, sizeof *d);
	char *e;
	for (size_t i = 0; i < n; i++) {
		par[i] = strtoll(p, &e, 10);
		p = e + 1;
		val[i] = strtoll(v, &e, 10);
		v = e + 1;
	}
	*maxd = 0;
	int64_t selfsum = 0;
	for (size_t i = 1; i < n; i++) {
		d[i] = d[par[i]] + 1;
		*maxd = d[i] > *maxd ? d[i] : *maxd;
		kid[par[i]] += val[i];
	}
	for (size_t i = 0; i < n; i++) {
		if (val[i] < kid[i])
			selfsum = -1000000;
		selfsum += val[i] - kid[i];
	}
	*frames = n;
	int64_t ok = selfsum == val[0] ? val[0] : -1;
	free(par);
	free(val);
	free(kid);
	free(d);
	return ok;
}

/* t written into out (reset) with keep_min 1 and checked (tree_check): its root. */
static int64_t write_checked(const struct ftree *t, struct sbuf *out, struct flamejson_stats *st, int *maxd,
			     uint64_t *frames)
{
	struct flamejson_opts o = { 0 };
	o.keep_min = 1;
	sbuf_reset(out);
	flamejson_write(t, &o, out, st);
	return tree_check(out->buf, maxd, frames);
}

/* A 40,000-deep single-callee chain (all -> main -> f1 .. f40000) is
 * written as its top and 16 frames, one "[39968 frames of a single-callee
 * chain]" frame and its last 17: 35 frames, exact totals; a chain of 64 is
 * written whole. */
T_TEST(test_page__flamejson_chain)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	chain(&t, 40000, NULL);
	ftree_sort(&t);
	struct sbuf out = SBUF_INIT;
	struct flamejson_stats st;
	int maxd;
	uint64_t frames;
	T_EQ_I64(write_checked(&t, &out, &st, &maxd, &frames), 40000);
	T_EQ_I64(st.collapsed, 40001 - 2 * FLAMEJSON_CHAIN_KEEP - 1);
	T_EQ_I64(frames, 2 * FLAMEJSON_CHAIN_KEEP + 3);
	T_EQ_I64(maxd, 2 * FLAMEJSON_CHAIN_KEEP + 2);
	T_TRUE(strstr(out.buf, "\"[39968 frames of a single-callee chain]\"") != NULL);
	T_TRUE(strstr(out.buf, "\"f1\"") && strstr(out.buf, "\"f40000\"") && !strstr(out.buf, "\"f20000\""));
	ftree_release(&t);
	ftree_init(&t, NULL, 0);
	chain(&t, FLAMEJSON_CHAIN_MAX - 1, NULL); /* main + 63: a chain of 64 */
	ftree_sort(&t);
	T_EQ_I64(write_checked(&t, &out, &st, &maxd, &frames), FLAMEJSON_CHAIN_MAX - 1);
	T_EQ_I64(st.collapsed, 0);
	T_EQ_I64(maxd, FLAMEJSON_CHAIN_MAX);
	ftree_release(&t);
	sbuf_release(&out);
}

/* A deep branch that is no chain (a sibling at its top) is cut at
 * FLAMEJSON_MAX_DEPTH: its rest is one "[N frames deeper than 512 levels]"
 * frame, counted as pruned, totals exact. */
T_TEST(test_page__flamejson_depth)
{
	struct ftree t;
	ftree_init(&t, NULL, 0);
	/* every level has a second child (g<i>) heavy enough to be drawn */
	uint32_t f[700];
	char name[32];
	struct sbuf err = SBUF_INIT;
	for (uint32_t i = 0; i < 700; i++) {
		snprintf(name, sizeof name, "f%u", i);
		f[i] = pool_intern_str(t.names, name);
		int64_t w = 1000;
		ftree_add(&t, f, i + 1, &w, &err);
		snprintf(name, sizeof name, "g%u", i);
		uint32_t keep = f[i];
		f[i] = pool_intern_str(t.names, name);
		ftree_add(&t, f, i + 1, &w, &err);
		f[i] = keep;
	}
	ftree_sort(&t);
	struct sbuf out = SBUF_INIT;
	struct flamejson_stats st;
	int maxd;
	uint64_t frames;
	T_EQ_I64(write_checked(&t, &out, &st, &maxd, &frames), 1400000);
	T_EQ_I64(maxd, FLAMEJSON_MAX_DEPTH + 1);
	T_TRUE(strstr(out.buf, "frames deeper than 512 levels]") != NULL);
	T_TRUE(st.pruned > 0 && st.pruned_frames > 0);
	sbuf_release(&err);
	sbuf_release(&out);
	ftree_release(&t);
}

/* Strings over PAGE_NAME_CAP are elided around their length, cut at
 * character boundaries (never inside an escape or a UTF-8 sequence); two
 * different names stay distinct; the full ones follow in "full_names"
 * while the budget lasts; short strings and the rest are untouched. */
T_TEST(test_page__name_cap)
{
	struct sbuf json = SBUF_INIT, out = SBUF_INIT;
	size_t big = 3000;
	sbuf_addstr(&json, "{\"a\":\"short\",\"b\":[\"");
	for (size_t i = 0; i < big; i++)
		sbuf_addstr(&json, i % 7 == 3 ? "\\u00e9" : i % 5 == 1 ? "\xc3\xa9" : "x");
	sbuf_addstr(&json, "\",\"");
	for (size_t i = 0; i < big; i++)
		sbuf_addstr(&json, i % 7 == 3 ? "\\u00e9" : i % 5 == 1 ? "\xc3\xa9" : "x");
	sbuf_addstr(&json, "\",\"");
	for (size_t i = 0; i < big; i++)
		sbuf_addstr(&json, i == 1500 ? "Y" : i % 7 == 3 ? "\\u00e9" : i % 5 == 1 ? "\xc3\xa9" : "x");
	sbuf_addstr(&json, "\"]}");
	page_html_cap(json.buf, json.len, &out);
	const char *fn = strstr(out.buf, ",\n\"full_names\":[[\"");
	T_TRUE(fn != NULL && fn - out.buf < 3 * 1000);
	T_TRUE(strstr(out.buf, "{\"a\":\"short\",\"b\":[\"") == out.buf);
	const char *e1 = strstr(out.buf, " bytes, middle elided) \\u2026 ");
	T_TRUE(e1 != NULL);
	T_TRUE(strstr(out.buf, "middle elided) #2 \\u2026") != NULL); /* the third differs in its middle only */
	/* every escape whole, every UTF-8 sequence whole */
	for (const char *q = out.buf; (q = strstr(q, "\\u")); q += 2)
		T_TRUE(strspn(q + 2, "0123456789abcdefABCDEF") >= 4);
	for (size_t i = 0; i + 1 < out.len; i++)
		if ((unsigned char)out.buf[i] == 0xc3)
			T_TRUE((unsigned char)out.buf[i + 1] == 0xa9);
	T_TRUE(out.buf[out.len - 1] == '}');
	sbuf_release(&json);
	sbuf_release(&out);
	/* a name over the budget of full names is elided and not kept whole */
	sbuf_addstr(&json, "{\"n\":\"");
	for (size_t i = 0; i < PAGE_FULL_BUDGET + 10; i++)
		sbuf_addch(&json, 'a' + i % 26);
	sbuf_addstr(&json, "\"}");
	page_html_cap(json.buf, json.len, &out);
	T_TRUE(out.len < 1000);
	T_TRUE(!strstr(out.buf, "full_names"));
	char want[64];
	snprintf(want, sizeof want, "(%u bytes, middle elided)", PAGE_FULL_BUDGET + 10);
	T_TRUE(strstr(out.buf, want) != NULL);
	sbuf_release(&json);
	sbuf_release(&out);
}

int main(void)
{
	T_RUN(test_page__sha256);
	T_RUN(test_page__script_json);
	T_RUN(test_page__csp_hashes);
	T_RUN(test_page__flamejson_prune);
	T_RUN(test_page__flamejson_chain);
	T_RUN(test_page__flamejson_depth);
	T_RUN(test_page__name_cap);
	return t_done();
}
