/*
 * store.h — the release store: every benchmark run kept, folded once per
 * weight, with its report summary and metadata, so each release can be
 * diffed against the last (gpuflame store, docs/store.md).
 *
 * A run is what one `store add` input gives: up to five profiles (gpu, cpu,
 * wall, idle, calls for a trace; gpu, cpu, wall, idle for a rank's summary;
 * the one weight of a folded file), each a
 * set of (stack, integer weight) at the profile's decimal scale (0 for ns
 * and counts) with its "# gpuflame:" header; the metrics (the report's
 * steady-step summary for a trace, the per-step totals otherwise); labels.
 * Stacks are stored once, keyed by a 64-bit hash of their text (a different
 * text under a known hash is refused, never merged). A run is added in one
 * write transaction: all of it or nothing (kill -9, a full disk). A run is
 * stored once per release: its digest (SHA-256 of its release, kind,
 * steps, labels, metrics and every profile's header, stacks and weights)
 * is looked up first, and the same content again is recognised, not added.
 *
 * Opening (store_open) never touches what is not a store: reads
 * (STORE_READ) open the database read-only and refuse one that is not a
 * gpuflame store (missing, empty, another program's tables, a gf_meta
 * whose schema is not a version number, a newer schema) with nothing
 * changed; writes take the write lock first, then create a store only in
 * an empty database (STORE_CREATE) and migrate an older one.
 *
 * Schema (version STORE_SCHEMA, gf_meta.schema; migrations numbered, run
 * once under the write lock; a database from a newer schema is refused;
 * an older one is read as it is):
 *   gf_meta(key, value)
 *   runs(id, release, added, source, kind, steps, header, digest)
 *   labels(run, key, value)     metrics(run, key, value)
 *   profiles(id = run*8 + weight index, run, weight, scale, header, stacks, total)
 *   stacks(hash, text)          samples(profile, stack, value)
 * Names the user gives (release, source, label values) are byte strings
 * (BLOB / BYTEA since schema 2): any bytes, the same on both engines.
 *
 * Sides (store_side): "run:N" or a plain number is one run; "release:R" or
 * any other text is release R: all its runs, summed, their headers merged
 * as `gpuflame merge` merges them (steps summed: the diff is per step).
 *
 * Layer: store. Never prints: text and JSON come back in an sbuf.
 */
#ifndef GF_STORE_H
#define GF_STORE_H

#include "base/gf.h"
#include "base/sbuf.h"
#include "stacks/ftree.h"
#include "store/store_eng.h"

#define STORE_SCHEMA 3
#define STORE_MAX_PROFILES 5
#define STORE_MAX_LABELS 32
#define STORE_MAX_METRICS 24
#define STORE_STEPS_FRAME "# steps"  /* the per-step stacks' first frame (struct store_run_in) */

struct store {
	struct store_eng *e;
	int schema; /* the database's version (older ones are read as they are) */
};

enum store_mode {
	STORE_READ = 0, /* list, show, diff, trend, push: nothing is written */
	STORE_UPDATE,   /* gc: an existing store, written */
	STORE_CREATE,   /* add: a store, created in an empty database */
};

struct store_metric {
	const char *key;
	int64_t value;
};

struct store_run_in {
	const char *release, *source, *kind; /* kind: "trace", "folded" or "summary" */
	int64_t steps;                       /* 0 when unknown */
	const char *weights[STORE_MAX_PROFILES];
	struct ftree *prof[STORE_MAX_PROFILES];
	/* the per-step fold of each profile (one tower per step, per_step=yes;
	 * NULL: none), kept beside it for diff's step-to-step noise test: its
	 * stacks are stored under the profile with the first frame
	 * STORE_STEPS_FRAME, a frame no stored stack can start with (the folded
	 * writers write a first frame "# ..." as "#_ ..."), and count in neither
	 * its stacks nor its total */
	struct ftree *step_folds[STORE_MAX_PROFILES];
	size_t nprof;
	const char *labels[STORE_MAX_LABELS]; /* "KEY=VALUE" */
	size_t nlabels;
	struct store_metric metrics[STORE_MAX_METRICS];
	size_t nmetrics;
};

/* The database when --db is absent: $GPUFLAME_DB, else ./gpuflame.db. */
const char *store_default_url(void);

/* Opens the store at url for mode (enum store_mode). @return GF_OK,
 * GF_EINPUT (cannot open, not a store, a newer schema: nothing changed),
 * GF_EOUTPUT (cannot write). */
int store_open(struct store **s, const char *url, int mode, struct sbuf *err);
void store_close(struct store *s);

/* Adds a run whole. @return GF_OK with its id in *id; *dup is true when
 * the same run (its digest) was in the release already: *id is that run
 * and nothing was written. */
int store_add(struct store *s, const struct store_run_in *in, int64_t *id, bool *dup, struct sbuf *err);
/* Adds the runs next gives (it returns GF_OK with *in NULL after the last;
 * each *in is used before next is called again) in one write transaction:
 * all of them or none (a run of many ranks, stored as one run per rank).
 * A run already in its release (its digest) is not added again: counted in
 * *ndup. @return GF_OK with the first new id in *first (the others follow
 * it) and the number added in *n, or next's error, or the store's. */
int store_add_all(struct store *s, int (*next)(void *ctx, const struct store_run_in **in, struct sbuf *err),
		  void *ctx, int64_t *first, size_t *n, size_t *ndup, struct sbuf *err);

/* Binds a user's name (release, source, label value) as parameter i of st:
 * a byte string since schema 2, text in an older store read as it is. */
void store_bind_name(struct store *s, struct store_stmt *st, int i, const char *v, size_t n);

struct store_filter {
	const char *release;     /* NULL: any */
	const char *label;       /* "KEY=VALUE" or NULL */
	int64_t since, until;    /* added, UNIX seconds; 0 = open */
};

/* The runs as a table (json: a JSON array) into out. */
int store_list(struct store *s, const struct store_filter *f, bool json, struct sbuf *out, struct sbuf *err);
/* One run: its row, labels, metrics, profiles. GF_EUSAGE when absent. */
int store_show(struct store *s, int64_t run, bool json, struct sbuf *out, struct sbuf *err);

/*
 * Loads side spec's profile of weight into t (initialised by the caller,
 * empty): the folded text of each run read back with the folded reader, so
 * the tree is the one `gpuflame diff` builds from the same folded files.
 * name gets a display name ("release v2 (3 runs)", "run 7").
 */
int store_side(struct store *s, const char *spec, const char *weight, struct ftree *t, struct sbuf *name,
	       struct sbuf *err);
/*
 * The per-step fold of side spec's profile of weight into steps (empty,
 * initialised by the caller), when every run of the side kept one (else
 * steps stays empty): the runs' step frames numbered apart (run k's
 * ProfilerStep#N reads ProfilerStep#<k * 10^9 + N>), so that a release's
 * steps are every run's steps. @return GF_OK or a read error.
 */
int store_side_steps(struct store *s, const char *spec, const char *weight, struct ftree *steps, struct sbuf *err);
/* The runs of side spec, ascending; name as store_side's. GF_EUSAGE when
 * there is none. */
int store_side_runs(struct store *s, const char *spec, int64_t **ids, size_t *n, struct sbuf *name,
		    struct sbuf *err);
/* The folded text of runs ids[0..n) of weight summed: one header (merged as
 * gpuflame merge merges), then every run's stack lines. */
int store_runs_text(struct store *s, const int64_t *ids, size_t n, const char *weight, struct sbuf *out,
		    struct sbuf *err);
/* The release of side spec (a run's, or the release named) into rel. */
int store_side_release(struct store *s, const char *spec, struct sbuf *rel, struct sbuf *err);
/* The folded text of one run's profile (header first) into out; its
 * per-step stacks are left out. */
int store_profile_text(struct store *s, int64_t run, const char *weight, struct sbuf *out, struct sbuf *err);

/* Metric across releases (in the order they were first added): a table
 * (release, runs, mean, change from the release before), a standalone SVG
 * line plot, or JSON ({"metric", "releases": [{release, runs, sum, mean}]}). */
enum store_trend_fmt { STORE_TREND_TEXT = 0, STORE_TREND_SVG, STORE_TREND_JSON };
int store_trend(struct store *s, const char *metric, int fmt, struct sbuf *out, struct sbuf *err);
/* Keeps the newest keep releases (by their last run), deletes the others'
 * runs and the stacks no run uses. *runs gets the number deleted. */
int store_gc(struct store *s, int64_t keep, int64_t *runs, int64_t *stacks, struct sbuf *err);

/* The 64-bit hash that keys a stack's text (FNV-1a and a final mix). */
int64_t store_hash(const char *s, size_t n);

#endif
