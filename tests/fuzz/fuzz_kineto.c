/*
 * fuzz_kineto.c — libFuzzer target for the streaming trace reader
 * (src/trace/read/kineto*.c, jscan.c, jfast.c; src/input/source.c).
 *
 * Input: byte 0 chooses the size of the first read (1..256, 0 = whole), byte 1
 * the size of later reads (1..256, 0 = whole) and, for the whole-text reads,
 * the two-core chunk size (16 + byte 1); the rest is the trace text (plain, or
 * gzip/zstd by magic bytes). The reader must never crash, leak or hang,
 * whatever the text and wherever it is cut. Four reads of the same text —
 * whole, split, whole as a mapped file is read on one core, and the same on
 * two cores with tiny chunks (kineto_read_mem_whole) — must give the same
 * status; on success the same records (a digest of every field and string);
 * the two whole-text reads also the same error message and the same records
 * before it. The token limit is lowered to 1 KiB (units to 2 KiB), so the
 * limit errors (GF_EINTERNAL) are reached by small inputs and must come out
 * the same however the text is cut; ts/dur flags and the counts of
 * unusable values are part of the digest.
 * Seeds: tests/fuzz/corpus/kineto/ (two control bytes + a small trace).
 */
#include "base/limits.h"
#include "base/pool.h"
#include "base/sbuf.h"
#include "trace/read/kineto.h"

#include <stdlib.h>
#include <string.h>

struct digest {
	struct pool *names;
	uint64_t n, h;
};

static void mix(struct digest *d, uint64_t v)
{
	d->h = (d->h ^ v) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL;
}

static void mix_str(struct digest *d, uint32_t id)
{
	if (id == UINT32_MAX) {
		mix(d, 0xffff);
		return;
	}
	const char *s = pool_str(d->names, id);
	uint32_t n = pool_len(d->names, id);
	mix(d, n);
	for (uint32_t i = 0; i < n; i++)
		mix(d, (unsigned char)s[i]);
}

static int digest_cb(void *ctx, const struct kev *e)
{
	struct digest *d = ctx;
	d->n++;
	mix(d, (uint64_t)e->ts);
	mix(d, (uint64_t)e->dur);
	mix(d, (uint64_t)e->flags << 16 | (uint64_t)e->ph << 8 | e->kc);
	mix(d, e->track);
	mix(d, (uint64_t)e->id);
	mix(d, (uint64_t)e->correlation);
	mix(d, (uint64_t)e->external_id);
	mix(d, (uint64_t)e->python_id);
	mix(d, (uint64_t)e->python_parent_id);
	mix(d, (uint64_t)e->python_thread);
	mix(d, (uint64_t)e->stream);
	mix(d, (uint64_t)e->device);
	mix(d, (uint64_t)e->bytes);
	mix_str(d, e->name);
	mix_str(d, e->cat);
	mix_str(d, e->arg_name);
	return 0;
}

/* mode 0: split reads; 1: whole, one core; 2: whole, two cores */
static int run(const uint8_t *d, size_t n, int mode, size_t first, size_t chunk, struct digest *dg, struct sbuf *err)
{
	struct pool *names = pool_new();
	struct kineto_trace kt;
	kineto_init(&kt, names);
	dg->names = names;
	dg->n = dg->h = 0;
	sbuf_reset(err);
	int rc;
	if (mode == 0) {
		rc = kineto_read_mem_split(&kt, d, n, "fuzz.json", first, chunk, digest_cb, dg, err);
	} else {
		struct kineto_opts o = { 0 };
		o.threads = mode == 1 ? 1 : 2;
		o.par_chunk = 16 + chunk;
		rc = kineto_read_mem_whole(&kt, d, n, "fuzz.json", digest_cb, dg, &o, err);
	}
	if (rc && (!err->len || memchr(err->buf, '\n', err->len)))
		abort(); /* errors are exactly one line */
	if (!rc) { /* tracks and stats are part of the result */
		mix(dg, kt.ntracks);
		mix(dg, kt.stats.events);
		mix(dg, kt.stats.truncated);
		mix(dg, kt.stats.truncated_at);
		mix(dg, kt.stats.skipped);
		mix(dg, kt.stats.dur_negative);
		mix(dg, kt.stats.dur_null << 40 ^ kt.stats.dur_invalid << 20 ^ kt.stats.dur_overflow);
		mix(dg, kt.stats.ts_null << 40 ^ kt.stats.ts_invalid << 20 ^ kt.stats.ts_overflow);
		mix(dg, (uint64_t)kt.meta.base_time_ns);
		mix(dg, kt.meta.ndevices);
		for (uint32_t i = 0; i < kt.ntracks; i++) {
			mix(dg, (uint64_t)kt.tracks[i].pid);
			mix(dg, (uint64_t)kt.tracks[i].tid);
			mix_str(dg, kt.tracks[i].thread_name);
		}
	}
	kineto_release(&kt);
	pool_free(names);
	dg->names = NULL;
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	gf_limits.token = 1024;
	size_t first = data[0], chunk = data[1];
	struct digest d1, d2, d3, d4;
	struct sbuf e1 = SBUF_INIT, e2 = SBUF_INIT, e3 = SBUF_INIT, e4 = SBUF_INIT;
	int r1 = run(data + 2, size - 2, 0, first, chunk, &d1, &e1);
	int r2 = run(data + 2, size - 2, 0, 0, 0, &d2, &e2);
	int r3 = run(data + 2, size - 2, 1, 0, chunk, &d3, &e3);
	int r4 = run(data + 2, size - 2, 2, 0, chunk, &d4, &e4);
	/* the split must not change the result (before an error, a split read
	 * may have delivered more events than a whole one: not compared) */
	if (r1 != r2 || (r1 == 0 && (d1.n != d2.n || d1.h != d2.h)))
		abort();
	if (r3 != r2 || (r3 == 0 && (d3.n != d2.n || d3.h != d2.h)))
		abort();
	/* two cores: exactly the one-core whole read, errors included */
	if (r4 != r3 || d4.n != d3.n || d4.h != d3.h || strcmp(e3.buf ? e3.buf : "", e4.buf ? e4.buf : ""))
		abort();
	sbuf_release(&e1);
	sbuf_release(&e2);
	sbuf_release(&e3);
	sbuf_release(&e4);
	return 0;
}
