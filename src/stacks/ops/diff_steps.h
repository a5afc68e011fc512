/*
 * diff_steps.h — the per-step values of a diff (diff.h, docs/diff.md
 * "Step-to-step noise"), private to diff.c and diff_steps.c.
 *
 * A per-step input (a fold with one tower per step: its header says
 * per_step=yes, gpuflame fold --per-step) has step frames, ProfilerStep#N
 * (or its step_marker's), at the top or under a thread frame. While
 * diff.c aligns it, each step frame is collapsed into its parent (the
 * result shows the steps' sum, as a fold without --per-step) and every
 * node's weight within each step is noted: under a step, the node's own
 * total and self weight in that step; above one (the root, a thread
 * frame), each step frame's total and self weight, added to the nodes
 * above it. Then diff_steps_classify compares, for every frame's total and
 * every stack's self weight, the per-step values of BEFORE with AFTER's by
 * a Mann–Whitney test (stepnoise.h), keeps the false discovery rate of
 * each family (totals, stacks) at alpha by Benjamini–Hochberg, and classes
 * the frames: a change is grew/shrank when its test rejects and the change
 * of the per-step means has the same sign, else noise.
 *
 * Layer: stacks/ops (internal).
 */
#ifndef GF_DIFF_STEPS_H
#define GF_DIFF_STEPS_H

#include "base/vec.h"
#include "stacks/ops/diff.h"

/* One node's weight in one step of one input (at the input's raw scale). */
struct diff_step_val {
	uint32_t node; /* of the result's tree */
	uint32_t step; /* index among that input's steps */
	int64_t total, self;
};

struct diff_steps_col {
	VEC(struct diff_step_val) v;
	uint32_t nsteps;   /* step frames seen (distinct names) */
	int64_t header;    /* the header's steps= (0 when absent) */
	bool on;           /* a per-step input */
};

/* Whether in is a per-step input (its header says per_step=yes); *marker
 * gets its step marker (the header's step_marker, else ProfilerStep). */
bool diff_steps_input(const struct ftree *in, const char **marker);

/* After both inputs are aligned (r->raw filled): the classes of r (total
 * and self) and the per-step fields of r, from col[0] (BEFORE) and col[1]
 * (AFTER). xm, ym: the scale factors of the comparison (BEFORE's values
 * times xm against AFTER's times ym). @return whether the per-step test
 * classed the frames (else r's classes are untouched). */
bool diff_steps_classify(struct diff_result *r, const struct diff_opts *o, struct diff_steps_col col[2],
			 int64_t xm, int64_t ym);

void diff_steps_col_release(struct diff_steps_col *c);

#endif
