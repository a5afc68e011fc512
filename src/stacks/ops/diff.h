/*
 * diff.h — differential profiles: align two call trees (BEFORE, AFTER) into
 * one two-column tree, normalise them (per step, to the same total, or not),
 * tell change from sampling noise, and rank the biggest changes.
 *
 * Alignment: a frame is matched by its path of (normalised) names from the
 * root. The result has the union of both trees: frames only in AFTER have
 * before = 0; frames only in BEFORE are KEPT with after = 0, so they appear
 * in the 3-column output (as difffolded.pl prints them), in --top tables and
 * in the --negate (before-shaped) view, but have no width in the after-shaped
 * flame graph (the legend counts them).
 *
 * Name normalisation (diff_name_normalise, on unless opts.normalise_names is
 * false), applied to every frame before matching, so volatile parts do not
 * split one frame into two:
 *   R1  0x<hex digits>                 -> 0x...      (addresses; difffolded -s)
 *   R2  ProfilerStep#<digits>          -> ProfilerStep#...
 *   R3  "process <digits>" at the start of a frame -> "process ..." (py-spy
 *       --subprocesses: process 1234:"python serve.py")
 *   R4  "thread <digits>" at the start of a frame -> "thread ..." (decimal
 *       thread ids; hex ones are covered by R1: thread (0x7F3A...))
 *   R5  pid / tid followed by ' ', '=', ':' or '#' and digits -> pid=... style
 *       (the separator is kept, the digits become "...")
 * Frames that become equal are merged (weights summed).
 *
 * Noise test (sampled inputs: py-spy/perf sample counts): for every frame,
 * its share of all samples before (x1/n1) and after (x2/n2) is compared with
 * a two-proportion z-test (pooled variance, two-sided); the change is
 * coloured only when p < alpha and the per-step delta has the same sign as
 * the change of share; frames whose share is under min_share in both
 * profiles are classed DIFF_SMALL. The test runs on the raw counts, before
 * normalisation. Non-sampled inputs (exact durations) are classed only by the
 * sign of the delta.
 *
 * Step-to-step noise (per-step inputs: folds with one tower per step, their
 * header's per_step=yes, as fold --per-step and diff's own folding of
 * traces write them): the step frames are collapsed into their parents
 * (the result shows the steps' sum) and every frame's total and every
 * stack's self weight is tested on its per-step values, BEFORE's against
 * AFTER's, by Mann–Whitney U (stepnoise.h); Benjamini–Hochberg keeps the
 * false discovery rate of each family (frames' totals, stacks) at alpha. A
 * change is grew/shrank when its test rejects and the per-step means moved
 * the same way, else noise. When both inputs are per-step this test
 * replaces the sampled one. With fewer steps than can reach alpha
 * (stepnoise_min_p >= alpha, or one step on a side) too_few is set and the
 * changes are classed by sign; a weight partly outside the steps (the
 * root's [unattributed]) is classed by sign too.
 *
 * Layer: stacks/ops (its writers: stacks/render/diff_out.h). Never prints.
 */
#ifndef GF_DIFF_H
#define GF_DIFF_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"
#include "stacks/ops/norm.h"

enum diff_scale {
	DIFF_SCALE_AUTO = 0, /* per step when both step counts are known, else none */
	DIFF_SCALE_STEPS,    /* divide each profile by its step count */
	DIFF_SCALE_TOTAL,    /* scale BEFORE to AFTER's total (difffolded -n) */
	DIFF_SCALE_NONE,
	DIFF_SCALE_N
};
/* The scales' names (--scale) in enum order, NULL-terminated. */
extern const char *const diff_scale_names[DIFF_SCALE_N + 1];

struct diff_opts {
	enum diff_scale scale;
	int64_t steps[2];      /* step counts (--steps N,M); 0 = from the header */
	unsigned decimals;     /* extra decimals kept when normalising (default 3) */
	enum norm_round round; /* default NORM_ROUND_LARGEST */
	bool normalise_names;  /* default true */
	int sampled;           /* -1 auto (integer counts, no unit= header), 0 no, 1 yes */
	double alpha;          /* default 0.01 */
	double min_share;      /* default 0.01 (1 %) */
	struct pool *names;    /* name pool for the result (shared, not freed); NULL = own */
	/* per-step folds of BEFORE and AFTER (a sidecar: their steps' values
	 * for the noise test, the graph is the inputs'), NULL: none */
	const struct ftree *step_side[2];
};

/* Fills o with the defaults above. */
void diff_opts_init(struct diff_opts *o);

enum diff_class {
	DIFF_SAME = 0,   /* no change */
	DIFF_GREW = 1,   /* grew (significantly, for sampled inputs) */
	DIFF_SHRANK = 2, /* shrank (idem) */
	DIFF_NOISE = 3,  /* changed, but within sampling noise */
	DIFF_SMALL = 4,  /* under min_share in both profiles: noise by rule */
};

struct diff_result {
	struct ftree t;              /* col 0 = before, col 1 = after, normalised */
	uint8_t *cls_total, *cls_self; /* per node of t: enum diff_class */
	double *p_total;             /* per node: p-value of the total change (sampled, or the per-step
					test: 1 when untested; else 0) */
	double *p_self;              /* per node: p-value of the self change (the per-step test, else 0) */
	bool sampled;
	/* step-to-step noise (diff_steps.h): per-step data on each side, the
	 * test's steps per side, whether it classed the frames, whether the
	 * steps were too few to tell (min_p >= alpha), and per family ([0]
	 * the frames' totals, [1] the stacks' self weights) the changes tested
	 * and those beyond noise */
	bool step_data[2];
	uint32_t test_steps[2];
	bool steps_test, too_few;
	double min_p;
	double alpha;                /* the level the tests used (diff_opts.alpha) */
	uint32_t tested[2], changed[2];
	enum diff_scale scale;       /* what was applied (never AUTO) */
	int64_t steps[2];            /* step counts used (0 when unknown) */
	int64_t raw_total[2];        /* root totals before normalisation, at raw_scale */
	unsigned raw_scale;
	/* Per node i: raw[4i + c] its total and raw[4i + 2 + c] its self weight
	 * in column c before normalisation (at raw_scale). The exact normalised
	 * value (at t.scale) of a raw weight w of column c is
	 * w * mul[c] * num[c] / den[c]; t holds it rounded (norm.h), the --top
	 * tables print it exactly rounded (diff_out.h). */
	int64_t *raw;
	int64_t mul[2], num[2], den[2];
	uint64_t renamed;            /* frames whose name the normalisation changed */
	uint32_t only_before, only_after; /* frames present in one profile only */
	uint32_t n_grew, n_shrank, n_noise, n_small; /* frames by total class */
	char note[200];              /* a caveat for the user ("" when none) */
};

/*
 * Compares the headers of BEFORE (b) and AFTER (a): weight, unit, rank,
 * world_size and every label.* key present on either side must be equal (a
 * key absent on both sides is fine). Appends "key: 'x' vs 'y'" items,
 * separated by "; ", to diffs. @return the number of differing keys.
 */
int diff_check_meta(const struct ftree_meta *b, const struct ftree_meta *a, struct sbuf *diffs);

/*
 * Appends s[0..n) to out with the rules R1-R5 above applied.
 * @return the number of replacements made (0: out got s unchanged).
 */
size_t diff_name_normalise(const char *s, size_t n, struct sbuf *out);

/*
 * Builds the differential result from two one-column trees. The inputs are
 * modified (their scales are raised to a common one) but not freed; their
 * metadata (steps=) is read. On success r->t owns a new name pool (or uses
 * o->names) and its
 * metadata is AFTER's, with steps/normalised keys updated.
 * @return GF_OK, GF_EUSAGE (e.g. --scale steps without step counts, a
 * differential input) or GF_EINPUT (overflow), with a message in err.
 */
int diff_run(struct diff_result *r, struct ftree *before, struct ftree *after,
	     const struct diff_opts *o, struct sbuf *err);

void diff_result_release(struct diff_result *r);

/*
 * Class of node i as a colour decision: +1 grew, -1 shrank, 0 neutral
 * (same, noise or small). self selects the self-weight class.
 */
int diff_direction(const struct diff_result *r, uint32_t node, bool self);

struct diff_row {
	uint32_t node;
	int64_t before, after, delta; /* at r->t.scale, per step when normalised */
};

/*
 * The n nodes of r->t with the largest |after - before| of their total
 * (self = false) or self (self = true) weight, largest first (ties: path
 * order). Nodes with no change are left out. @return the number of rows
 * written to rows (at most n).
 */
size_t diff_top(const struct diff_result *r, bool self, size_t n, struct diff_row *rows);

/*
 * Two-sided p-value of a two-proportion z-test of x1/n1 against x2/n2
 * (pooled variance). 1 when either n is 0 or both shares are 0 or 1.
 */
double diff_ztest(double x1, double n1, double x2, double n2);

#endif
