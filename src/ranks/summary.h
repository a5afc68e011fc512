/*
 * summary.h — one rank reduced to a small, versioned JSON document
 * ("gpuflame.summary/1", docs/schema/summary.schema.json, docs/scale.md):
 * what `report` over many ranks needs of each, so that ranks are read on
 * as many machines as there are (`gpuflame summarise`, one Slurm array
 * task or GNU parallel job per trace) and combined in one small process
 * (`report --from-summaries`, ranks.h). `report TRACE...` goes through the
 * same documents (built in memory), so both give the same bytes.
 *
 *   struct summary_src src = { &report, &actx, &flames_or_NULL, "rank3.json.gz", &opts };
 *   summary_write(&src, &json);                  // the document
 *   struct summary s;
 *   if (summary_parse(&s, json.buf, json.len, "r3.summary.json", &err)) ...;
 *   ... s.rank, s.steps[i].wall, s.coll[k].seq ...
 *   summary_free(&s);
 *
 * The document (every time in exact decimal microseconds, integer ns at
 * scale 3; absent values null):
 *   schema       "gpuflame.summary/1"
 *   generator    "gpuflame <version>"
 *   run          the --run id given to summarise (a Slurm job id), or null
 *   options      the analysis options: steps ("A..B" or null), skip,
 *                step_marker, device (null: automatic), unprofiled_step_us,
 *                expect_us; summaries combine only with the same options
 *   file, rank, world_size, backend   the trace and its distributedInfo
 *   groups       [{name, desc, ranks: [int] | null, size}]: the process
 *                groups of distributedInfo.pg_config, then those only the
 *                collectives name, in that order
 *   collectives  the NCCL kernels starting inside the selected steps, as
 *                parallel arrays of length count: group (index into groups,
 *                -1 none), seq (Seq as written, null), collective and kernel
 *                (indexes into names, -1 none), dtype (index, -1), nelems,
 *                step (step number, null), enqueue_us (start of the launching
 *                call), start_us, dur_us; enqueue and start are absolute
 *                (baseTimeNanoseconds added) so ranks compare on one clock
 *   kernels      the top SUMMARY_KERNELS kernels by GPU time in the steps
 *                on the analysed device: [{name, count, gpu_us}]
 *   report       the rank's "gpuflame.report/2" document, exactly as
 *                `report --format json` writes it (per-step busy/idle by
 *                cause, the verdict, NCCL overlap, the idle stacks ...)
 *   page         the rank's part of the HTML page (report_html.h: the four
 *                flame graphs of the steps pruned as the page prunes them,
 *                with the pruned share, and the kernel families), or null
 *                (summarise --no-flames)
 * Its size depends on the number of steps, collectives and distinct stacks,
 * never on the size of the trace.
 *
 * Reading is strict (RFC 8259, import_json.h) and checks what it reads:
 * the schema (another version: "summary schema X, this gpuflame reads
 * gpuflame.summary/1"), types, ranges, array lengths; a cut-off document
 * names the byte where it ends. Errors: one line naming the file.
 *
 * Layer: ranks. Never prints.
 */
#ifndef GF_SUMMARY_H
#define GF_SUMMARY_H

#include "base/sbuf.h"
#include "trace/analysis/actx.h"
#include "trace/analysis/causes.h"
#include "trace/analysis/flames.h"
#include "trace/analysis/report.h"

#define SUMMARY_SCHEMA "gpuflame.summary/1"
#define SUMMARY_KERNELS 20

/* The analysis options a summary was made with (they must agree to combine). */
struct summary_opts {
	const struct report_opts *ro; /* steps selection and targets */
	const char *marker;           /* --step-marker, NULL = ProfilerStep */
	int device;                   /* --device, -1 automatic */
	const char *run;              /* --run, NULL */
	const char *generator;        /* "gpuflame <version>" */
};

/* What one summary is written from: a rank's report (built with every part),
 * its analysis context (for the collectives and kernels), its page graphs
 * (NULL: "page" is null) and the name of its trace. */
struct summary_src {
	const struct report *r;
	const struct actx *c;
	const struct flames *f;
	const char *file;
	const struct summary_opts *o;
};

/* Appends the document of src to out. */
void summary_write(const struct summary_src *src, struct sbuf *out);

/* --- reading --- */

/* One per-step or steady row of the rank's report (exact ns and counts). */
struct summary_row {
	int64_t number;          /* step number, -1 when none (whole trace, steady) */
	bool warmup;
	gf_ns wall, busy, idle, sync_wait;
	uint64_t syncs, launches, kernels;
	gf_ns comm, overlap, exposed;  /* -1 when the rank has no NCCL kernel */
	gf_ns cause[GAP_NCAUSES];      /* idle by cause (causes.h); -1 when not computed */
};

struct summary_group {
	char *name, *desc;       /* desc NULL when absent */
	int64_t *ranks;          /* NULL when unknown */
	size_t nranks;
	int64_t size;            /* -1 when unknown */
};

struct summary_coll {
	int32_t group;           /* index into groups, -1 none */
	int32_t coll, kernel, dtype; /* indexes into names, -1 none */
	int64_t seq;             /* -1 when absent */
	int64_t nelems;          /* -1 when absent */
	int64_t step;            /* INT64_MIN when outside any numbered step */
	gf_ns enqueue;           /* INT64_MIN when unknown */
	gf_ns start, dur;
};

struct summary_kernel {
	char *name;
	uint64_t count;
	gf_ns gpu;
};

struct summary_idle {
	char *stack;
	gf_ns idle;              /* over the steady steps */
};

struct summary {
	char *generator, *run, *options, *file, *backend; /* run, backend NULL when null; options:
							   * the canonical text of "options" */
	int64_t rank, world_size;         /* -1 when null */
	int device;                       /* the report's device, -1 */
	struct summary_group *groups;
	size_t ngroups;
	char **names;
	size_t nnames;
	struct summary_coll *coll;
	size_t ncoll;
	struct summary_kernel *kernels;
	size_t nkernels;
	struct summary_row *steps;        /* the report's step rows */
	size_t nsteps, nwarm;
	bool whole_trace;
	struct summary_row steady;        /* the report's summary (steady step) */
	char *verdict, *action, *cause;   /* NULL when null */
	struct summary_idle *idle;        /* the report's idle stacks */
	size_t nidle;
	const char *text;                 /* the document parsed (not owned) */
	size_t rep_off, rep_len;          /* text[rep_off..+rep_len): the "report" object */
	size_t page_off, page_len;        /* the "page" object; page_len 0 when null */
};

/*
 * Parses a summary document buf[0..len) named name (in messages); the raw
 * spans are offsets into buf (s.text). @return GF_OK or GF_EINPUT with one
 * line in err:
 *   "'r3.summary.json.zst': byte 812: expected ..." or "...: summary schema
 *   'gpuflame.summary/2'; this gpuflame reads gpuflame.summary/1".
 */
int summary_parse(struct summary *s, const char *buf, size_t len, const char *name, struct sbuf *err);
void summary_free(struct summary *s);

/*
 * The weight w ("gpu", "cpu", "wall", "idle") of a parsed summary's page as
 * a call tree t (ftree_init'ed by the caller, scale 3: ns), each frame's
 * self weight its stack's; the page's aggregates of pruned frames
 * ("[N frames < minwidth]") become "[pruned]", so that ranks and runs
 * compare. The header gets weight, unit=us, steps and rank. @return GF_OK,
 * GF_EUSAGE when the summary has no page or that graph (its why), or
 * GF_EINPUT.
 */
struct ftree;
int summary_tree(const struct summary *s, const char *w, struct ftree *t, struct sbuf *err);

#endif
