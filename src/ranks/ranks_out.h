/*
 * ranks_out.h — what `report` prints about many ranks (ranks.h), in every
 * format, from the one combined result and nothing else:
 *
 *   text, md   at most about 100 lines at any number of ranks: the verdict
 *              and next step, the stragglers by process group (the 10 groups
 *              with the most waiting), the distribution of every per-rank
 *              figure with its outlying ranks, the step wall across ranks
 *              (skew; max_steps rows, 0 = 10), the verdicts across ranks, the
 *              straggler against the median rank, and with 6 ranks or fewer
 *              one column per rank (ranks_out.c; prose through the report's
 *              format interface, trace/write/report_fmt.h)
 *   json       "gpuflame.ranks/1" (docs/schema/ranks.schema.json,
 *              docs/report.md "Many ranks"): everything above and every rank's
 *              figures and the rank x step grid (ranks_json.c)
 *   html       the one-file page: the verdict, the groups, a distribution of
 *              each figure and a heat map of ranks x steps that stays
 *              readable at 1,024 ranks (page_ranks.js), and the flame graphs
 *              and tables of the ranks shown in full (ranks_html.c)
 *
 * Every number the text prints is one of the JSON's, printed as the single
 * report prints it (ms = us / 1000 at 3 decimals, % whole).
 *
 * Layer: ranks. Never prints.
 */
#ifndef GF_RANKS_OUT_H
#define GF_RANKS_OUT_H

#include "ranks/ranks.h"

#define RANKS_OUT_STEPS 10  /* skew rows by default */
#define RANKS_OUT_GROUPS 10 /* group rows */
#define RANKS_OUT_COLUMNS 6 /* one column per rank up to this many ranks */

/* The verdict and Next of many ranks (ranks.h, "Verdict"): one sentence
 * each, appended to v and a; every format prints these. */
void ranks_out_verdict(const struct ranks *r, struct sbuf *v, struct sbuf *a);

/* format: enum rep_format (base/rtable.h) but REP_HTML. */
void ranks_out(const struct ranks *r, int format, size_t max_steps, struct sbuf *out);
/* "gpuflame.ranks/1" (pretty-printed as the report's JSON is). */
void ranks_out_json(const struct ranks *r, struct sbuf *out);
/* The page. */
void ranks_out_html(const struct ranks *r, struct sbuf *out);

#endif
