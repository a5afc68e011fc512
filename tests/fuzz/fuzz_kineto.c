/*
 * fuzz_kineto.c — libFuzzer target for the streaming trace reader
 * (kineto.c + jscan.c + source.c through kineto_read_mem_split).
 *
 * Input: byte 0 chooses the size of the first read (1..256, 0 = whole), byte 1
 * the size of later reads (1..256, 0 = whole); the rest is the trace text
 * (plain, or gzip/zstd by magic bytes). The reader must never crash, leak or
 * hang, whatever the text and wherever it is cut; the same text read whole
 * and split must give the same status, and on success the same event count.
 * Seeds: tests/fuzz/corpus/kineto/ (two control bytes + a small trace).
 */
#include "base/pool.h"
#include "base/sbuf.h"
#include "read/kineto.h"

#include <stdlib.h>
#include <string.h>

static int count_cb(void *ctx, const struct kev *e)
{
	(void)e;
	(*(uint64_t *)ctx)++;
	return 0;
}

static int run(const uint8_t *d, size_t n, size_t first, size_t chunk, uint64_t *events)
{
	struct pool *names = pool_new();
	struct kineto_trace kt;
	kineto_init(&kt, names);
	struct sbuf err = SBUF_INIT;
	*events = 0;
	int rc = kineto_read_mem_split(&kt, d, n, "fuzz.json", first, chunk, count_cb, events, &err);
	if (rc && (!err.len || memchr(err.buf, '\n', err.len)))
		abort(); /* errors are exactly one line */
	kineto_release(&kt);
	pool_free(names);
	sbuf_release(&err);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t first = data[0], chunk = data[1];
	uint64_t e1, e2;
	int r1 = run(data + 2, size - 2, first, chunk, &e1);
	int r2 = run(data + 2, size - 2, 0, 0, &e2);
	/* the split must not change the result (before an error, a split read
	 * may have delivered more events than a whole one: not compared) */
	if (r1 != r2 || (r1 == 0 && e1 != e2))
		abort();
	return 0;
}
