/*
 * svg.h — render a call tree (struct ftree) as an interactive SVG flame graph,
 * a drop-in for flamegraph.pl's output (same element structure, geometry,
 * palettes and tooltips; our own JavaScript).
 *
 *   struct svg_opts o;
 *   svg_opts_init(&o);
 *   o.title = "GPU time";
 *   ftree_sort(&t);                       // siblings by name bytes
 *   if (svg_render(&t, &o, fp, &err)) ...  // err has a one-line message
 *
 * Layout (flamegraph.pl's, docs/svg.md): the frame area is width - 20
 * px; a node spans its total weight (column 1, "after", for a differential
 * tree); its self weight lies at its left edge, then its children in the
 * tree's sibling order. Frames narrower than minwidth are pruned before
 * anything is emitted; the pruned children of one node are drawn as a single
 * frame "[N frames < minwidth]" after its visible children when their summed
 * width reaches minwidth (see docs/svg.md).
 *
 * Output is deterministic: the same tree and options give the same bytes.
 *
 * Layer: stacks/render.
 */
#ifndef GF_SVG_H
#define GF_SVG_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"
#include "stacks/render/palette.h"

#include <stdio.h>

/* Background presets for svg_opts.bgcolors (or "#rrggbb"). */
enum svg_layout {
	SVG_FLAME = 0,   /* root at the bottom */
	SVG_ICICLE = 1,  /* root at the top (--inverted) */
};

struct svg_opts {
	const char *title;     /* NULL: "Flame Graph", "Icicle Graph" or "Flame Chart" */
	const char *subtitle;  /* NULL or "" for none */
	const char *notes;     /* into <!-- NOTES: --> (escaped); NULL for none */
	unsigned width;        /* image width in px (default 1200) */
	unsigned frameheight;  /* px per frame, rect is one less (default 16) */
	double minwidth;       /* prune frames narrower than this (default 0.1) ... */
	bool minwidth_pct;     /* ... px, or percent of the total when true */
	const char *fonttype;  /* default "Verdana" */
	double fontsize;       /* default 12 */
	double fontwidth;      /* default 0.59 (average glyph width / fontsize) */
	const char *countname; /* default "samples" */
	const char *nametype;  /* default "Function:" */
	const char *colors;    /* palette name (palette.h), default "hot" */
	const char *bgcolors;  /* NULL (by palette), yellow, blue, green, grey or #rrggbb */
	bool hash;             /* colour by name hash (flamegraph.pl --hash) */
	bool deterministic;    /* colour by inferno's FNV-1a name hash (inferno --deterministic) */
	bool colordiffusion;   /* the wider the redder (inferno --colordiffusion) */
	bool random;           /* random colours from `seed` (deterministic) */
	uint64_t seed;         /* seed for --random; 0 = derived from the tree */
	struct palmap *cp;     /* consistent palette: consulted and extended; NULL off */
	bool inverted;         /* icicle layout */
	bool negate;           /* differential: swap red/blue and the delta sign */
	/* Pretend the total is this large (tree units, i.e. 10^-t->scale);
	 * ignored when 0 or smaller than the real total (flamegraph.pl --total). */
	int64_t total;
	/* Displayed weights are multiplied by factor_num / 10^factor_scale
	 * (flamegraph.pl --factor). Widths are not. factor_num 0 means 1. */
	int64_t factor_num;
	unsigned factor_scale;

	/*
	 * Hooks for other writers (stacks/render/diff_out.c, gpuflame diff --svg). All optional.
	 *
	 * color: called for every drawn frame (the root "all" included, node 0,
	 * but not for "[N frames < minwidth]" aggregates). Return 1 after
	 * writing a NUL-terminated SVG colour ("rgb(r,g,b)" or "#rrggbb", at
	 * most 23 bytes, no quotes, no '<' or '&') into rgb to use it; return 0
	 * to fall back to the palette. It must not modify the tree.
	 *
	 * tooltip: replaces the default tooltip text ("name (N unit, P%)") of
	 * every drawn frame (root and aggregates excepted). Append plain text
	 * to out (which is empty on entry); the renderer escapes it for XML and
	 * uses its first line in the details bar. Keep the shape
	 * "name (...)": tests/gen/check_diff_svg.py reads the name before " (". The frame's name
	 * for zoomed labels is then carried separately.
	 *
	 * stroke: called for every frame `color` is called for. Return 1 after
	 * writing an SVG colour (same rules as for color) into rgb and a line
	 * width in px into *width (clamped to [0.1, 10], printed with one
	 * decimal) to outline the frame's rect with it (SVG stroke and
	 * stroke-width attributes, drawn over the fill and its edges; zooming
	 * keeps it); return 0 for no outline. gpuflame diff --svg marks each
	 * frame's own (self) change this way, the fill showing its total change.
	 *
	 * legend: NULL, or a NULL-terminated list of plain-text lines drawn
	 * (escaped) under the title/subtitle, one per line; the image grows by
	 * one line height (fontsize * 1.5 px) per line.
	 */
	int (*color)(void *ctx, const struct ftree *t, uint32_t node, char rgb[24]);
	void (*tooltip)(void *ctx, const struct ftree *t, uint32_t node, struct sbuf *out);
	int (*stroke)(void *ctx, const struct ftree *t, uint32_t node, char rgb[24], double *width);
	void *ctx;
	const char *const *legend;
	/* The root box's text: NULL (flamegraph.pl: none) or e.g. "all". */
	const char *root_label;
	/* Tooltips add "self: S unit (P%)" and, when steps > 0, "per step: V
	 * unit" lines (svg_apply_header sets them for gpuflame's own output). */
	bool self_line;
	uint64_t steps;
	/* Frame names end in a kind suffix ("_[op]", palette_kind_suffix):
	 * labels and tooltips show them without it (the header said kinds=yes). */
	bool kinds;
};

/* svg_apply_header: what the user gave, the rest comes from the header. */
#define SVG_GIVEN_TITLE 1u
#define SVG_GIVEN_SUBTITLE 2u
#define SVG_GIVEN_COUNTNAME 4u
#define SVG_GIVEN_COLORS 8u
#define SVG_GIVEN_FACTOR 16u

/*
 * The `# gpuflame:` header of the input (t->meta) fills what the user did
 * not give (docs/svg.md, "The header"): unit= the tooltips' unit (unit=ns,
 * fold's default, is shown as us with 3 decimals: factor 1/1000, unless
 * --countname or --factor was given); weight=
 * (gpuflame fold's output) the gpu palette, a title ("GPU time", "Host CPU
 * time", "Wall time", "GPU idle time", "Kernel launches"), a subtitle from
 * steps, per_step, rank, world_size, source and the labels, "all" on the
 * root box, tooltip lines with the self weight and (steps=N, not normalised
 * or per_step) the value per step; kinds=yes the kind suffixes (o->kinds). title and subtitle hold
 * the texts o points to: they must outlive the rendering. Plain folded
 * input (no header) changes nothing: flamegraph.pl's defaults stay.
 */
void svg_apply_header(struct svg_opts *o, const struct ftree *t, unsigned given, struct sbuf *title,
		      struct sbuf *subtitle);

/* Fills the flamegraph.pl defaults. */
void svg_opts_init(struct svg_opts *o);

/* What svg_render drew (for callers' messages and tests). */
struct svg_stats {
	uint64_t frames;     /* <g> frame elements written, root and aggregates included */
	uint64_t aggregates; /* "[N frames < minwidth]" frames */
	uint64_t pruned;     /* child subtrees pruned (drawn as aggregates or not) */
	unsigned depthmax;   /* deepest drawn level (root = 0) */
	unsigned height;     /* image height in px */
};

/*
 * Renders t to fp. The tree's child order is used as is (call ftree_sort
 * first for flamegraph.pl's name order; flame chart trees keep input order).
 * @return GF_OK; GF_EINPUT with a message when the tree has no weight
 * (nothing to draw); GF_EUSAGE when an option is invalid (bad palette or
 * bgcolors, width too small, a fonttype that fails svg_fonttype_ok);
 * GF_EOUTPUT when writing fails. st may be NULL.
 */
int svg_render(const struct ftree *t, const struct svg_opts *o, FILE *fp,
	       struct svg_stats *st, struct sbuf *err);

/* Same into a buffer (tests, fuzzers). */
int svg_render_buf(const struct ftree *t, const struct svg_opts *o, struct sbuf *out,
		   struct svg_stats *st, struct sbuf *err);

/*
 * The minimum width of a drawn frame in tree units for a tree whose real
 * total is real_total (the renderer prunes frames with weight < this). Used
 * to build pruned trees (stacks/ftrie.h) that render identically.
 */
double svg_min_weight(const struct svg_opts *o, int64_t real_total);
/* The same as the pruned reader's integer threshold: the weight a subtree
 * needs to be kept (0: keep everything; INT64_MAX past int64). */
int64_t svg_keep_min(const struct svg_opts *o, int64_t real_total);

/*
 * How svg reads its inputs (the strategy is the renderer's, not the
 * command's): SVG_READ_PRUNED, the two-phase reader of stacks/ftrie.h that
 * keeps only what o can draw, when every input can be read twice (named
 * regular files) and neither a flame chart (its frames merge in input
 * order) nor the full tree (--fulltree) is asked; else SVG_READ_TREE, the
 * folded reader into the whole tree. A differential input makes the pruned
 * reader give up (FTRIE_UNSUPPORTED): then the tree is read.
 */
enum svg_read { SVG_READ_TREE = 0, SVG_READ_PRUNED };
int svg_read_strategy(bool flamechart, bool fulltree, bool rereadable);

/*
 * True when s may be the CSS font-family list of the SVG (--fonttype): one
 * or more family names separated by commas, each made of letters (any
 * script), digits, blanks and . _ - or quoted whole in '...' or "..."; at
 * most 256 bytes. Anything else (; { } < > ( ) / \ : ! @ # controls,
 * unbalanced quotes, invalid UTF-8) could end the declaration or the
 * <style> element and is refused: svg_render returns GF_EUSAGE.
 */
bool svg_fonttype_ok(const char *s);

/* Default title for the options and tree (NULL title). */
const char *svg_default_title(const struct ftree *t, const struct svg_opts *o);

#endif
