/*
 * rankdiff.h — `gpuflame diff BEFORE_DIR AFTER_DIR`: two runs of many ranks,
 * each a folder of summaries (gpuflame summarise) or of folded files (one
 * per rank, `gpuflame fold` output with its rank= header), compared rank by
 * rank (ranks/ranks_diff.h). Summaries are compared on the weight given
 * (--weight, default gpu: the page's graph of that weight).
 *
 * Layer: cli.
 */
#ifndef GF_RANKDIFF_H
#define GF_RANKDIFF_H

#include "ranks/ranks_diff.h"

/* weight: "gpu", "cpu", "wall" or "idle"; top: rank rows (0 = 20); out:
 * -o or NULL. Prints (all or nothing) or dies. */
void rankdiff_run(const char *before, const char *after, const char *weight, const struct ranks_diff_opts *o,
		  int format, const char *out);

#endif
