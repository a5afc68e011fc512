/*
 * norm.h — exact rescaling of call-tree weights: per-step normalisation
 * (divide by the number of profiled steps) and scaling one profile to
 * another's total (difffolded.pl -n).
 *
 * Every stack line's (node's) self weight w becomes w * num / den, computed
 * in 128-bit integers at the tree's scale raised by `decimals` (capped so the
 * scale stays <= NUM_MAX_SCALE). Rounding (enum norm_round):
 *   NORM_ROUND_LARGEST  default: every line is floored, then the lines with
 *                       the largest remainders get one unit each until the
 *                       column total equals round_half_even(total*num/den):
 *                       the normalised total is exact to the last digit, each
 *                       line is within one unit (10^-scale) of its exact value.
 *   NORM_ROUND_EVEN     each line rounded half to even on its own (the total
 *                       may drift by up to lines/2 units).
 *   NORM_ROUND_FLOOR    each line truncated (what difffolded.pl -n does).
 * Totals of inner nodes are recomputed from the self weights, so the tree
 * stays consistent (total = self + children).
 *
 * Layer: stacks/ops. Never prints.
 */
#ifndef GF_NORM_H
#define GF_NORM_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"

enum norm_round {
	NORM_ROUND_LARGEST = 0,
	NORM_ROUND_EVEN,
	NORM_ROUND_FLOOR,
	NORM_ROUND_N
};
/* The roundings' names (--round) in enum order, NULL-terminated. */
extern const char *const norm_round_names[NORM_ROUND_N + 1];

/*
 * Raises t's scale by `decimals` (to at most NUM_MAX_SCALE; fewer when the
 * weights would overflow int64 — the scale actually reached is t->scale on
 * return). @return GF_OK or GF_EINPUT with a message.
 */
int norm_add_decimals(struct ftree *t, unsigned decimals, struct sbuf *err);

/*
 * Multiplies column `col` of t by num/den (num >= 0, den > 0) with the given
 * rounding, at the tree's current scale. @return GF_OK, or GF_EINPUT with a
 * message on overflow / bad arguments (t is then unchanged).
 */
int norm_scale_col(struct ftree *t, int col, int64_t num, int64_t den,
		   enum norm_round round, struct sbuf *err);

#endif
