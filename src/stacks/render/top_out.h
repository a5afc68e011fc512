/*
 * top_out.h — the writers of the call-count table (stacks/ops/top.h) in
 * its four formats: text (fits 100 columns, names cut with an ellipsis),
 * TSV, GitHub Markdown and JSON ("gpuflame.top/1", docs/schema/
 * top.schema.json). Rows are formatted as they are written, in chunks, so
 * the output may be larger than memory allows to hold at once.
 *
 *   struct top_view v = { &tree, rows, n, all, nstacks, "us" };
 *   top_out_write(&v, TOP_OUT_JSON, fp);   // errors: ferror(fp) (the caller's ofile)
 *
 * Names are untrusted: escaped for the terminal (text, TSV), Markdown or
 * JSON. Numbers are exact (the tree's decimals); shares have two decimals,
 * rounded half away from zero.
 *
 * Layer: stacks/render.
 */
#ifndef GF_TOP_OUT_H
#define GF_TOP_OUT_H

#include "stacks/ops/top.h"

#include <stdio.h>

enum top_out_format { TOP_OUT_TEXT = 0, TOP_OUT_TSV, TOP_OUT_MD, TOP_OUT_JSON, TOP_OUT_N };
/* The formats' names (--format) in enum order, NULL-terminated. */
extern const char *const top_out_formats[TOP_OUT_N + 1];

/* The table to write: the rows (sorted, cut to --limit) and what the
 * headers show. */
struct top_view {
	const struct ftree *t;
	const struct top_row *rows;
	size_t n;
	int64_t all;          /* the whole the shares are of (tree units) */
	uint64_t nstacks;     /* distinct stacks of the input */
	const char *countname; /* the unit shown ("samples", "us") */
};

/* Writes v in format fmt to fp (write errors stay in fp's error flag). */
void top_out_write(const struct top_view *v, int fmt, FILE *fp);

#endif
