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
	T_EQ_STR(out.buf, "{\"total\":100012,\"keep_min\":9,\"pruned\":12,\"pruned_frames\":4,\"frames\":5,\"scale\":0,"
		 "\"names\":[\"\",\"main\",\"big\",\"[2 frames < minwidth]\",\"[1 frame < minwidth]\"],"
		 "\"p\":[-1,0,1,1,0],\"n\":[0,1,2,3,4],\"v\":[100012,100007,100000,7,5]}");
	T_EQ_I64(st.pruned, 12);
	T_EQ_I64(st.frames, 5);
	sbuf_release(&out);
	ftree_release(&t);
}

int main(void)
{
	T_RUN(test_page__sha256);
	T_RUN(test_page__script_json);
	T_RUN(test_page__csp_hashes);
	T_RUN(test_page__flamejson_prune);
	return t_done();
}
