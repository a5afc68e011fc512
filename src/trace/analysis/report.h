/*
 * report.h — the one analysis result of a trace (one rank): the step table,
 * gap causes, hidden syncs, launch diagnosis, NCCL, the top calls per step,
 * the host stacks while the GPU idled, and the verdict read from them: a
 * finding (struct report_verdict: what, which cause and key, the numbers it
 * rests on, the advice's key), not a sentence. Every writer (trace/write/:
 * text, Markdown, JSON, the HTML page; the words are trace/write/prose.h's)
 * renders this struct and nothing else: it never reaches into the trace.
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
 *  - no GPU activity: VERDICT_NO_GPU (advice ADV_NO_GPU, or ADV_LEGACY for
 *    the legacy autograd export);
 *  - B >= 90% of W - G.edge while G.edge < W / 2: VERDICT_GPU_BOUND (the
 *    writers add the median launch-to-start latency, the edge time when it is
 *    >= 1% of W and the exposed NCCL time when it is > 10% of W); advice
 *    ADV_KERNELS;
 *  - else VERDICT_CAUSE: the cause (causes.h) holding most of the idle time
 *    (ties in the table's order), its top key and the cause's steady total
 *    that key's share is of, then the other causes >= 1% of W, largest first;
 *    the advice is the cause's (causes_gap[].advice) and names the same key;
 *    edge is never advised as code;
 *  - no idle time at all (a zero-length step): VERDICT_NO_GAPS, ADV_NONE.
 * summary.verdict_cause in JSON is report_verdict_key().
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

/* What the verdict found. */
enum verdict_kind { VERDICT_NO_GPU = 0, VERDICT_GPU_BOUND, VERDICT_CAUSE, VERDICT_NO_GAPS, VERDICT_N };

/*
 * The verdict as data: the writers phrase it (trace/write/prose.h) and
 * every number they print is one of these (or of the report they point
 * into). Pointers are into the same struct report.
 */
struct report_verdict {
	int kind;                      /* enum verdict_kind */
	int cause;                     /* VERDICT_CAUSE: enum gap_cause, else -1 */
	int hclass;                    /* enum host_class of the idle host work, HW_NONE */
	int advice;                    /* enum advice: what Next says */
	const struct gap_key *key;     /* the cause's top key (sync site, host stack, queued wait), NULL */
	gf_ns key_total;               /* the cause's steady total the key's share is of */
	const struct sync_site *site;  /* sync: the hidden-sync site behind the key, NULL */
	bool key_dominant;             /* host: the key holds at least a quarter of its cause */
	gf_ns ns;                      /* the cause's mean per steady step (VERDICT_CAUSE) */
	int others[GAP_NCAUSES];       /* the other causes >= 1% of the step, largest first */
	gf_ns others_ns[GAP_NCAUSES];
	size_t nothers;
	/* the steady step it reads */
	gf_ns wall, busy;
	gf_ns edge;                    /* the window's edge (GPU-bound: busy is of wall - edge) */
	bool edge_noted;               /* GPU-bound: the edge is >= 1% of the step: say it */
	gf_ns comm_exposed;            /* exposed NCCL time per steady step */
	bool comm_noted;               /* GPU-bound: it is > 10% of the step: say it */
	bool whole_trace;              /* the "step" is the whole trace */
	bool legacy;                   /* the legacy autograd profiler's export */
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
	unsigned dev_kinds;        /* KDEV_* (kineto.h's kdev_defs): the writers name them (trace_device_kind) */
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
	struct report_verdict verdict; /* RP_VERDICT (parts says so) */
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

/* The verdict's key (summary.verdict_cause): "none", "gpu_bound" or the
 * cause's key (causes.h). */
const char *report_verdict_key(const struct report_verdict *v);

#endif
