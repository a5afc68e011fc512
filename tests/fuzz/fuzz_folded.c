/*
 * fuzz_folded.c — libFuzzer target: folded reader -> call tree -> SVG and top.
 *
 * The first input byte picks options (flame chart, reverse, minwidth, palette,
 * inverted, hash), the rest is folded text. Checks: no crash or sanitizer
 * report; the SVG contains no raw control character and is valid UTF-8;
 * rendering twice gives the same bytes; the root's weight equals the sum of
 * the top-level frames' weights; and the round trip (docs/diff.md): the tree
 * written by folded_write and by merge_write_sorted (merge, norm, diff) reads
 * back to the same tree, and writing that again gives the same bytes.
 */
#include "stacks/ops/merge.h"
#include "stacks/ops/top.h"
#include "stacks/folded.h"
#include "stacks/folded_out.h"
#include "base/escape.h"
#include "stacks/render/palette.h"
#include "stacks/render/svg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/roundtrip.h"

static char *write_mem(int (*wr)(FILE *, const struct ftree *), const struct ftree *t, size_t *len)
{
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	wr(fp, t);
	fclose(fp);
	return buf;
}

static int plain_writer(FILE *fp, const struct ftree *t)
{
	return folded_write(fp, t, false);
}

static int sorted_writer(FILE *fp, const struct ftree *t)
{
	return merge_write_sorted(fp, t, false);
}

/* write -> read gives the same tree; write(read(write(t))) == write(t) */
static void check_roundtrip(const struct ftree *t)
{
	for (int wr = 0; wr < 2; wr++) {
		size_t len, len2;
		char *text = write_mem(wr ? sorted_writer : plain_writer, t, &len);
		struct ftree r;
		ftree_init(&r, NULL, 0);
		struct folded_stats st;
		memset(&st, 0, sizeof st);
		struct folded_opts fo = { .strict = true, .reverse = false };
		struct sbuf err = SBUF_INIT;
		char why[128];
		if (folded_read_mem(&r, text, len, "rt", &fo, &st, &err) != GF_OK || !rt_same(t, &r, why, sizeof why))
			abort();
		char *again = write_mem(wr ? sorted_writer : plain_writer, &r, &len2);
		if (wr && (len2 != len || memcmp(again, text, len)))
			abort(); /* sorted output is canonical */
		free(again);
		free(text);
		sbuf_release(&err);
		ftree_release(&r);
	}
}

static void check_svg(const struct sbuf *s)
{
	for (size_t i = 0; i < s->len;) {
		long cp;
		int k = esc_utf8_next((const unsigned char *)s->buf + i, s->len - i, &cp);
		if (cp < 0 || (cp < 0x20 && cp != '\n') || cp == 0x7f)
			abort();
		i += (size_t)k;
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned flags = data[0];
	struct ftree t;
	ftree_init(&t, NULL, (flags & 1) ? FT_FLAMECHART : 0);
	struct folded_opts fo = {.strict = false, .reverse = (flags & 2) != 0};
	struct folded_stats st;
	memset(&st, 0, sizeof st);
	struct sbuf err = SBUF_INIT, a = SBUF_INIT, b = SBUF_INIT;
	if (folded_read_mem(&t, (const char *)data + 1, size - 1, "fuzz", &fo, &st, &err) == GF_OK) {
		ftree_sort(&t);
		int64_t sum = 0;
		const int64_t *w = t.ncols == 2 ? t.total2 : t.total;
		for (uint32_t c = t.child[0]; c != FT_NONE; c = t.sib[c])
			sum += w[c];
		if (sum != w[0])
			abort();
		/* trees as read (not a flame chart, not reversed: a reversed root
		 * may be "# x", which the writer must map) */
		if (!(flags & 3))
			check_roundtrip(&t);
		struct svg_opts o;
		svg_opts_init(&o);
		o.minwidth = (flags & 4) ? 0 : 0.1;
		o.colors = palette_names[(flags >> 4) % PAL_COUNT];
		o.inverted = (flags & 8) != 0;
		o.hash = (flags & 0x40) != 0;
		o.random = (flags & 0x80) != 0;
		o.title = (const char *)data + 1 < (const char *)data + size ? "t<>&\x1b" : NULL;
		int r1 = svg_render_buf(&t, &o, &a, NULL, &err);
		int r2 = svg_render_buf(&t, &o, &b, NULL, &err);
		if (r1 != r2 || a.len != b.len || memcmp(a.buf, b.buf, a.len))
			abort();
		if (r1 == GF_OK)
			check_svg(&a);
		struct top_row *rows;
		size_t n;
		top_compute(&t, &rows, &n);
		top_sort(rows, n, &t, (enum top_sort)(flags % 3));
		free(rows);
	}
	sbuf_release(&a);
	sbuf_release(&b);
	sbuf_release(&err);
	ftree_release(&t);
	return 0;
}
