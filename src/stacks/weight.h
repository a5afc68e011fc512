/*
 * weight.h — the vocabulary of a folded profile's header: its weights and
 * its units ("# gpuflame: weight=idle; unit=us", docs/fold.md). One table
 * each, indexed by the enum; every user loops over them: the folder
 * (trace/analysis/fold) writes the names, svg titles a graph by its weight,
 * the exports read the units, the store and the push keep one profile per
 * weight, the HTML page names its tabs (from the page's JSON), and the
 * command line's value lists are these rows (cli/cliopt.h CLI_ROWS).
 *
 *   const struct weight_def *w = &weight_defs[FW_IDLE];  // "idle", "GPU idle time"
 *   int k = weight_find("wall");                          // FW_WALL, -1 unknown
 *
 * Adding a weight: one row at the end (the store keeps profiles under
 * run * 8 + the row: the rows' order is stored) and its fold in
 * trace/analysis/fold.c; its name is then a value of --weight everywhere.
 *
 * Layer: stacks.
 */
#ifndef GF_WEIGHT_H
#define GF_WEIGHT_H

#include "base/gf.h"

/* The weights. A trace folds into the first FW_NTRACE; "samples" is the
 * weight of a folded file that names none (py-spy, perf: counts). */
enum fold_weight { FW_GPU = 0, FW_CPU, FW_WALL, FW_IDLE, FW_CALLS, FW_SAMPLES, FW_N };
#define FW_NTRACE FW_SAMPLES

struct weight_def {
	const char *name;   /* the header's weight=, --weight's value, the store's weight */
	const char *title;  /* what a graph of it is titled (svg, the page's tab); NULL: none */
	const char *count;  /* the unit of a count ("calls"), or NULL: a time in weight_units */
};
extern const struct weight_def weight_defs[FW_N];

/* The units of a time weight: ns * 1000^k. fold writes the first FU_NFOLD. */
enum fold_unit { FU_NS = 0, FU_US, FU_MS, FU_S, FU_N };
#define FU_NFOLD FU_S

struct weight_unit {
	const char *name;   /* the header's unit=, --unit's value */
	unsigned digits;    /* decimal digits below it in ns: ns 0, us 3, ms 6, s 9 */
};
extern const struct weight_unit weight_units[FU_N];

/* @return the weight (enum fold_weight) named name, or -1. */
int weight_find(const char *name);
/* @return the unit (enum fold_unit) named name, or -1. */
int weight_unit_find(const char *name);

#endif
