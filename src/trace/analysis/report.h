/*
 * report.h — the one analysis result of a trace (one rank): the step table,
 * gap causes, hidden syncs, launch diagnosis, NCCL, the top calls per step,
 * the host stacks while the GPU idled, and the one-sentence verdict built
 * from them. Every writer (trace/write/: text, Markdown, JSON) renders this
 * struct and nothing else: it never reaches into the trace.
 *
 *   struct report_opts o;
 *   report_opts_init(&o);                   // every part
 *   o.parts = RP_SYNCS;                     // or only what is printed
 *   struct report r;
 *   report_build(&r, &actx, &o, &err);      // steps, then the parts asked
 *   ... trace/write/report_out.h renders it ...
 *   report_release(&r);
 *
 * Parts are computed on demand: the steps always (their columns only when a
 * part other than RP_SYNCS is asked, the median kernels only for RP_STEPS:
 * the step table prints them, syncs reads the windows only), the others only
 * when o.parts asks (RP_VERDICT brings the gaps, syncs and comm it reads). A part
 * not asked is left zeroed (no rows, no sites, no kernels), and r.parts says
 * which were computed.
 *
 * Idle stacks (RP_IDLE): fold --weight idle (fold.h) over the same step
 * selection, innermost 3 frames, only the analysed device (actx.h: the
 * automatic choice or --device), top REPORT_IDLE_TOP by idle time. A fold
 * error only drops them: r.idle_err holds its message.
 *
 * Cores: with t->cores 2 (trace.h: not -j1 / GPUFLAME_THREADS=1), the step
 * medians and the idle stacks are computed on a second thread while gaps,
 * syncs, comm and the top calls run on the caller's; each writes its own
 * fields, so the report is the same byte for byte.
 *
 * Ranks: report_straggler() matches the ranks' collectives (comm.h).
 *
 * Verdict rules (docs/report.md "Verdict"), from the steady gap row G and the
 * steady step (wall W, busy B):
 *  - no GPU activity: says so (cause none);
 *  - B >= 90% of W - G.edge: GPU-bound (gpu_bound), with the median
 *    launch-to-start latency and the edge time when it is >= 1% of W, said to
 *    be the window's edge; look at the kernels;
 *  - else the cause (gaps.h) holding most of the idle time (ties: edge, sync,
 *    host, untraced, queued, launch), its top key and that key's share of
 *    the cause, then the other causes >= 1% of W. report.action is the advice
 *    for that same cause and names the same key; edge is never advised as
 *    code. report.cause is the RC_* (summary.verdict_cause in JSON).
 *
 * Layer: trace/analysis. Never prints.
 */
#ifndef GF_REPORT_H
#define GF_REPORT_H

#include "trace/analysis/comm.h"
#include "trace/analysis/gaps.h"
#include "trace/analysis/syncs.h"

#define REPORT_TOP_CALLS 10
#define REPORT_IDLE_TOP 8

/* The parts of a report (report_opts.parts, report.parts). */
enum report_part {
	RP_GAPS = 1 << 0,     /* gaps.h: idle by cause, sync sites, host stacks, launches */
	RP_SYNCS = 1 << 1,    /* syncs.h: blocking calls by site */
	RP_COMM = 1 << 2,     /* comm.h: NCCL per step */
	RP_TOP = 1 << 3,      /* top calls per step */
	RP_IDLE = 1 << 4,     /* host stacks while the GPU idled (fold --weight idle) */
	RP_VERDICT = 1 << 5,  /* verdict and action (implies gaps, syncs, comm) */
	RP_STEPS = 1 << 6,    /* the step table's median kernel (without it: 0) */
	RP_ALL = 0x7f
};

/* What the verdict names (report.cause; report_cause_name). */
enum report_cause {
	RC_NONE = 0, RC_GPU_BOUND, RC_EDGE, RC_SYNC, RC_HOST, RC_UNTRACED, RC_QUEUED, RC_LAUNCH
};

struct top_call {
	char *name;
	uint8_t kind;      /* enum trange_kind: TR_OP or TR_RUNTIME (a launch) */
	uint64_t count;    /* over the steady steps */
};

/* What the writers print about the trace itself (copied from the model). */
struct report_meta {
	int64_t rank, world_size;  /* KEV_NONE when absent */
	int device;                /* the analysed device, -1 when no GPU activity */
	char device_kind[64];      /* "CUDA", "ROCm", "XPU", "PrivateUse1", "MTIA" (trace_device_kind), "" */
	uint64_t unattributed;     /* GPU activities without a launch */
	uint64_t before_window;    /* of which launched before the window */
	uint64_t clipped;          /* host ranges clipped */
	bool truncated;            /* the file was cut off */
};

struct report_opts {
	struct trace_sel steps;
	gf_ns unprofiled_ns;   /* --unprofiled-step-ms, -1 when absent */
	gf_ns expect_ns;       /* --expect-ms, -1 when absent */
	unsigned parts;        /* RP_* to compute; report_opts_init: RP_ALL */
	bool gap_pieces;       /* keep the gap model's pieces (gaps_analyze_pieces) */
};

struct report {
	unsigned parts;      /* RP_* computed */
	struct report_meta meta;
	struct steps_result st;
	struct gaps_result gp;
	struct syncs_result sy;
	struct comm_result cm;
	struct top_call top[REPORT_TOP_CALLS];
	size_t ntop;
	struct gap_key *idle; /* host stacks by GPU idle, descending, total over idle_steps */
	size_t nidle;
	uint32_t idle_steps;
	char *idle_err;      /* why the idle stacks are missing (fold error), NULL */
	gf_ns unprofiled_ns, expect_ns;
	int cause;           /* enum report_cause: what the verdict names */
	char *verdict;       /* one sentence */
	char *action;        /* what to do next, one sentence */
};

void report_opts_init(struct report_opts *o);

/* Computes the steps and the parts o->parts asks (c is not kept).
 * @return GF_OK, or GF_EUSAGE when the step selection keeps no step. */
int report_build(struct report *r, const struct actx *c, const struct report_opts *o,
		 struct sbuf *err);
void report_release(struct report *r);

/* The straggler among n ranks (comm.h), each rank's collectives inside its
 * selected steps (reports built with RP_COMM or not). @return GF_OK. */
int report_straggler(const struct actx *const *c, const struct report *const *r, size_t n,
		     struct strag_result *out);

/* Appends a duration for prose: "38.0 ms" (>= 1 ms, 1 decimal) or "7.3 us". */
void report_fmt_dur(struct sbuf *b, gf_ns ns);
/* "none", "gpu_bound", "edge", "sync", "host", "untraced", "queued", "launch". */
const char *report_cause_name(int cause);
/* Appends a key's share of its cause as a percentage with 2 decimals
 * ("41.23%"): gaps_share, the JSON's share times 100 exactly. */
void report_fmt_share(struct sbuf *b, gf_ns part, gf_ns whole);
/* Appends part/whole as a whole percentage, rounded half up ("29%"). */
void report_fmt_pct(struct sbuf *b, gf_ns part, gf_ns whole);

#endif
