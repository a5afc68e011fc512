/*
 * flames.h — what the HTML page draws beside the report (trace/write/
 * report_html.h): the four weighted call trees of the same steps (fold.h:
 * gpu, cpu, wall, idle, folded from the one loaded model with the actx's
 * walk, so the trace is read once for the whole page), the number of calls
 * of every frame name inside those steps, and under each kernel family its
 * top real kernel names by GPU time.
 *
 *   struct flames f;
 *   if (flames_build(&f, &actx, &steps, marker, &err)) ...;  // after report_build
 *   ... f.g[FLAMES_WALL] is fold --weight wall's tree ...
 *   flames_release(&f);
 *
 * Graphs: fold_opts_init's defaults (annotation,python,op; families; us, so
 * weights are exact ns at scale 3), the given step selection; idle only the
 * analysed device (as the report's idle stacks). A fold that fails (a trace
 * without GPU activity has no gpu or idle weight) leaves that graph empty
 * (have[w] false) with its message in why[w]; the page says so.
 *
 * Calls (flames_calls): for a host frame name (normalised as fold names
 * frames: fold_frame_name, the step marker without "#N"), the host ranges of
 * any thread with that name starting inside a selected step (every range
 * when the trace has no steps); for a kernel family (or "memcpy",
 * "memset"), the GPU activities of the family whose launching call (the
 * activity itself when unattributed) starts inside a selected step. The
 * same name as a host frame and a family sums both.
 *
 * Cost: four folds plus one pass over the ranges and one over the
 * activities (a binary search among the steps each): linear in the trace.
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_FLAMES_H
#define GF_FLAMES_H

#include "trace/analysis/actx.h"
#include "trace/analysis/fold.h"

/* The page's graphs: the time weights, g[w] of weight w (enum fold_weight). */
enum { FLAMES_GPU = FW_GPU, FLAMES_CPU = FW_CPU, FLAMES_WALL = FW_WALL, FLAMES_IDLE = FW_IDLE, FLAMES_N };
_Static_assert((int)FLAMES_N == (int)FW_CALLS, "the page's graphs are the weights before calls");
#define FLAMES_TOP_KERNELS 3

struct flames_kernel {
	uint32_t name;   /* id in flames.names (the real kernel name as written) */
	gf_ns ns;        /* its GPU time in the steps */
	uint64_t count;
	struct trace_kcfg cfg; /* its most frequent launch configuration over the trace
				* (trace_kcfg_top); cfg.count 0: none recorded */
};

struct flames_family {
	uint32_t name;   /* id in flames.names: the family (the gpu graph's leaf) */
	gf_ns ns;
	uint64_t count;
	struct flames_kernel top[FLAMES_TOP_KERNELS]; /* by ns, descending (ties: name id) */
	unsigned ntop;
	uint64_t kernels; /* distinct real names in the family */
};

struct flames {
	struct ftree g[FLAMES_N];
	bool have[FLAMES_N];
	char *why[FLAMES_N];         /* the fold's message when !have */
	struct fold_stats st[FLAMES_N];
	uint32_t steps;              /* selected steps (0: no steps, the whole trace) */
	struct pool *names;          /* frame, family and kernel names */
	uint64_t *calls;             /* per names id: calls in the steps */
	uint32_t ncalls;
	struct flames_family *fam;   /* families by ns, descending */
	size_t nfam;
	int ts_gen;                  /* the trace's timestamp generation (enum kts_gen), for the page */
	bool legacy;                 /* a legacy autograd profiler trace */
};

/* @return GF_OK, or GF_EUSAGE when the selection keeps no step (as fold). */
int flames_build(struct flames *f, const struct actx *c, const struct trace_sel *steps, const char *marker,
		 struct sbuf *err);
void flames_release(struct flames *f);

/* Calls of a frame name (n bytes) in the steps; -1 when the name is not a
 * host frame, a family, "memcpy" or "memset" seen in the steps. */
int64_t flames_calls(const struct flames *f, const char *name, size_t n);
/* The family named so, or NULL. */
const struct flames_family *flames_family(const struct flames *f, const char *name, size_t n);

/* Into out (reset first): the GPU graph's leaf for an activity of kind
 * `kind` (enum tact_kind) named `name` (a t->names id): "memcpy", "memset",
 * or the kernel's family (kfamily_of, then fold_frame_name); fam is scratch. */
struct kfamily;
void flames_act_family(const struct kfamily *kf, const struct trace *t, uint32_t name, int kind, struct sbuf *fam,
		       struct sbuf *out);

#endif
