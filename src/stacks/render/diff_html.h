/*
 * diff_html.h — `gpuflame diff --format html`: the differential flame graph
 * as one self-contained page (stacks/render/page_html.h: CSP, no network),
 * with the biggest changes table and the noise test's parameters and
 * counts, from the one diff result (stacks/ops/diff.h).
 *
 *   diff_html_write(&r, &opts, &out);
 *
 * Embedded JSON, schema "gpuflame.page/1", kind "diff":
 *   {"title", "before", "after", "weight" (the folded header's weight=,
 *    null when the inputs do not say), "weight_title" (what svg titles a
 *    graph of that weight: stacks/weight.h; absent for a weight it does not
 *    know), "unit" (unit=, "samples" for sampled
 *    inputs without one, else null), "steps": [before's, after's] (0:
 *    unknown), "scale_note", "per_step",
 *    "graph": flamejson tree of AFTER's shape (widths = after, "b" = before,
 *             fill and class per node as the SVG's: diff_out_fill); frames
 *             only in BEFORE are written with after 0 when their before
 *             weight would be drawn, so the page draws them in its
 *             before-shaped view and lists them as removed,
 *    "noise": {"sampled", "alpha", "min_share", "grew", "shrank", "noise",
 *              "small", "only_before", "only_after"},
 *    "changes": [{"frame", "self", "before", "after", "cls"}]}  (diff_top,
 *              by total then by self, at the tree's scale)
 *
 * Layer: stacks/render. Never prints.
 */
#ifndef GF_DIFF_HTML_H
#define GF_DIFF_HTML_H

#include "base/sbuf.h"
#include "stacks/ops/diff.h"

#define DIFF_HTML_TOP 25

struct diff_html_opts {
	const char *before, *after; /* the inputs' names */
	const char *title;          /* NULL: "gpuflame diff: BEFORE -> AFTER" */
	double alpha, min_share;    /* the noise test's parameters (diff_opts) */
};

/* Sorts r->t (ftree_sort); r is otherwise unchanged. */
void diff_html_write(struct diff_result *r, const struct diff_html_opts *o, struct sbuf *out);

#endif
