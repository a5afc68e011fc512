/*
 * flamejson.h — a call tree as the compact JSON the HTML page draws
 * (trace/write/report_html.h, stacks/render/diff_html.h), pruned as the SVG
 * renderer prunes: a frame whose total is under keep_min is not written;
 * the pruned children of one written frame become one frame
 * "[N frames < minwidth]" holding their summed weight (so every total and
 * self weight of a written frame stays exact), and the pruned weight is
 * counted. keep_min for a W px wide graph at minwidth M px is
 * flamejson_keep_min(total): ceil(total * 0.1 / 1180), the SVG's default
 * --minwidth 0.1 on its default 1200 px image (1180 px drawn).
 *
 * Bounded height: a frame at depth FLAMEJSON_MAX_DEPTH writes no child;
 * its children become one frame "[N frames deeper than 512 levels]" holding
 * their weight (counted as pruned). Deep single-callee chains (a path where
 * each frame writes exactly one child and prunes none, as deep recursion or
 * a 40,000-deep evented profile gives) longer than FLAMEJSON_CHAIN_MAX
 * frames keep their first and last FLAMEJSON_CHAIN_KEEP frames; the frames
 * between become one frame "[N frames of a single-callee chain]" weighing
 * the first of them, so totals and self weights stay exact (its self is
 * theirs summed); they are counted in "collapsed". Shorter chains (a
 * program's start-up frames) are written whole. A graph's height is thus
 * bounded whatever the stacks' depth, and searching it costs its written
 * frames.
 *
 * Shape (one object; arrays parallel, node 0 the root, a parent before its
 * children, siblings in drawing order):
 *   {"total": T, "keep_min": K, "pruned": P, "pruned_frames": F, "frames": N,
 *    "collapsed": C, "max_depth": 512,
 *    "names": ["", "main", ...],          every name once, escaped (esc_json)
 *    "calls": [-1, 12, ...],              per name, from the callback (-1 unknown)
 *    "p": [-1, 0, 1, ...],                parent node
 *    "n": [0, 1, ...],                    name index
 *    "v": [T, ...],                       total (column 0), integers at the tree's scale
 *    "b": [...],                          differential trees: column 1 total
 *    "x": [...], "fills": [...]}          differential trees: fill index and class per node
 * Values are exact integers in units of 10^-scale (the fold's ns).
 *
 * Differential trees (opts.fill set): "b" holds the other column and "x"
 * two integers per node: its fill as an index into "fills" (the distinct
 * "rgb(...)" strings opts.fill gave) and its class (opts.cls: enum
 * diff_class; aggregates are rgb(220,220,220), class 4).
 *
 * Layer: stacks/render. Never prints.
 */
#ifndef GF_FLAMEJSON_H
#define GF_FLAMEJSON_H

#include "base/sbuf.h"
#include "stacks/ftree.h"

struct flamejson_opts {
	int64_t keep_min;       /* frames with total < keep_min are pruned (>= 1) */
	int col;                /* the column giving the widths (0, or 1 for a diff's before shape) */
	/* calls of a name (-1 unknown), or NULL for no "calls" array */
	int64_t (*calls)(void *ctx, const char *name, size_t n);
	void *ctx;
	/* differential trees: the fill of a node into rgb (NUL-terminated), and its class */
	void (*fill)(void *ctx, uint32_t node, char rgb[24]);
	int (*cls)(void *ctx, uint32_t node);
	/* when set: every name written is interned into it (what the graph draws) */
	struct pool *drawn;
};

#define FLAMEJSON_MAX_DEPTH 512
#define FLAMEJSON_CHAIN_MAX 64
#define FLAMEJSON_CHAIN_KEEP 16

struct flamejson_stats {
	uint64_t frames;        /* nodes written (aggregates included) */
	uint64_t collapsed;     /* tree nodes inside collapsed chains */
	uint64_t pruned_frames; /* tree nodes left out (subtrees counted whole) */
	int64_t pruned;         /* their weight (column col) */
};

/* ceil(total / 11800), at least 1. */
int64_t flamejson_keep_min(int64_t total);

/* Appends the object above for t (sorted; totals in column o->col). */
void flamejson_write(const struct ftree *t, const struct flamejson_opts *o, struct sbuf *out,
		     struct flamejson_stats *st);

#endif
