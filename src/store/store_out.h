/*
 * store_out.h — the writers of the store's read side (store_query.c reads
 * the rows, these render them): `store list` and `store show` as text
 * (aligned tables, names escaped for the terminal) or JSON, `store trend` as
 * a table, JSON or a standalone SVG line plot (names escaped for XML).
 *
 * Units: the metrics a report records are integer ns in the store and in the
 * JSON; the text tables and the plot print them in microseconds with three
 * decimals (exact), as `diff` prints its times (store_collect_ns() says
 * which); counts and the profiles' weights print as they are.
 *
 * Layer: store. Never prints: text comes back in an sbuf.
 */
#ifndef GF_STORE_OUT_H
#define GF_STORE_OUT_H

#include "base/gf.h"
#include "base/sbuf.h"

struct store_kv {
	char *key, *val;
};

/* A run as list and show print it. */
struct store_out_run {
	int64_t id, added, steps;        /* added: UNIX seconds */
	char *release, *kind, *source;
	struct store_kv *labels;         /* by key */
	size_t nlabels;
};

struct store_out_metric {
	char *key;
	int64_t value;
};

struct store_out_profile {
	char *weight;
	int64_t scale, stacks, total;    /* total at 10^-scale */
};

/* A run whole (show). */
struct store_out_show {
	struct store_out_run run;
	char *header;
	struct store_out_metric *metrics; /* by key */
	size_t nmetrics;
	struct store_out_profile *profiles;
	size_t nprofiles;
};

/* One release of a trend: its runs, the metric's sum and mean over them
 * (the mean rounded half to even). */
struct store_out_trend {
	char *release;
	int64_t runs, sum, mean;
};

void store_out_list(const struct store_out_run *r, size_t n, bool json, struct sbuf *out);
void store_out_show(const struct store_out_show *s, bool json, struct sbuf *out);
/* fmt: enum store_trend_fmt (store.h). */
void store_out_trend(const char *metric, const struct store_out_trend *r, size_t n, int fmt, struct sbuf *out);

/* Frees what the readers allocated (the strings and arrays). */
void store_out_run_release(struct store_out_run *r);
void store_out_show_release(struct store_out_show *s);

#endif
