/*
 * ranks_diff.h — two runs of many ranks compared rank by rank, like with
 * like (`gpuflame diff BEFORE_DIR AFTER_DIR`, `store diff` of two multi-rank
 * releases): which ranks changed, and which stacks changed on how many
 * ranks. Each pair is one `gpuflame diff` (stacks/ops/diff.h: per step when
 * both sides know their steps, names normalised), so a rank's numbers are
 * those `gpuflame diff` prints for its two profiles.
 *
 *   struct ranks_side before = { n, rank, tree, name, ctx }, after = ...;
 *   ranks_diff(&before, &after, &o, REP_TEXT, &out, &err);
 *
 * Pairing: by rank number when every profile of both sides has one (its
 * summary's rank, or its folded header's rank=); else by position (name
 * order), and the output says so. Ranks on one side only are listed. Two
 * profiles of one rank on one side are an error.
 *
 * Output (text or Markdown, at most about 60 lines): one row per rank, the
 * ranks with the largest change of the total first (o.rows rows, 0 = 20):
 * total before and after (per step), the change, its share, and the frame
 * whose own weight changed most with its change; then the stacks (frame
 * paths) whose own weight changed most on any rank (each rank's o.stacks
 * largest, 0 = 5), by the number of ranks they changed on: on how many
 * they grew and shrank and the median change. Profiles are loaded one pair
 * at a time.
 *
 * Layer: ranks. Never prints.
 */
#ifndef GF_RANKS_DIFF_H
#define GF_RANKS_DIFF_H

#include "stacks/ftree.h"
#include "stacks/ops/diff.h"

/* One set of ranks' profiles (summaries of one weight, or folded files). */
struct ranks_side {
	size_t n;
	/* the rank of profile i, -1 when it has none (cheap: no tree built) */
	int (*rank)(void *ctx, size_t i, int64_t *rank, struct sbuf *err);
	/* profile i as a call tree (t ftree_init'ed by the caller) */
	int (*tree)(void *ctx, size_t i, struct ftree *t, struct sbuf *err);
	const char *(*name)(void *ctx, size_t i);
	void *ctx;
	const char *what;   /* the side in one phrase ("'sums-v1'") */
};

struct ranks_diff_opts {
	struct diff_opts d;  /* as gpuflame diff's */
	bool force;          /* pairs whose headers differ: compared anyway (else refused) */
	size_t rows;         /* rank rows shown, 0 = 20 */
	size_t stacks;       /* stacks per rank taken for the stack table, 0 = 5 */
};

/* format: REP_TEXT or REP_MD. @return GF_OK, GF_EUSAGE (unlike profiles
 * without force), GF_EINPUT (a profile unreadable, a rank twice) with one
 * line in err. */
int ranks_diff(const struct ranks_side *b, const struct ranks_side *a, const struct ranks_diff_opts *o, int format,
	       struct sbuf *out, struct sbuf *err);

#endif
