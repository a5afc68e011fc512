/*
 * kineto.c — streaming reader of Kineto / Chrome-trace JSON: the API of
 * kineto.h and the driving of the text through the parts (listed in
 * kineto_int.h).
 *
 * The text arrives in chunks from a byte source (source.h) into one buffer
 * that keeps only the unfinished tail; kineto_bounds.c parses the units it
 * holds, and a unit that runs into the end of the buffer is retried from
 * its start once more text has arrived (at least twice as much when it is
 * bigger than a chunk, so a huge unit costs O(n) in total). Plain regular
 * files of MAP_MIN bytes and more are instead mapped whole (source_map) and
 * parsed in place as one unit stream, releasing the pages behind the parser
 * as it goes (kineto_map_step), on two cores when kineto_chunks.c can. This
 * file touches the buffer, the byte source and the mapping; it never looks
 * inside the text. See docs/trace-reader.md.
 *
 * Layer: read.
 */
#include "trace/read/kineto_int.h"

#include "base/mapguard.h"
#include "input/source.h"

#include <stdlib.h>
#include <string.h>

#define PROGRESS_EVERY (16u << 20)

#define MAP_STEP (8u << 20)   /* mapped file: release/populate/progress every 8 MB */
#define MAP_AHEAD (16u << 20) /* pages mapped ahead of the parser */
#define MAP_BEHIND (1u << 20) /* pages kept behind the parser */
#define MAP_MIN (64u << 10)   /* smaller files are read into the buffer */

void kineto_map_step(struct rd *r)
{
	source_map_done(r->src, r->pos > MAP_BEHIND ? r->pos - MAP_BEHIND : 0, MAP_AHEAD);
	r->next_mark = r->pos + MAP_STEP;
	if (r->opts && r->opts->progress && r->pos >= r->next_progress) {
		r->next_progress = r->pos + PROGRESS_EVERY;
		r->opts->progress(r->opts->progress_ctx, r->pos, r->len);
	}
}

/* The file shrank while mapped (SIGBUS, caught by mapguard). */
static int shrank(struct rd *r)
{
	sbuf_setf(r->err, "'%s': byte %llu: expected the file to stay as it was, got it cut short while being read "
		  "(is another process still writing it?)", r->fname, (unsigned long long)(r->base_off + r->pos));
	return GF_EINPUT;
}

/* Parses a whole mapped file (see source_map). */
static int run_mapped(struct rd *r, const char *data, size_t len)
{
	struct kineto_trace *kt = r->kt;
	r->mapped = true;
	r->par_ok = kineto_chunks_allowed(r->opts);
	r->buf = (char *)(uintptr_t)data; /* read only: compact() and the padding writes are never reached */
	r->len = r->cap = len;
	r->eof = true;
	kt->stats.bytes_in = len;
	kt->stats.bytes_file = len;
	source_map_done(r->src, 0, MAP_AHEAD);
	r->next_mark = MAP_STEP;
	sigjmp_buf jb;
	if (sigsetjmp(jb, 0))
		return shrank(r); /* read_src stops the worker and frees what the parse left */
	mapguard_arm(&jb);
	int u = kineto_bounds_units(r);
	mapguard_disarm();
	if (u == U_ERR)
		return r->err_rc;
	if (u == U_STOP)
		return r->stop_rc;
	if (r->opts && r->opts->progress)
		r->opts->progress(r->opts->progress_ctx, len, len);
	kineto_schema_finish(r);
	return kineto_bounds_eof(r);
}

/* Drops the consumed prefix. */
static void compact(struct rd *r)
{
	if (!r->pos)
		return;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->base_off += r->pos;
	r->pos = 0;
	memset(r->buf + r->len, 0, JSCAN_PAD);
}

static int run(struct rd *r, struct source *src)
{
	struct kineto_trace *kt = r->kt;
	const char *data;
	size_t dlen;
	r->src = src;
	r->next_mark = SIZE_MAX;
	if (r->whole)
		return run_mapped(r, r->whole, r->mem_len);
	if (!r->mem && source_map(src, JSCAN_PAD, MAP_MIN, &data, &dlen))
		return run_mapped(r, data, dlen);
	r->cap = r->mem ? GF_MAX(GF_MIN(r->mem_len, (size_t)4 * CHUNK), (size_t)4096) : 4 * CHUNK;
	r->buf = gf_xmalloc(r->cap + JSCAN_PAD);
	memset(r->buf, 0, JSCAN_PAD);
	for (;;) {
		if (r->len - r->pos >= r->need || r->eof) {
			int u = kineto_bounds_units(r);
			if (u == U_ERR)
				return r->err_rc;
			if (u == U_STOP)
				return r->stop_rc;
			if (r->eof) {
				kineto_schema_finish(r);
				return kineto_bounds_eof(r);
			}
			/* a unit bigger than a chunk: wait for twice as much text */
			size_t avail = r->len - r->pos;
			r->need = avail > CHUNK ? GF_MIN(2 * avail, r->unit_cap + 1) : 0;
		}
		compact(r);
		if (r->cap - r->len < r->cap / 4) {
			r->cap *= 2;
			r->buf = gf_xrealloc(r->buf, r->cap + JSCAN_PAD);
		}
		size_t n;
		int rc = source_read(src, r->buf + r->len, GF_MIN(r->cap - r->len, (size_t)4 * CHUNK), &n, r->err);
		if (rc)
			return rc;
		r->len += n;
		memset(r->buf + r->len, 0, JSCAN_PAD); /* the sentinel jscan needs */
		kt->stats.bytes_in += n;
		kt->stats.bytes_file = source_file_pos(src);
		if (!n)
			r->eof = true;
		if (r->opts && r->opts->progress && kt->stats.bytes_in >= r->next_progress) {
			r->next_progress = kt->stats.bytes_in + PROGRESS_EVERY;
			r->opts->progress(r->opts->progress_ctx, source_file_pos(src), source_file_size(src));
		}
	}
}

void kineto_init(struct kineto_trace *kt, struct pool *names)
{
	memset(kt, 0, sizeof *kt);
	kt->names = names;
	kt->meta.rank = kt->meta.world_size = KEV_NONE;
	kt->meta.schema_version = KEV_NONE;
	kt->meta.trace_name = UINT32_MAX;
	for (unsigned i = 0; i < 16; i++)
		kt->meta.device_name[i] = UINT32_MAX;
	kt->priv_ = kineto_tracks_new();
}

void kineto_release(struct kineto_trace *kt)
{
	kineto_tracks_free(kt->priv_);
	free(kt->tracks);
	free(kt->stats.cat_ids);
	free(kt->stats.cat_events);
	free(kt->meta.pgs);
	kt->meta.pgs = NULL;
	kt->meta.npgs = kt->meta.npgs_dropped = 0;
	kt->tracks = NULL;
	kt->stats.cat_ids = NULL;
	kt->stats.cat_events = NULL;
	kt->priv_ = NULL;
	kt->ntracks = kt->cap_tracks = 0;
}

static int read_src(struct kineto_trace *kt, struct source *src, const char *fname, const char *path,
		    const void *mem, size_t mem_len, const char *whole, kineto_event_fn fn, void *ctx,
		    const struct kineto_opts *opts, struct sbuf *err)
{
	struct rd r;
	memset(&r, 0, sizeof r);
	r.whole = whole;
	r.path = path;
	r.mem = mem;
	r.mem_len = mem_len;
	r.kt = kt;
	r.pv = kt->priv_;
	r.fname = fname;
	r.fn = fn;
	r.ctx = ctx;
	r.opts = opts;
	r.err = err;
	sbuf_init(&r.scratch, 0);
	r.icache = gf_xcalloc(ICACHE_SIZE, sizeof *r.icache);
	r.err_rc = GF_EINPUT;
	r.unit_cap = 2 * jscan_token_max(); /* at most SIZE_MAX / 2 */
	r.ts_min = INT64_MAX;
	r.end_max = INT64_MIN;
	r.id_empty = pool_intern(kt->names, "", 0);
	r.id_process_name = pool_intern_str(kt->names, "process_name");
	r.id_process_labels = pool_intern_str(kt->names, "process_labels");
	r.id_thread_name = pool_intern_str(kt->names, "thread_name");
	r.id_cpu_functions = pool_intern_str(kt->names, "CPU functions");
	r.id_cuda_functions = pool_intern_str(kt->names, "CUDA functions");
	int rc = run(&r, src);
	kineto_chunks_end(&r);
	if (!r.mapped)
		free(r.buf);
	free(r.icache);
	sbuf_release(&r.scratch);
	return rc;
}

int kineto_read_source(struct kineto_trace *kt, struct source *src, const char *path, kineto_event_fn fn,
		       void *ctx, const struct kineto_opts *opts, struct sbuf *err)
{
	kt->stats.compression = source_kind(src);
	return read_src(kt, src, source_name(src), path, NULL, 0, NULL, fn, ctx, opts, err);
}

int kineto_read(struct kineto_trace *kt, const char *path, kineto_event_fn fn, void *ctx,
		const struct kineto_opts *opts, struct sbuf *err)
{
	struct source *src;
	int rc = source_open(&src, path, opts ? opts->threads : 0, err);
	if (rc)
		return rc;
	rc = kineto_read_source(kt, src, path, fn, ctx, opts, err);
	source_close(src);
	return rc;
}

int kineto_read_mem(struct kineto_trace *kt, const void *buf, size_t len, const char *fname,
		    kineto_event_fn fn, void *ctx, struct sbuf *err)
{
	return kineto_read_mem_split(kt, buf, len, fname, 0, 0, fn, ctx, err);
}

int kineto_read_mem_split(struct kineto_trace *kt, const void *buf, size_t len, const char *fname, size_t first,
			  size_t chunk, kineto_event_fn fn, void *ctx, struct sbuf *err)
{
	struct source *src;
	int rc = source_open_mem(&src, buf, len, fname, 1, err);
	if (rc)
		return rc;
	source_set_split(src, first, chunk);
	kt->stats.compression = source_kind(src);
	rc = read_src(kt, src, fname, NULL, buf, len, NULL, fn, ctx, NULL, err);
	source_close(src);
	return rc;
}

int kineto_read_mem_whole(struct kineto_trace *kt, const void *buf, size_t len, const char *fname,
			  kineto_event_fn fn, void *ctx, const struct kineto_opts *opts, struct sbuf *err)
{
	struct source *src;
	int rc = source_open_mem(&src, buf, len, fname, 1, err);
	if (rc)
		return rc;
	kt->stats.compression = source_kind(src);
	char *copy = NULL;
	if (source_kind(src) == SOURCE_PLAIN) {
		copy = gf_xmalloc(len + JSCAN_PAD);
		memcpy(copy, buf, len);
		memset(copy + len, 0, JSCAN_PAD);
	}
	rc = read_src(kt, src, fname, NULL, buf, len, copy, fn, ctx, opts, err);
	free(copy);
	source_close(src);
	return rc;
}
