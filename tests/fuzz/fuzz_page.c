/*
 * fuzz_page.c — libFuzzer target: folded text -> call tree -> the HTML page's
 * tree JSON (flamejson, pruned) -> the page (page_html: data block through
 * esc_script_json).
 *
 * The first input byte picks keep_min (1, the default rule, or a large
 * one), the rest is folded text (any bytes: names are untrusted). Checks:
 * no crash or sanitizer report; the page is valid UTF-8 with no raw
 * U+2028/U+2029; the data block holds no '<' (so no name can end it), and
 * the page has exactly two <script> elements; the written root total is the
 * tree's, and pruned weight never exceeds it. The input is also handed to
 * page_html_cap as it is (any bytes, not JSON): no crash, and the result is
 * bounded (elided strings are shorter than they were; the full ones kept
 * add at most the input again).
 * Seeds: tests/fuzz/corpus/page/ (hostile names, pruning, a 3000-byte name).
 */
#include "base/escape.h"
#include "stacks/folded.h"
#include "stacks/render/flamejson.h"
#include "stacks/render/page_html.h"

#include <stdlib.h>
#include <string.h>

static void check_page(const struct sbuf *p)
{
	const unsigned char *s = (const unsigned char *)p->buf;
	for (size_t i = 0; i < p->len;) {
		long cp;
		int k = esc_utf8_next(s + i, p->len - i, &cp);
		if (cp < 0 || cp == 0x2028 || cp == 0x2029)
			abort();
		i += (size_t)k;
	}
	const char *open = "<script type=\"application/json\" id=\"gf-data\">";
	const char *a = strstr(p->buf, open);
	if (!a)
		abort();
	a += strlen(open);
	const char *b = strstr(a, "</script>");
	if (!b || memchr(a, '<', (size_t)(b - a)))
		abort();
	size_t n = 0;
	for (const char *q = p->buf; (q = strstr(q, "<script")); q++)
		n++;
	if (n != 2)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size < 1)
		return 0;
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_opts fo = { .strict = false, .reverse = false };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT, json = SBUF_INIT, page = SBUF_INIT, capped = SBUF_INIT;
	page_html_cap((const char *)data + 1, size - 1, &capped);
	if (capped.len > 2 * size + 64)
		abort();
	sbuf_release(&capped);
	if (folded_read_mem(&t, (const char *)data + 1, size - 1, "fuzz", &fo, &st, &err) == GF_OK && t.ncols == 1) {
		ftree_sort(&t);
		struct flamejson_opts o = { 0 };
		o.keep_min = data[0] % 3 == 0 ? 1 : data[0] % 3 == 1 ? flamejson_keep_min(t.total[0]) : 1 + t.total[0] / 3;
		struct flamejson_stats fs;
		flamejson_write(&t, &o, &json, &fs);
		char want[64];
		snprintf(want, sizeof want, "{\"total\":%lld,", (long long)t.total[0]);
		if (strncmp(json.buf, want, strlen(want)) || fs.pruned < 0 || fs.pruned > t.total[0])
			abort();
		page_html_write(&page, "fuzz </title><script>", &json);
		check_page(&page);
	}
	ftree_release(&t);
	sbuf_release(&err);
	sbuf_release(&json);
	sbuf_release(&page);
	return 0;
}
