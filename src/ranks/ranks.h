/*
 * ranks.h — many ranks' summaries (summary.h) combined into what `report`
 * says about a run of N ranks (docs/report.md, "Many ranks"; docs/scale.md):
 * the straggler of every process group, the distribution of every per-rank
 * figure with its outlying ranks, the skew of step times, NCCL overlap,
 * a rank x step grid (the page's heat map), and the straggler against the
 * median rank. `report --from-summaries` reads the summaries from files,
 * `report TRACE...` builds them in memory: the same code makes the same
 * bytes.
 *
 *   struct ranks_source src = { n, load, name, ctx };   // loads summary i
 *   struct ranks_opts o = { .partial = false, .pages = 0 };
 *   struct ranks r;
 *   if (ranks_combine(&src, &o, &r, &err)) die(err.buf);
 *   ... ranks_out.h renders r ...
 *   ranks_free(&r);
 *
 * Streaming: the summaries are loaded one at a time and freed; what is kept
 * per rank is its figures, its steps' walls and a few words per collective
 * (for the matching), so memory grows by a bounded amount per rank, never
 * by a whole summary. A second pass loads again only the ranks the output
 * compares or shows in full (the straggler and the median rank; for the
 * page, up to RANKS_PAGES ranks).
 *
 * Checks (one line naming the file, GF_EINPUT): the same schema (summary.h),
 * run id (--run), options, world size and process-group membership on
 * every summary ("not ranks of one run"), no rank twice, ranks known
 * on all or none, and unless o.partial every rank 0..world_size-1 present.
 *
 * Ranks: by rank number (in input order when the traces have none).
 *
 * Collectives (the TB plugin / TraceLens / DeepSpeed minimum-wait rule, per
 * process group, as PyTorch's Flight Recorder matches them): an instance
 * is (group, sequence number): Seq as written, else the collective's place
 * among the rank's collectives of that group in the selected steps. A rank
 * whose kernels repeat one (group, seq) (coalesced) counts it once, from its
 * first start to its last end. Traces without process-group names fall
 * back to one group of every rank matched by (kernel name, occurrence), and
 * the result says so (r.fallback). An instance is matched when every member
 * of its group (every rank with a collective in it) has it, mismatched when
 * matched but their collective names or sizes differ. For a matched
 * instance: min = the shortest duration; each member's wait = its duration
 * - min; the member with the shortest duration arrived last (when two or
 * more share it, nobody did). A group's straggler is the member that
 * arrived last most often (ties: the smallest total wait, then the lower
 * rank), none when no member ever did; clear when strictly more often than
 * every other member. Durations only: clocks of different hosts need not
 * agree.
 *
 * Figures (per rank, the steady step of its report unless said): RF_*.
 * Distributions: nearest-rank percentiles (the p-th of n sorted values is
 * the ceil(p n / 100)-th); outlying ranks are outside the Tukey fences
 * (Q1 - 1.5 IQR, Q3 + 1.5 IQR) and more than 1% away from the median,
 * farthest first. A rank without a figure (no NCCL kernel, no gap model)
 * is left out of that figure's distribution.
 *
 * Verdict (the findings above; ranks_out.h phrases them, the same
 * sentences in every format):
 * the group the output leads with is the one whose clear straggler made
 * the others wait longest (else the one with the most waiting); its
 * straggler, how often it arrived last and the others' wait; next, the
 * straggler against the median rank by step wall of its group's other
 * members (the step wall and the kernel with the most extra GPU time per
 * step). Without a matched
 * collective: the verdict most ranks share, and the median rank's action.
 *
 * Layer: ranks. Never prints.
 */
#ifndef GF_RANKS_H
#define GF_RANKS_H

#include "ranks/summary.h"

#define RANKS_PAGES 8     /* ranks shown in full on the page */
#define RANKS_KERNEL_DIFF 5

/* Per-rank figures. */
enum ranks_fig {
	RF_WALL = 0, RF_BUSY, RF_BUSY_SHARE, RF_IDLE, RF_SYNC_WAIT, RF_SYNCS, RF_LAUNCHES, RF_KERNELS,
	RF_COMM, RF_OVERLAP, RF_EXPOSED, RF_WAIT, RF_LAST,
	RF_EDGE, RF_SYNC, RF_HOST, RF_UNTRACED, RF_QUEUED, RF_LAUNCH, /* idle by cause */
	RF_N
};

/* The unit of a figure: ns (printed as us/ms), a count, or a share in
 * 1/10000 (RF_BUSY_SHARE). */
enum ranks_unit { RU_NS, RU_COUNT, RU_SHARE };

struct ranks_figdef {
	const char *key;    /* JSON: "step_wall_us" ... */
	const char *label;  /* text: "step wall ms" ... */
	int unit;
};
extern const struct ranks_figdef ranks_figs[RF_N];

/* Where the summaries come from: load(ctx, i, out, err) puts the text of
 * summary i into out (GF_OK) or fails with one line; name(ctx, i) names it
 * in messages. */
struct ranks_source {
	size_t n;
	int (*load)(void *ctx, size_t i, struct sbuf *out, struct sbuf *err);
	const char *(*name)(void *ctx, size_t i);
	void *ctx;
	const char *what;   /* the inputs in one phrase for "missing rank" ("'dir/'") */
};

struct ranks_opts {
	bool partial;       /* the ranks present, not every rank of the world */
	bool pages;         /* keep the report and page text of the ranks shown in full */
};

/* One step of one rank (a cell of the rank x step grid). */
struct ranks_cell {
	int64_t number;           /* the step number, -1: the whole trace */
	gf_ns wall, busy, idle, exposed; /* exposed -1 without NCCL */
	bool warmup;
};

struct ranks_rank {
	char *file;
	int64_t rank;             /* -1 when the trace has none */
	size_t src;               /* index in the source */
	int device;
	size_t nsteps, nwarm;
	bool whole_trace;
	int64_t fig[RF_N];        /* INT64_MIN when the rank has no such figure */
	char *cause;              /* its verdict's cause ("sync"), NULL */
	char *verdict, *action;   /* its report's sentences, NULL */
	uint64_t colls;           /* its collectives */
	struct ranks_cell *cell;  /* its steps, by number */
	size_t ncell;
};

struct ranks_dist {
	size_t n;                 /* ranks with the figure */
	int64_t min, q1, p50, q3, p90, max;
	size_t *out;              /* outlying ranks (indexes into r.rank), farthest first */
	size_t nout;
};

struct ranks_group {
	char *name, *desc;        /* desc NULL */
	int64_t *ranks;           /* the group's rank list as the traces give it, NULL */
	size_t nranks;
	size_t members;           /* ranks with a collective in it */
	uint64_t instances, matched, unmatched, mismatched;
	bool by_seq;              /* every instance keyed by Seq as written */
	long straggler;           /* index into r.rank, -1 when nothing matched */
	bool clear;
	uint64_t last;            /* the straggler's arrived-last count */
	gf_ns waited;             /* the other members' wait, summed over matched instances */
	gf_ns max_wait;           /* the largest wait of any member */
	long mismatch_at;         /* a rank of the first mismatched instance, -1 */
	int64_t mismatch_seq;
};

struct ranks_step {
	int64_t number;           /* -1: the whole trace (no steps) */
	size_t n;                 /* ranks that have it */
	size_t warm;              /* of which warm-up */
	gf_ns min, p50, max;      /* step wall across ranks */
	size_t slowest;           /* index into r.rank */
};

struct ranks_kdiff {
	char *name;
	gf_ns a, b;               /* GPU time per step: the straggler, the median rank */
};

/* The straggler of the group with the most waiting, against the median rank
 * (by step wall) of the group's other members. */
struct ranks_cmp {
	long group;               /* index into r.groups, -1 none */
	long a, b;                /* indexes into r.rank: straggler, its group's median rank */
	struct ranks_kdiff *k;    /* kernels with the most extra GPU time per step, largest first */
	size_t nk;
};

/* A rank shown in full on the page: its report and page objects' text. */
struct ranks_page {
	size_t rank;              /* index into r.rank */
	char *report, *page;      /* page NULL when its summary has none */
	const char *why;          /* "straggler of group X", "median rank" */
	char *why_buf;
};

struct ranks_verdict {
	char *cause;              /* NULL: no verdict */
	size_t count;
	size_t first;             /* index into r.rank of a rank with it */
};

struct ranks {
	size_t n;
	struct ranks_rank *rank;
	int64_t world_size;       /* -1 when the traces have none */
	bool ranks_known;
	bool partial;             /* fewer ranks than the world size */
	char *options;            /* the summaries' options ("" none) */
	struct ranks_dist fig[RF_N];
	struct ranks_group *groups; /* by name as first met */
	size_t ngroups;
	bool fallback;            /* no process group in the traces: one group by kernel name */
	struct ranks_step *steps; /* step numbers of any rank, ascending */
	size_t nsteps;
	size_t median;            /* index into r.rank of the median rank by step wall */
	struct ranks_verdict *verdicts; /* by count, descending */
	size_t nverdicts;
	struct ranks_cmp cmp;
	struct ranks_page *pages;
	size_t npages;
};

/* Summaries in files (plain, .gz or .zst, through the input layer), in the
 * given order: src reads f->paths[0..f->n) (f is kept by the caller). */
struct ranks_files {
	char **paths;
	size_t n;
	struct sbuf in;   /* "-": standard input, read once and kept (the second pass reads it again) */
	bool in_read;
};
void ranks_source_files(struct ranks_source *src, struct ranks_files *f, const char *what);

/* Summaries built in memory (report TRACE...), kept zstd-compressed until
 * the combine reads them: ranks_mem_put may run on several threads at once
 * for different i. */
struct ranks_mem {
	struct sbuf *z;
	char **names;
	size_t n;
};
void ranks_mem_init(struct ranks_mem *m, size_t n);
void ranks_mem_put(struct ranks_mem *m, size_t i, const char *name, const struct sbuf *json);
void ranks_source_mem(struct ranks_source *src, struct ranks_mem *m);
/* Bytes the compressed summaries hold. */
size_t ranks_mem_bytes(const struct ranks_mem *m);
void ranks_mem_free(struct ranks_mem *m);

/* @return GF_OK, or GF_EINPUT (a summary unreadable, or summaries that do
 * not belong together) with one line in err. */
int ranks_combine(const struct ranks_source *src, const struct ranks_opts *o, struct ranks *r,
		  struct sbuf *err);
void ranks_free(struct ranks *r);

/* The name a rank goes by: "rank 3", or "#2 (file)" when the trace has none. */
void ranks_name(const struct ranks *r, size_t i, struct sbuf *b);

#endif
