/* ranks_src.c — where the combine's summaries come from: files, or memory
 * (see ranks.h). */
#include "ranks/ranks.h"

#include "input/input.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static const char *file_name(void *ctx, size_t i)
{
	const struct ranks_files *f = ctx;
	return strcmp(f->paths[i], "-") ? f->paths[i] : "<stdin>";
}

static int file_read(const struct ranks_files *f, size_t i, struct sbuf *out, struct sbuf *err);

static int file_load(void *ctx, size_t i, struct sbuf *out, struct sbuf *err)
{
	struct ranks_files *f = ctx;
	if (strcmp(f->paths[i], "-"))
		return file_read(f, i, out, err);
	if (!f->in_read) {
		int rc = file_read(f, i, &f->in, err);
		if (rc)
			return rc;
		f->in_read = true;
	}
	sbuf_add(out, f->in.buf, f->in.len);
	return GF_OK;
}

static int file_read(const struct ranks_files *f, size_t i, struct sbuf *out, struct sbuf *err)
{
	struct input *in;
	int rc = input_open(&in, f->paths[i], 1, err);
	if (rc)
		return rc;
	int fmt = input_format(in);
	if (fmt != INPUT_SUMMARY) {
		size_t pn;
		input_peek(in, &pn);
		if (fmt == INPUT_TRACE || fmt == INPUT_SPEEDSCOPE || fmt == INPUT_PPROF || fmt == INPUT_PERF_SCRIPT ||
		    fmt == INPUT_NSYS_SQLITE)
			input_hint(err, in, INPUT_SUMMARY, NULL);
		else
			sbuf_setf(err, "'%s': %s, not a gpuflame summary (a JSON object starting with \"schema\": \"%s\")",
				  file_name((void *)f, i), pn ? "unknown content" : "empty", SUMMARY_SCHEMA);
		input_close(in);
		return GF_EINPUT;
	}
	char buf[1 << 16];
	size_t n;
	while (!(rc = input_read(in, buf, sizeof buf, &n, err)) && n)
		sbuf_add(out, buf, n);
	input_close(in);
	return rc;
}

void ranks_source_files(struct ranks_source *src, struct ranks_files *f, const char *what)
{
	src->n = f->n;
	src->load = file_load;
	src->name = file_name;
	src->ctx = f;
	src->what = what;
}

void ranks_mem_init(struct ranks_mem *m, size_t n)
{
	m->n = n;
	m->z = gf_xcalloc(n ? n : 1, sizeof *m->z);
	m->names = gf_xcalloc(n ? n : 1, sizeof *m->names);
}

void ranks_mem_put(struct ranks_mem *m, size_t i, const char *name, const struct sbuf *json)
{
	/* compressed into a scratch buffer, then kept at its own size (a buffer
	 * grown to the bound would hold the text's size for every rank) */
	size_t cap = ZSTD_compressBound(json->len);
	struct sbuf *z = &m->z[i];
	char *tmp = gf_xmalloc(cap ? cap : 1);
	size_t k = ZSTD_compress(tmp, cap, json->buf, json->len, 1);
	if (ZSTD_isError(k)) /* only for want of memory: keep the text as it is */
		k = 0;
	sbuf_release(z);
	sbuf_init(z, (k ? k : json->len) + 1);
	if (!k)
		sbuf_add(z, json->buf, json->len);
	else
		sbuf_add(z, tmp, k);
	free(tmp);
	m->names[i] = gf_xstrdup(name);
}

static const char *mem_name(void *ctx, size_t i)
{
	const struct ranks_mem *m = ctx;
	return m->names[i];
}

static int mem_load(void *ctx, size_t i, struct sbuf *out, struct sbuf *err)
{
	const struct ranks_mem *m = ctx;
	const struct sbuf *z = &m->z[i];
	unsigned long long n = ZSTD_getFrameContentSize(z->buf, z->len);
	if (n == ZSTD_CONTENTSIZE_ERROR) { /* kept as text */
		sbuf_add(out, z->buf, z->len);
		return GF_OK;
	}
	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n > SIZE_MAX / 2) {
		sbuf_setf(err, "'%s': the summary kept in memory is unreadable", m->names[i]);
		return GF_EINTERNAL;
	}
	sbuf_grow(out, (size_t)n + 1);
	size_t k = ZSTD_decompress(out->buf + out->len, (size_t)n + 1, z->buf, z->len);
	if (ZSTD_isError(k) || k != n) {
		sbuf_setf(err, "'%s': the summary kept in memory is unreadable", m->names[i]);
		return GF_EINTERNAL;
	}
	sbuf_setlen(out, out->len + k);
	return GF_OK;
}

void ranks_source_mem(struct ranks_source *src, struct ranks_mem *m)
{
	src->n = m->n;
	src->load = mem_load;
	src->name = mem_name;
	src->ctx = m;
	src->what = NULL;
}

size_t ranks_mem_bytes(const struct ranks_mem *m)
{
	size_t b = 0;
	for (size_t i = 0; i < m->n; i++)
		b += m->z[i].len;
	return b;
}

void ranks_mem_free(struct ranks_mem *m)
{
	for (size_t i = 0; i < m->n; i++) {
		sbuf_release(&m->z[i]);
		free(m->names[i]);
	}
	free(m->z);
	free(m->names);
	memset(m, 0, sizeof *m);
}
