/*
 * fuzz_push.c — libFuzzer target: what `gpuflame push` parses and builds.
 *
 * First byte even: the rest is an HTTP reply from the server, through the
 * incremental parser (status line, headers, chunked bodies, trailers), fed
 * whole and fed in two pieces split where the second byte says: no crash,
 * no read past the input, the same verdict, status and body both ways, a
 * status of three digits and a body no longer than the input. First byte odd: the rest
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
		const char *p = (const char *)data + 2;
		size_t n = size - 2, cut = n ? data[1] % (n + 1) : 0, used;
		struct http_reply r, r2;
		struct sbuf err = SBUF_INIT;
		sbuf_init(&r.body, 0);
		sbuf_init(&r2.body, 0);
		int rc = http_parse_reply(p, n, &r, &err);
		if (!rc && (r.body.len > n || r.status < 100 || r.status > 999))
			abort();
		struct http_rx x;
		http_rx_init(&x, &r2, 0);
		int k = http_rx_feed(&x, p, cut, &used, &err);
		if (k == HTTP_RX_MORE)
			k = http_rx_feed(&x, p + cut, n - cut, &used, &err);
		if (k == HTTP_RX_MORE)
			k = http_rx_eof(&x, &err);
		if ((k == HTTP_RX_DONE) != !rc)
			abort();
		if (!rc && (r.status != r2.status || r.body.len != r2.body.len ||
			    (r.body.len && memcmp(r.body.buf, r2.body.buf, r.body.len))))
			abort();
		http_rx_release(&x);
		http_reply_release(&r);
		http_reply_release(&r2);
		sbuf_release(&err);
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
