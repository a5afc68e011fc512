/*
 * diff_out.h — the writers of a differential result (stacks/ops/diff.h):
 * the differential flame graph (SVG), the --top tables and the 3-column
 * "stack before after" text. gpuflame diff renders with these; its HTML
 * page is diff_html.h, beside them.
 *
 *   struct diff_out_svg_opts so;
 *   diff_out_svg_opts_init(&so);
 *   so.negate = negate;
 *   if (diff_out_svg(&r, &so, fp, &err)) ...   // err: one line
 *
 * SVG colour convention (docs/diff.md, "SVG colour convention"): widths are
 * AFTER's weights (BEFORE's with negate); the fill is the change of each
 * frame's total, red rgb(255,v,v) = grew, blue rgb(v,v,255) = shrank,
 * v = (int)(210 * (max - |d|) / max) with max the largest |total change| of
 * the frames but the root; rgb(250,250,250) unchanged, rgb(220,220,220)
 * noise or under the min share. The outline is the change of the frame's
 * own (self) weight: dark red rgb(160,0,0) = grew, dark blue rgb(0,0,160) =
 * shrank, 0.5 + 2 * |d| / max px (max over the self changes), none when the
 * self class is neutral. With negate the colours still mean after - before.
 *
 * Never prints (writes only to the FILE or buffer it is given), never exits.
 *
 * Layer: stacks/render.
 */
#ifndef GF_DIFF_OUT_H
#define GF_DIFF_OUT_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ops/diff.h"

#include <stdio.h>

struct diff_out_svg_opts {
	bool negate;         /* BEFORE's shape (widths = before) */
	const char *title;   /* NULL: "Differential flame graph" (+ " (before's shape)") */
	double alpha;        /* the noise test's level, for the legend (default 0.01) */
	double min_share;    /* the noise share, for the legend (default 0.01) */
};

/* Fills the defaults above (alpha and min_share as diff_opts_init). */
void diff_out_svg_opts_init(struct diff_out_svg_opts *o);

/* The largest |after - before| of the total (*maxd) and self (*maxsd)
 * weights over every node of r->t but the root (0 when none changed). */
void diff_out_maxima(const struct diff_result *r, int64_t *maxd, int64_t *maxsd);

/*
 * The fill of node in the convention above, maxd from diff_out_maxima.
 * Writes a NUL-terminated "rgb(r,g,b)" into rgb.
 */
void diff_out_fill(const struct diff_result *r, bool negate, int64_t maxd, uint32_t node,
		   char rgb[24]);

/*
 * The outline of node: @return 1 after writing its colour into rgb and its
 * width in px into *width, 0 for no outline (the root, an unchanged self
 * weight, a neutral self class). maxsd from diff_out_maxima.
 */
int diff_out_stroke(const struct diff_result *r, bool negate, int64_t maxsd, uint32_t node,
		    char rgb[24], double *width);

/*
 * Renders the differential flame graph of r to fp (or appended to out).
 * Sorts r->t (ftree_sort) and swaps its columns for the time of the call
 * when negate; r is otherwise unchanged.
 * @return GF_OK, or svg_render's error (GF_EOUTPUT when writing fails,
 * GF_EINPUT when the tree has no weight) with a message in err.
 */
int diff_out_svg(struct diff_result *r, const struct diff_out_svg_opts *o, FILE *fp,
		 struct sbuf *err);
int diff_out_svg_buf(struct diff_result *r, const struct diff_out_svg_opts *o, struct sbuf *out,
		     struct sbuf *err);

/*
 * How the changes were told from noise, one sentence (docs/diff.md): the
 * step-to-step test (steps per side, the level, how many changed stacks
 * and frames it found beyond noise), too few steps to tell, per-step values
 * on one side only, or, for exact inputs without them, classed by sign;
 * nothing for sampled inputs (the legend's own line).
 */
void diff_out_noise(struct sbuf *b, const struct diff_result *r);

/* A node's noise note for a tooltip: "; within step-to-step noise, p=0.31"
 * and the like ("" when its class is by sign alone). */
void diff_out_node_noise(struct sbuf *b, const struct diff_result *r, uint32_t node);

/*
 * The --top report: the n biggest changes by total weight, a blank line, the
 * n biggest by self weight ("before after delta delta% class stack", whole
 * stacks escaped for a terminal; before/after/delta the exact normalised
 * weights rounded half to even at r->t.scale, delta% exact to one decimal,
 * from r->raw, not sums of the rounded lines), then "N frames only in
 * BEFORE, M only in AFTER" when there are any, then diff_out_noise's
 * sentence. @return 0, or non-zero when writing fails (errno set by stdio).
 */
int diff_out_top(FILE *fp, const struct diff_result *r, size_t n);

/*
 * The 3-column text ("stack before after", sorted by stack bytes, after the
 * header), merge_write_sorted's; negate swaps the columns (for
 * flamegraph.pl --negate). @return 0, or non-zero when writing fails.
 */
int diff_out_text(FILE *fp, struct diff_result *r, bool negate, bool terminal);

#endif
