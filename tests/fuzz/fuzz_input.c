/*
 * fuzz_input.c — libFuzzer target: the one input layer over memory
 * (input/input.h): the opener and the sniffer.
 *
 * The input is a file's bytes (plain, gzip or zstd: the seeds hold all
 * three). Checks: no crash or sanitizer report; input_read in any read size
 * hands out exactly the bytes source_read does (the peek window is served
 * again, nothing is lost or doubled), with the same return code;
 * input_format equals input_sniff of the first INPUT_PEEK decompressed
 * bytes; the source handed over by input_take_source reads the same bytes
 * from byte 0; input_sniff of every prefix of the raw bytes returns a known format
 * and reads nothing past its length (ASan); the hints are one line (no
 * newline unless the name holds one) whatever the format.
 */
#include "input/input.h"
#include "input/source.h"

#include <stdlib.h>
#include <string.h>

static int read_source(const unsigned char *d, size_t n, struct sbuf *out)
{
	struct source *s;
	struct sbuf err = SBUF_INIT;
	int rc = source_open_mem(&s, d, n, "fuzz", 1, &err);
	if (!rc) {
		char buf[4096];
		for (;;) {
			size_t got;
			if ((rc = source_read(s, buf, sizeof buf, &got, &err)) || !got)
				break;
			sbuf_add(out, buf, got);
		}
		source_close(s);
	}
	sbuf_release(&err);
	return rc;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	for (size_t i = 0; i <= size && i <= 64; i++) {
		int f = input_sniff(data, i);
		if (f < INPUT_FOLDED || f >= INPUT_NFORMATS)
			abort();
	}
	struct sbuf want = SBUF_INIT, got = SBUF_INIT, err = SBUF_INIT;
	int rc_want = read_source(data, size, &want);
	struct input *in;
	int rc = input_open_mem(&in, data, size, "fuzz", &err);
	if (!rc) {
		size_t step = size ? 1 + data[0] % 5000 : 1;
		char *buf = malloc(step);
		for (;;) {
			size_t n;
			if ((rc = input_read(in, buf, step, &n, &err)) || !n)
				break;
			sbuf_add(&got, buf, n);
		}
		free(buf);
		size_t np;
		const char *p = input_peek(in, &np);
		if (np > INPUT_PEEK || np > got.len || memcmp(p, got.buf, np))
			abort();
		if (input_format(in) != input_sniff(p, np))
			abort();
		struct sbuf h = SBUF_INIT;
		input_hint(&h, in, INPUT_FOLDED, "svg");
		input_hint(&h, in, INPUT_TRACE, NULL);
		if (memchr(h.buf, '\n', h.len))
			abort();
		sbuf_release(&h);
		input_close(in);
	}
	/* the same bytes and the same outcome as the source alone */
	if (rc != rc_want)
		abort();
	if (!rc && (got.len != want.len || memcmp(got.buf, want.buf, got.len)))
		abort();
	/* and the source handed over (input_take_source) starts at byte 0 */
	if (!rc && !input_open_mem(&in, data, size, "fuzz", &err)) {
		struct source *s = input_take_source(in);
		struct sbuf again = SBUF_INIT;
		char buf[1000];
		size_t n;
		while (!source_read(s, buf, sizeof buf, &n, &err) && n)
			sbuf_add(&again, buf, n);
		if (again.len != want.len || memcmp(again.buf, want.buf, again.len))
			abort();
		sbuf_release(&again);
		source_close(s);
		input_close(in);
	}
	sbuf_release(&want);
	sbuf_release(&got);
	sbuf_release(&err);
	return 0;
}
