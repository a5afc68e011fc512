/*
 * fuzz_push.c — libFuzzer target: what `gpuflame push` parses and builds.
 *
 * First byte even: the rest is an HTTP reply from the server, through
 * http_parse_reply (status line, headers, chunked bodies): no crash, no read
 * past the input, a body no longer than the input. First byte odd: the rest
 * is folded text read into a tree, then push_body with max_stacks from the
 * second byte: every line under Pyroscope's 64 KiB limit, at most
 * max_stacks lines, integer values that sum to the tree's total exactly.
 */
#include "stacks/folded.h"
#include "store/http.h"
#include "store/push.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_body(const struct sbuf *b, const struct push_opts *o, int64_t total)
{
	size_t lines = 0;
	int64_t sum = 0;
	const char *p = b->buf ? b->buf : "", *end = p + b->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			abort();
		if (nl - p >= PUSH_LINE_MAX)
			abort();
		const char *sp = nl;
		while (sp > p && sp[-1] != ' ')
			sp--;
		if (sp == p || sp == nl)
			abort();
		int64_t v = 0;
		for (const char *q = sp; q < nl; q++) {
			if (*q < '0' || *q > '9')
				abort();
			v = v * 10 + (*q - '0');
		}
		sum += v;
		lines++;
		p = nl + 1;
	}
	if (lines > o->max_stacks || sum != total)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	if (!(data[0] & 1)) {
		struct http_reply r;
		sbuf_init(&r.body, 0);
		if (!http_parse_reply((const char *)data + 1, size - 1, &r) && r.body.len > size)
			abort();
		http_reply_release(&r);
		return 0;
	}
	struct ftree t;
	ftree_init(&t, NULL, 0);
	struct folded_opts fo = { .strict = false, .reverse = false };
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT, body = SBUF_INIT;
	if (!folded_read_mem(&t, (const char *)data + 2, size - 2, "fuzz", &fo, &st, &err) && t.ncols == 1) {
		struct push_opts o;
		push_opts_init(&o);
		o.max_stacks = 2 + data[1] % 64;
		struct push_stats ps;
		memset(&ps, 0, sizeof ps);
		bool neg = false;
		for (uint32_t i = 1; i < t.n; i++)
			neg |= ftree_self(&t, i, 0) < 0;
		if (!push_body(&t, &o, &body, &ps, &err) && !neg)
			check_body(&body, &o, t.total[0]);
	}
	sbuf_release(&body);
	sbuf_release(&err);
	ftree_release(&t);
	return 0;
}
