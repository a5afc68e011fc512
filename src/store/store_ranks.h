/*
 * store_ranks.h — a stored side of many ranks as ranks_diff's side
 * (ranks/ranks_diff.h), so that `store diff v1 v2` of two releases of
 * many ranks compares them rank by rank, like with like, instead of adding
 * the ranks up (which hides the straggler).
 *
 *   struct store_ranks r;
 *   store_ranks_open(&r, s, "v1", "gpu", &err);
 *   if (r.side.n > 1) ranks_diff(&r.side, ...);
 *   store_ranks_release(&r);
 *
 * A run's rank is its label rank (store add keeps a trace's, a folded
 * header's and a summary's rank there). The runs of one rank in a side (a
 * benchmark run twice) are summed per step, as a release's runs are, so
 * each rank is one profile of the side; runs without a rank label are one
 * profile (rank unknown: ranks_diff then pairs by position and says so).
 * side.n is the number of ranks; a side of one rank is not one of many.
 *
 * Layer: store. Never prints.
 */
#ifndef GF_STORE_RANKS_H
#define GF_STORE_RANKS_H

#include "ranks/ranks_diff.h"
#include "store/store.h"

struct store_ranks {
	struct ranks_side side;
	struct store *s;
	const char *weight;
	int64_t *ids;       /* the side's runs, grouped by rank */
	size_t *first;      /* rank i's runs: ids[first[i] .. first[i + 1]) */
	int64_t *rank;      /* rank i's number, -1 when unknown */
	char **names;       /* rank i's display name ("run 7", "runs 7+15") */
	struct sbuf what;   /* "release v1", "run 7" */
};

/* Reads side spec (store_side's syntax) of weight w (kept, not copied).
 * @return GF_OK, GF_EUSAGE (no such run or release) or the store's error. */
int store_ranks_open(struct store_ranks *r, struct store *s, const char *spec, const char *w, struct sbuf *err);
void store_ranks_release(struct store_ranks *r);

#endif
